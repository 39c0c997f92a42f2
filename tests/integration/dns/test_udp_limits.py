"""UDP answers of mdns and the built-in nameserver stay within min(client's EDNS payload, ours)
(512 without EDNS), larger ones come truncated with TC so real clients retry over TCP, and
EDNS versions other than 0 get BADVERS (RFC 6891) — issue 11's amplification findings."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import dns.asyncquery
import dns.edns
import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import pytest

from openkeel_designate.dnswire import client
from openkeel_designate.dnswire.limits import udp_limit
from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.mdns.server import MdnsServer
from openkeel_designate.nameserver.server import BuiltinNameserver

from conftest import POOL  # type: ignore[import-not-found]

ZONE = "big.example."
BIG = f"many.{ZONE}"
COUNT = 2000  # A records at one name: ~32 KB of answer


def big_zone(source) -> None:
    many = [ServedRecord(BIG, "A", 300, f"10.0.{i >> 8}.{i & 255}") for i in range(COUNT)]
    txt = [ServedRecord(BIG, "TXT", 300, f'"{"x" * 200}{i}"') for i in range(50)]
    small = [ServedRecord(f"www.{ZONE}", "A", 300, "192.0.2.1")]
    source.put(ZONE, 1, many + txt + small)


@pytest.fixture
async def servers(source, tmp_path):
    """mdns (default payload) and a built-in nameserver that transferred the big zone."""
    big_zone(source)
    mdns = MdnsServer(source, [("127.0.0.1", 0)], POOL)
    async with mdns:
        async with BuiltinNameserver([("127.0.0.1", 0)], mdns.bound, str(tmp_path)) as ns:
            host, port = ns.bound[0]
            assert await client.send_notify(ZONE, host, port, timeout=2) == dns.rcode.NOERROR
            await asyncio.sleep(0)
            await ns.refresher.idle()
            yield {"mdns": mdns.bound[0], "nameserver": ns.bound[0]}


def query(name: str, rdtype: str, payload: int | None, version: int = 0) -> dns.message.Message:
    if payload is None:
        return dns.message.make_query(name, rdtype)
    return dns.message.make_query(name, rdtype, use_edns=version, payload=payload)


async def udp_raw(address: tuple[str, int], q: dns.message.Message) -> bytes:
    """The answer datagram as sent (dnspython's client would reject nothing we check here)."""
    loop = asyncio.get_running_loop()
    received: asyncio.Future[bytes] = loop.create_future()

    class Receiver(asyncio.DatagramProtocol):
        def datagram_received(self, data: bytes, addr) -> None:
            if not received.done():
                received.set_result(data)

    transport, _ = await loop.create_datagram_endpoint(Receiver, remote_addr=address)
    try:
        transport.sendto(q.to_wire())
        return await asyncio.wait_for(received, 2)
    finally:
        transport.close()


@pytest.mark.parametrize("which", ["mdns", "nameserver"])
@pytest.mark.parametrize(("payload", "limit"), [(None, 512), (0, 512), (511, 512), (800, 800),
                                                (1232, 1232), (4096, 1232), (65535, 1232)])
async def test_udp_answer_never_exceeds_the_agreed_payload(servers, which, payload,
                                                           limit) -> None:
    q = query(BIG, "A", payload)
    wire = await udp_raw(servers[which], q)
    answer = dns.message.from_wire(wire)
    print(f"{which}: query {len(q.to_wire())} B, EDNS payload {payload} -> answer {len(wire)} B")
    assert len(wire) <= limit
    assert answer.flags & dns.flags.TC
    assert answer.question[0].name.to_text() == BIG  # the question is kept
    assert answer.rcode() == dns.rcode.NOERROR
    if payload is not None:
        assert answer.edns == 0 and answer.payload == 1232  # what we advertise


@pytest.mark.parametrize("which", ["mdns", "nameserver"])
async def test_tcp_carries_the_whole_answer(servers, which) -> None:
    host, port = servers[which]
    answer = await dns.asyncquery.tcp(query(BIG, "A", 65535), host, port=port, timeout=5)
    assert not answer.flags & dns.flags.TC
    assert len(answer.answer[0]) == COUNT


async def test_any_at_a_big_node_is_truncated_on_the_nameserver(servers) -> None:
    """Issue 11's reproduction: a 45-byte ANY query got a 42 KB UDP answer."""
    q = query(BIG, "ANY", 65535)
    wire = await udp_raw(servers["nameserver"], q)
    print(f"ANY: query {len(q.to_wire())} B -> answer {len(wire)} B "
          f"(amplification x{len(wire) / len(q.to_wire()):.1f})")
    assert len(wire) <= 1232 and dns.message.from_wire(wire).flags & dns.flags.TC


@pytest.mark.parametrize("which", ["mdns", "nameserver"])
async def test_small_answers_are_not_truncated(servers, which) -> None:
    host, port = servers[which]
    answer = await dns.asyncquery.udp(query(f"www.{ZONE}", "A", None), host, port=port,
                                      timeout=2)
    assert not answer.flags & dns.flags.TC and answer.answer[0][0].address == "192.0.2.1"


@pytest.mark.skipif(shutil.which("dig") is None, reason="dig not installed")
@pytest.mark.parametrize("which", ["mdns", "nameserver"])
async def test_dig_retries_over_tcp_and_gets_everything(servers, which) -> None:
    host, port = servers[which]
    out = await asyncio.to_thread(subprocess.run, [
        "dig", f"@{host}", "-p", str(port), BIG, "A", "+bufsize=65535", "+noall", "+answer",
        "+comments"], capture_output=True, text=True, timeout=20, check=True)
    assert "Truncated, retrying in TCP mode" in out.stdout
    assert sum(1 for line in out.stdout.splitlines() if "\tA\t" in line) == COUNT


@pytest.mark.parametrize("which", ["mdns", "nameserver"])
@pytest.mark.parametrize("tcp", [False, True])
async def test_edns_version_1_gets_badvers(servers, which, tcp) -> None:
    host, port = servers[which]
    q = query(f"www.{ZONE}", "A", 4096, version=1)
    send = dns.asyncquery.tcp if tcp else dns.asyncquery.udp
    answer = await send(q, host, port=port, timeout=2)
    assert answer.rcode() == dns.rcode.BADVERS
    assert answer.edns == 0 and not answer.answer  # an OPT of the version we speak, no data


@pytest.mark.parametrize("which", ["mdns", "nameserver"])
async def test_edns_version_0_with_unknown_options_is_answered(servers, which) -> None:
    host, port = servers[which]
    q = dns.message.make_query(f"www.{ZONE}", "A", use_edns=0, payload=4096,
                               options=[dns.edns.GenericOption(65001, b"hello")])
    answer = await dns.asyncquery.udp(q, host, port=port, timeout=2)
    assert answer.rcode() == dns.rcode.NOERROR and answer.answer


async def test_axfr_over_udp_is_the_soa_with_tc(servers) -> None:
    """AXFR is not defined over UDP (RFC 5936 §4.2): mdns sends the SOA alone with TC, so the
    client retries over TCP; the datagram stays the size of one SOA, whatever the zone's size.
    (The nameserver does the same for allowed clients: see test_transfer_acl.py.)"""
    wire = await udp_raw(servers["mdns"], query(ZONE, "AXFR", 65535))
    answer = dns.message.from_wire(wire)
    assert answer.flags & dns.flags.TC and len(wire) < 200
    assert [r.rdtype for r in answer.answer] == [dns.rdatatype.SOA]


async def test_configured_payload_is_advertised_and_bounds_answers(source) -> None:
    medium = f"medium.{ZONE}"  # 150 A records: about 2.4 KB of answer
    source.put(ZONE, 1, [ServedRecord(medium, "A", 300, f"10.1.0.{i}") for i in range(150)])
    async with MdnsServer(source, [("127.0.0.1", 0)], POOL) as default, \
            MdnsServer(source, [("127.0.0.1", 0)], POOL, max_udp_payload=4096) as larger:
        wire = await udp_raw(default.bound[0], query(medium, "A", 65535))
        assert len(wire) <= 1232 and dns.message.from_wire(wire).flags & dns.flags.TC
        wire = await udp_raw(larger.bound[0], query(medium, "A", 65535))
        answer = dns.message.from_wire(wire)
        assert 1232 < len(wire) <= 4096 and not answer.flags & dns.flags.TC
        assert answer.payload == 4096 and len(answer.answer[0]) == 150
        wire = await udp_raw(larger.bound[0], query(medium, "A", 2000))  # the client's is less
        assert len(wire) <= 2000 and dns.message.from_wire(wire).flags & dns.flags.TC


def test_udp_limit_rule() -> None:
    assert udp_limit(4096, False, 1232) == 512
    assert udp_limit(0, True, 1232) == 512
    assert udp_limit(1000, True, 1232) == 1000
    assert udp_limit(65535, True, 1232) == 1232
    assert udp_limit(65535, True, 70000) == 65535
