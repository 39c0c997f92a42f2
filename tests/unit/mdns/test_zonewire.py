"""ZoneWire's RRs (owners pointing at the question, addresses packed without dnspython) read
back as the records dnspython renders from the same text."""

from __future__ import annotations

import dns.message
import dns.name
import dns.rdata
import dns.rrset
import pytest

from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.mdns.packing import ZoneWire, assemble, room_for, split

ZONE = "Example.ORG."
RECORDS = [
    ServedRecord("example.org.", "SOA", 300, "ns1.example.org. h.example.org. 7 3600 600 86400 60"),
    ServedRecord("example.org.", "NS", 300, "ns1.example.org."),
    ServedRecord("www.example.org.", "A", 300, "192.0.2.1"),
    ServedRecord("WWW.Example.Org.", "A", 300, "192.0.2.2"),
    ServedRecord("a.b.c.example.org.", "AAAA", 60, "2001:db8::1"),
    ServedRecord("v6.example.org.", "AAAA", 60, "2001:0DB8:0:0::2"),  # not canonical: dnspython
    ServedRecord("esc\\.aped.example.org.", "TXT", 60, '"x"'),
    ServedRecord("_sip._tcp.example.org.", "SRV", 60, "0 5 5060 sip.example.org."),
    ServedRecord("other.test.", "A", 60, "192.0.2.9"),  # outside the zone: never compressed
]


def parsed(question: str) -> dns.message.Message:
    qname = dns.name.from_text(question)
    wire = ZoneWire(ZONE)
    rrs = wire.wires(RECORDS)
    q = (qname, dns.rdatatype.AXFR, dns.rdataclass.IN)
    messages = assemble(1, 0x8400, q, split(rrs, room_for(q, 65535, None)), 65535)
    assert len(messages) == 1
    return dns.message.from_wire(messages[0])


@pytest.mark.parametrize("question", ["example.org.", "EXAMPLE.org."])
def test_records_read_back_as_dnspython_renders_them(question: str) -> None:
    message = parsed(question)
    got = [(rrset.name, rrset.ttl, rdata) for rrset in message.answer for rdata in rrset]
    expected = [(dns.name.from_text(r.name), r.ttl,
                 dns.rdata.from_text("IN", r.type, r.data)) for r in RECORDS]
    assert sorted(map(canonical, got)) == sorted(map(canonical, expected))


def canonical(rr: tuple[dns.name.Name, int, dns.rdata.Rdata]) -> tuple[str, int, str]:
    """Names compare without case (RFC 4343): the pointer spells the zone as the question."""
    name, ttl, rdata = rr
    return name.canonicalize().to_text(), ttl, rdata.to_text()


def test_unrenderable_record_is_left_out() -> None:
    bad = ServedRecord("x.example.org.", "A", 60, "not an address")
    assert ZoneWire(ZONE).wires([bad, RECORDS[2]]) == ZoneWire(ZONE).wires([RECORDS[2]])
