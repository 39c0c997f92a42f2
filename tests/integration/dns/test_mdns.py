"""mdns against real clients (dnspython, dig) on loopback: answers, transfers, hostile input."""

from __future__ import annotations

import asyncio
import io
import os
import random
import shutil
import socket
import struct
import subprocess
import time

import dns.asyncquery
import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import pytest

from openkeel_designate.dnswire import client
from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.mdns.packing import rr_wire
from openkeel_designate.mdns.server import MdnsServer

ZONE = "example.org."


def addr(server: MdnsServer) -> tuple[str, int]:
    return server.bound[0]


async def raw_tcp(host: str, port: int, wire: bytes, count: int = 1,
                  timeout: float = 2.0) -> list[bytes]:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(struct.pack("!H", len(wire)) + wire)
        await writer.drain()
        answers = []
        for _ in range(count):
            (length,) = struct.unpack("!H", await asyncio.wait_for(reader.readexactly(2), timeout))
            answers.append(await asyncio.wait_for(reader.readexactly(length), timeout))
        return answers
    finally:
        writer.close()


async def test_soa_answer_is_authoritative(mdns, source, ask) -> None:
    source.put(ZONE, 42)
    response = await ask(*addr(mdns), ZONE, "SOA")
    assert response.rcode() == dns.rcode.NOERROR
    assert response.flags & dns.flags.AA
    assert response.answer[0].rdtype == dns.rdatatype.SOA
    assert response.answer[0][0].serial == 42


async def test_other_query_types_answer_from_the_rrset(mdns, source, ask) -> None:
    source.put(ZONE, 1, [ServedRecord(f"www.{ZONE}", "A", 120, "192.0.2.1"),
                         ServedRecord(f"www.{ZONE}", "A", 120, "192.0.2.2")])
    response = await ask(*addr(mdns), "WWW.Example.ORG.", "A")
    assert response.flags & dns.flags.AA
    assert sorted(r.address for r in response.answer[0]) == ["192.0.2.1", "192.0.2.2"]
    assert response.answer[0].ttl == 120
    assert (await ask(*addr(mdns), f"www.{ZONE}", "MX")).rcode() == dns.rcode.REFUSED
    assert (await ask(*addr(mdns), f"nope.{ZONE}", "A")).rcode() == dns.rcode.REFUSED


async def test_unknown_zone_and_other_pool_are_refused(mdns, source, ask) -> None:
    source.put("other-pool.org.", 1, pool_id="another-pool")
    for name, rdtype in (("unknown.org.", "SOA"), ("other-pool.org.", "SOA"),
                         ("unknown.org.", "AXFR"), ("other-pool.org.", "AXFR")):
        response = await ask(*addr(mdns), name, rdtype, tcp=True)
        assert response.rcode() == dns.rcode.REFUSED, (name, rdtype)


async def test_bad_question_shapes_are_refused(mdns, source) -> None:
    source.put(ZONE, 1)
    host, port = addr(mdns)
    chaos = dns.message.make_query(ZONE, "SOA", rdclass=dns.rdataclass.CH)
    refused = dns.rcode.REFUSED
    assert (await dns.asyncquery.udp(chaos, host, port=port, timeout=2)).rcode() == refused
    two = dns.message.make_query(ZONE, "SOA")
    two.find_rrset(two.question, dns.name.from_text("a." + ZONE), dns.rdataclass.IN,
                   dns.rdatatype.A, create=True)
    assert (await dns.asyncquery.udp(two, host, port=port, timeout=2)).rcode() == refused
    update = dns.message.make_query(ZONE, "SOA")
    update.set_opcode(dns.opcode.UPDATE)
    assert (await dns.asyncquery.udp(update, host, port=port, timeout=2)).rcode() == refused


async def test_notify_without_handler_is_notauth_and_needs_one_question(mdns, source) -> None:
    host, port = addr(mdns)
    assert await client.send_notify(ZONE, host, port, timeout=2) == dns.rcode.NOTAUTH
    empty = dns.message.Message()
    empty.set_opcode(dns.opcode.NOTIFY)
    response = await dns.asyncquery.udp(empty, host, port=port, timeout=2)
    assert response.rcode() == dns.rcode.FORMERR


async def test_notify_callback_decides_the_rcode(source, pool_id) -> None:
    seen = []

    async def on_notify(zone_name: str, sender: str) -> int:
        seen.append((zone_name, sender))
        return dns.rcode.NOERROR

    async with MdnsServer(source, [("127.0.0.1", 0)], pool_id, on_notify=on_notify) as server:
        host, port = server.bound[0]
        assert await client.send_notify(ZONE, host, port, timeout=2) == dns.rcode.NOERROR
    assert seen == [(ZONE, "127.0.0.1")]


async def test_axfr_of_a_large_zone_spans_messages_and_reassembles(mdns, source, a_records) -> None:
    source.put(ZONE, 7, a_records(ZONE, 20_000))
    host, port = addr(mdns)
    query = dns.message.make_query(ZONE, "AXFR").to_wire()
    zone = await client.axfr(ZONE, host, port, timeout=10)
    assert len(zone.nodes) == 20_001
    assert zone.get_rdataset(ZONE, "SOA")[0].serial == 7
    assert zone.get_rdataset(f"host19999.{ZONE}", "A")[0].address == "10.0.78.31"
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(struct.pack("!H", len(query)) + query)
    sizes, soas = [], 0
    while soas < 2:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
        message = dns.message.from_wire(await reader.readexactly(length), xfr=True)
        sizes.append(length)
        assert message.flags & dns.flags.AA and message.rcode() == dns.rcode.NOERROR
        soas += sum(1 for rrset in message.answer if rrset.rdtype == dns.rdatatype.SOA)
    writer.close()
    assert len(sizes) > 1 and max(sizes) <= 65535


@pytest.mark.skipif(shutil.which("dig") is None, reason="dig not installed")
async def test_dig_reassembles_a_multi_message_axfr(mdns, source, a_records) -> None:
    source.put(ZONE, 9, a_records(ZONE, 20_000))
    host, port = addr(mdns)
    process = await asyncio.create_subprocess_exec(
        "dig", f"@{host}", "-p", str(port), ZONE, "AXFR", "+time=5", "+tries=1",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    out, _ = await process.communicate()
    text = out.decode()
    lines = [line for line in text.splitlines() if line and not line.startswith(";")]
    assert len(lines) == 20_000 + 3  # SOA, NS, the A records, SOA
    assert "XFR size: 20003 records" in text
    messages = int(text.split("(messages ")[1].split(",")[0])
    assert messages > 1


async def test_repeated_axfr_reads_the_zone_once(source, pool_id, a_records) -> None:
    """With a transfer cache, the same zone version is read and rendered once (the timings are
    printed for the curious, never asserted)."""
    source.put(ZONE, 3, a_records(ZONE, 5_000))
    query = dns.message.make_query(ZONE, "AXFR").to_wire()
    figures, answers = [], []
    async with MdnsServer(source, [("127.0.0.1", 0)], pool_id,
                          transfer_cache_bytes=1 << 20) as server:
        for _ in range(3):
            started = time.perf_counter()
            answers.append(await server.handler(query, ("127.0.0.1", 0), True))
            figures.append(time.perf_counter() - started)
    print(f"mdns AXFR 5,000 records: cold {figures[0] * 1000:.1f} ms, "
          f"warm {min(figures[1:]) * 1000:.1f} ms, {len(answers[0])} messages")
    assert source.transfers[f"id-{ZONE}"] == 1
    assert answers[0] == answers[1] == answers[2]


async def test_unrenderable_record_is_skipped(mdns, source, ask) -> None:
    source.put(ZONE, 5, [ServedRecord(f"bad.{ZONE}", "A", 300, "not-an-address"),
                         ServedRecord(f"bad.{ZONE}", "MX", 300, "nonsense"),
                         ServedRecord(f"good.{ZONE}", "A", 300, "192.0.2.9")])
    zone = await client.axfr(ZONE, *addr(mdns), timeout=5)
    assert zone.get_node(f"bad.{ZONE}") is None
    assert zone.get_rdataset(f"good.{ZONE}", "A")[0].address == "192.0.2.9"


async def test_single_record_larger_than_a_message_is_servfail(source, pool_id) -> None:
    big_txt = " ".join(f'"{"x" * 200}"' for _ in range(5))
    source.put(ZONE, 5, [ServedRecord(f"big.{ZONE}", "TXT", 300, big_txt)])
    async with MdnsServer(source, [("127.0.0.1", 0)], pool_id, max_message_size=600) as server:
        query = dns.message.make_query(ZONE, "AXFR")
        [wire] = await raw_tcp(*server.bound[0], query.to_wire())
        assert dns.message.from_wire(wire).rcode() == dns.rcode.SERVFAIL


async def test_ixfr_is_answered_as_full_transfer(mdns, source, a_records) -> None:
    source.put(ZONE, 11, a_records(ZONE, 10))
    host, port = addr(mdns)
    query = dns.message.make_query(ZONE, "IXFR")
    query.authority.append(dns.rrset.from_text(
        ZONE, 300, "IN", "SOA", f"ns1.{ZONE} hostmaster.{ZONE} 10 3600 1 604800 60"))
    [wire] = await raw_tcp(host, port, query.to_wire())
    message = dns.message.from_wire(wire, one_rr_per_rrset=True)
    types = [rrset.rdtype for rrset in message.answer]
    assert types[0] == types[-1] == dns.rdatatype.SOA
    assert sum(len(rrset) for rrset in message.answer) == 10 + 3
    udp = await dns.asyncquery.udp(query, host, port=port, timeout=2)
    assert [rrset.rdtype for rrset in udp.answer] == [dns.rdatatype.SOA]


async def test_several_queries_on_one_tcp_connection(mdns, source) -> None:
    source.put(ZONE, 13)
    reader, writer = await asyncio.open_connection(*addr(mdns))
    for i in range(5):
        query = dns.message.make_query(ZONE, "SOA")
        wire = query.to_wire()
        writer.write(struct.pack("!H", len(wire)) + wire)
        (length,) = struct.unpack("!H", await reader.readexactly(2))
        answer = dns.message.from_wire(await reader.readexactly(length))
        assert answer.id == query.id and answer.answer[0][0].serial == 13
    writer.close()


async def test_silent_tcp_client_is_disconnected(mdns) -> None:
    reader, writer = await asyncio.open_connection(*addr(mdns))
    started = time.monotonic()
    assert await asyncio.wait_for(reader.read(), 3) == b""
    assert time.monotonic() - started < 2
    writer.close()
    reader, writer = await asyncio.open_connection(*addr(mdns))
    writer.write(b"\x00\x40\x12\x34")  # announces 64 bytes, sends 2, then stalls
    assert await asyncio.wait_for(reader.read(), 3) == b""
    writer.close()


async def test_garbage_never_crashes_the_server(mdns, source, ask) -> None:
    source.put(ZONE, 17)
    host, port = addr(mdns)
    good = dns.message.make_query(ZONE, "SOA").to_wire()
    rng = random.Random(1996)
    samples = [b"", b"\x00", good[:5], good[:-3], good + b"\xff" * 7, os.urandom(12),
               good[:2] + b"\x80" + good[3:],  # a response: must be ignored
               good[:4] + b"\xff\xff" + good[6:]]
    samples += [bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 600))) for _ in range(200)]
    samples += [bytearray(good) for _ in range(100)]
    for sample in samples[-100:]:
        sample[rng.randrange(len(sample))] = rng.getrandbits(8)
    samples = [bytes(s) for s in samples]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for sample in samples:
        sock.sendto(sample, (host, port))
    sock.close()
    for sample in samples[:60]:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(struct.pack("!H", len(sample)) + sample + os.urandom(3))
        await writer.drain()
        writer.close()
    for tcp in (False, True):
        response = await ask(host, port, ZONE, "SOA", tcp=tcp)
        assert response.answer[0][0].serial == 17


@pytest.mark.parametrize(("rdtype", "data"), [
    ("A", "192.0.2.1"), ("AAAA", "2001:db8::1"), ("MX", "10 mail.example.org."),
    ("CNAME", "target.example.net."), ("TXT", '"v=spf1 -all" "second"'),
    ("SRV", "0 5 5060 sip.example.org."), ("CAA", '0 issue "letsencrypt.org"'),
])
def test_rr_wire_matches_dnspython(rdtype: str, data: str) -> None:
    name = dns.name.from_text("www.example.org.")
    rdata = dns.rdata.from_text("IN", rdtype, data)
    expected = io.BytesIO()
    dns.rrset.from_rdata(name, 3600, rdata).to_wire(expected)
    assert rr_wire(name.to_wire(), 3600, rdata) == expected.getvalue()
