"""The outbound DNS client against mdns and against a scripted fake server on loopback."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import dns.exception
import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import dns.rdatatype
import dns.rrset
import pytest

from openkeel_designate.dnswire import client
from openkeel_designate.dnswire.client import DnsTimeout, DnsTransferError, SoaStatus
from openkeel_designate.mdns.transport import DnsListener

ZONE = "example.org."
SOA = f"ns1.{ZONE} hostmaster.{ZONE} 77 3600 600 86400 60"

Script = Callable[[dns.message.Message], dns.message.Message]


@pytest.fixture
async def fake():
    """A server answering with whatever ``fake.script`` builds from the query."""
    listener: DnsListener

    async def handler(wire: bytes, peer, tcp: bool) -> list[bytes]:
        return [listener.script(dns.message.from_wire(wire)).to_wire()]

    listener = DnsListener([("127.0.0.1", 0)], handler)
    await listener.start()
    yield listener
    await listener.stop()


def answer(flags: int, rcode: int = dns.rcode.NOERROR, with_soa: bool = True) -> Script:
    def build(query: dns.message.Message) -> dns.message.Message:
        response = dns.message.make_response(query)
        response.flags = dns.flags.QR | flags | (query.flags & 0x7800)  # its opcode
        response.set_rcode(rcode)
        if with_soa:
            response.answer.append(dns.rrset.from_text(ZONE, 300, "IN", "SOA", SOA))
        return response
    return build


@pytest.fixture
def silent_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.mark.parametrize(("flags", "rcode", "with_soa", "status", "serial"), [
    (dns.flags.AA, dns.rcode.NOERROR, True, SoaStatus.SUCCESS, 77),
    (dns.flags.AA, dns.rcode.NOERROR, False, SoaStatus.NO_ZONE, 0),
    (dns.flags.AA, dns.rcode.NXDOMAIN, False, SoaStatus.NO_ZONE, 0),
    (0, dns.rcode.REFUSED, False, SoaStatus.NO_ZONE, 0),
    (0, dns.rcode.SERVFAIL, False, SoaStatus.NO_ZONE, 0),
    (0, dns.rcode.NOTAUTH, False, SoaStatus.NO_ZONE, 0),
    (dns.flags.RA, dns.rcode.NOERROR, True, SoaStatus.NO_ZONE, 0),  # recursive answer
    (0, dns.rcode.NOERROR, True, SoaStatus.ERROR, 0),  # neither authoritative nor recursive
    (dns.flags.AA, dns.rcode.FORMERR, False, SoaStatus.ERROR, 0),
])
async def test_query_soa_classifies_answers(fake, flags, rcode, with_soa, status, serial) -> None:
    fake.script = answer(flags, rcode, with_soa)
    for tcp in (False, True):
        result = await client.query_soa(ZONE, *fake.bound[0], timeout=2, tcp=tcp)
        assert (result.status, result.serial) == (status, serial)


async def test_query_soa_timeout_is_error(silent_port) -> None:
    result = await client.query_soa(ZONE, "127.0.0.1", silent_port, timeout=0.2)
    assert result.status is SoaStatus.ERROR


async def test_query_soa_against_mdns(mdns, source) -> None:
    source.put(ZONE, 1234)
    assert await client.query_soa(ZONE, *mdns.bound[0], timeout=2) == client.SoaResult(
        SoaStatus.SUCCESS, 1234, dns.rcode.NOERROR)
    missing = await client.query_soa("missing.org.", *mdns.bound[0], timeout=2)
    assert missing.status is SoaStatus.NO_ZONE


async def test_send_notify_returns_rcode_and_sends_a_notify(fake) -> None:
    seen = []

    def script(query: dns.message.Message) -> dns.message.Message:
        seen.append(query)
        response = dns.message.make_response(query)
        response.set_rcode(dns.rcode.NOTAUTH)
        return response

    fake.script = script
    assert await client.send_notify(ZONE, *fake.bound[0], timeout=2) == dns.rcode.NOTAUTH
    assert await client.send_notify(ZONE, *fake.bound[0], timeout=2, tcp=True) == dns.rcode.NOTAUTH
    assert all(q.opcode() == dns.opcode.NOTIFY and q.flags & dns.flags.AA for q in seen)
    assert seen[0].question[0].rdtype == dns.rdatatype.SOA


async def test_send_notify_timeout_raises(silent_port) -> None:
    with pytest.raises(DnsTimeout):
        await client.send_notify(ZONE, "127.0.0.1", silent_port, timeout=0.2)
    assert issubclass(DnsTimeout, OSError)


async def test_axfr_returns_the_zone(mdns, source, a_records) -> None:
    source.put(ZONE, 5, a_records(ZONE, 100))
    zone = await client.axfr(ZONE, *mdns.bound[0], timeout=2)
    assert zone.origin.to_text() == ZONE
    assert len(zone.nodes) == 101


async def test_axfr_builds_the_zone_dnspython_builds(mdns, source, a_records) -> None:
    """Many messages (5,000 records): the same zone as dnspython's own inbound transfer."""
    import dns.asyncquery
    import dns.xfr
    import dns.zone

    source.put(ZONE, 9, a_records(ZONE, 5000))
    ours = await client.axfr(ZONE, *mdns.bound[0], timeout=5)
    theirs = dns.zone.Zone(ZONE, relativize=False)
    query, _ = dns.xfr.make_query(theirs)
    host, port = mdns.bound[0]
    await dns.asyncquery.inbound_xfr(host, theirs, query, port=port, timeout=5)
    assert len(ours.nodes) == 5001
    assert ours == theirs
    assert ours.get_rdataset(ZONE, "SOA")[0].serial == 9


async def test_axfr_refused_raises(mdns) -> None:
    with pytest.raises(DnsTransferError):
        await client.axfr("missing.org.", *mdns.bound[0], timeout=2)


async def test_axfr_connection_refused_raises_oserror() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(OSError):
        await client.axfr(ZONE, "127.0.0.1", port, timeout=1)


@pytest.fixture
async def scripted():
    """A server whose ``scripted.reply(query, tcp)`` gives the datagrams (or TCP messages) it
    sends back, in order."""
    listener: DnsListener

    async def handler(wire: bytes, peer, tcp: bool) -> list[bytes]:
        return listener.reply(dns.message.from_wire(wire), tcp)

    listener = DnsListener([("127.0.0.1", 0)], handler)
    await listener.start()
    yield listener
    await listener.stop()


async def test_query_soa_passes_by_datagrams_for_another_query(scripted) -> None:
    def reply(query: dns.message.Message, tcp: bool) -> list[bytes]:
        stray = answer(dns.flags.AA)(query)
        stray.id ^= 0x5A5A
        stray.answer[0] = dns.rrset.from_text(ZONE, 300, "IN", "SOA", SOA.replace(" 77 ", " 1 "))
        return [stray.to_wire(), answer(dns.flags.AA)(query).to_wire()]

    scripted.reply = reply
    result = await client.query_soa(ZONE, *scripted.bound[0], timeout=2)
    assert (result.status, result.serial) == (SoaStatus.SUCCESS, 77)


async def test_query_soa_and_notify_ask_again_over_tcp_when_truncated(scripted) -> None:
    asked = []

    def reply(query: dns.message.Message, tcp: bool) -> list[bytes]:
        asked.append((query.opcode(), tcp))
        if tcp:
            return [answer(dns.flags.AA)(query).to_wire()]
        truncated = answer(dns.flags.AA | dns.flags.TC, with_soa=False)(query)
        truncated.set_rcode(dns.rcode.SERVFAIL)  # what a truncated answer says is not read
        return [truncated.to_wire()]

    scripted.reply = reply
    result = await client.query_soa(ZONE, *scripted.bound[0], timeout=2)
    assert (result.status, result.serial) == (SoaStatus.SUCCESS, 77)
    assert await client.send_notify(ZONE, *scripted.bound[0], timeout=2) == dns.rcode.NOERROR
    assert asked == [(dns.opcode.QUERY, False), (dns.opcode.QUERY, True),
                     (dns.opcode.NOTIFY, False), (dns.opcode.NOTIFY, True)]


async def test_unreadable_answer_is_an_error(scripted) -> None:
    scripted.reply = lambda query, tcp: [answer(dns.flags.AA)(query).to_wire()[:-3]]
    result = await client.query_soa(ZONE, *scripted.bound[0], timeout=2)
    assert result.status is SoaStatus.ERROR
    with pytest.raises(dns.exception.FormError):
        await client.send_notify(ZONE, *scripted.bound[0], timeout=2)


async def test_a_closed_port_times_out_as_with_dnspython() -> None:
    # An ICMP unreachable is not seen (the socket is not connected, as dnspython's): a worker
    # polling a stopped server waits out its timeout between polls instead of spinning.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    result = await client.query_soa(ZONE, "127.0.0.1", closed, timeout=0.3)
    assert result.status is SoaStatus.ERROR
    with pytest.raises(DnsTimeout):
        await client.send_notify(ZONE, "127.0.0.1", closed, timeout=0.3)


async def test_answers_from_another_address_are_passed_by() -> None:
    """The answer must come from the address asked: one sent first from another port of the
    same host (serial 1) is passed by, the server's own (serial 77) is taken."""
    loop = asyncio.get_running_loop()
    other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    other.bind(("127.0.0.1", 0))

    class Server(asyncio.DatagramProtocol):
        def connection_made(self, transport) -> None:
            self.transport = transport

        def datagram_received(self, data: bytes, addr) -> None:
            query = dns.message.from_wire(data)
            forged = answer(dns.flags.AA)(query)
            forged.answer[0] = dns.rrset.from_text(ZONE, 300, "IN", "SOA", SOA.replace(" 77 ", " 1 "))
            other.sendto(forged.to_wire(), addr)
            loop.call_later(0.05, self.transport.sendto, answer(dns.flags.AA)(query).to_wire(), addr)

    transport, _ = await loop.create_datagram_endpoint(Server, local_addr=("127.0.0.1", 0))
    try:
        result = await client.query_soa(ZONE, *transport.get_extra_info("sockname"), timeout=2)
        assert (result.status, result.serial) == (SoaStatus.SUCCESS, 77)
    finally:
        transport.close()
        other.close()
