"""ZoneWire's RRs (owners pointing at the question, addresses packed without dnspython) read
back as the records dnspython renders from the same text."""

from __future__ import annotations

import random
import string

import dns.exception
import dns.message
import dns.name
import dns.rdata
import dns.rrset
import pytest

from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.mdns.packing import ZoneWire, _plain_wire, assemble, room_for, split

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


PLAIN_CASES = [
    ("CNAME", "a9.big.example.org."), ("CNAME", "WWW.Example.ORG."), ("NS", "ns1.example.net."),
    ("PTR", "host-1.example.org."), ("CNAME", "*.example.org."), ("CNAME", "_sip._tcp.x."),
    ("CNAME", "a.*.example.org."), ("MX", "10 mx5.example.net."), ("MX", "0 MX.example."),
    ("MX", "65535 a."), ("MX", "010 a.example."), ("TXT", '"v=spf1 ip4:10.1.2.0/24 -all" "n1"'),
    ("TXT", '"a;b (c) @ $ x"'), ("TXT", '""'), ("TXT", '"" ""'), ("SPF", '"v=spf1 -all"'),
    ("TXT", '"' + "x" * 255 + '"'), ("CNAME", "a" * 63 + ".example."),
    ("CNAME", ".".join(["abcdefg"] * 31) + ".a."),
]
# Texts left to dnspython (which may accept or refuse them): escapes, relative names, odd spacing,
# values out of range.
NOT_PLAIN = [
    ("CNAME", "relative.name"), ("CNAME", "esc\\.aped.example."), ("CNAME", "."),
    ("CNAME", "a" * 64 + ".example."), ("CNAME", ".".join(["abcdefgh"] * 28) + ".ab."),
    ("MX", "10  mx.example."), ("MX", "65536 mx.example."), ("MX", "10 mx"),
    ("TXT", 'unquoted'), ("TXT", '"a"  "b"'), ("TXT", '"a\\"b"'), ("TXT", '"tab\there"'),
    ("TXT", '"' + "x" * 256 + '"'), ("TXT", '"caf\u00e9"'), ("SRV", "0 5 5060 sip.example."),
]


@pytest.mark.parametrize("rtype,data", PLAIN_CASES)
def test_plain_texts_render_as_dnspython(rtype: str, data: str) -> None:
    rdata = dns.rdata.from_text("IN", rtype, data, relativize=False)
    assert _plain_wire(rtype, data) == (rdata.rdtype, rdata.to_wire())


@pytest.mark.parametrize("rtype,data", NOT_PLAIN)
def test_other_texts_are_left_to_dnspython(rtype: str, data: str) -> None:
    assert _plain_wire(rtype, data) is None


def test_random_plain_texts_render_as_dnspython() -> None:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "-_"
    printable = "".join(c for c in map(chr, range(32, 127)) if c not in '"\\')
    for _ in range(2000):
        labels = [("*" if rng.random() < 0.05 else "".join(
            rng.choice(alphabet) for _ in range(rng.randint(1, 20))))
            for _ in range(rng.randint(1, 5))]
        name = ".".join(labels) + "."
        strings = ['"' + "".join(rng.choice(printable) for _ in range(rng.randint(0, 40))) + '"'
                   for _ in range(rng.randint(1, 3))]
        for rtype, data in (("CNAME", name), ("NS", name), ("MX", f"{rng.randint(0, 65535)} {name}"),
                            ("TXT", " ".join(strings))):
            try:
                rdata = dns.rdata.from_text("IN", rtype, data, relativize=False)
            except dns.exception.DNSException:
                assert _plain_wire(rtype, data) is None
                continue
            plain = _plain_wire(rtype, data)
            assert plain is None or plain == (rdata.rdtype, rdata.to_wire()), (rtype, data)
            if rtype != "TXT" or "  " not in data:
                assert plain is not None, (rtype, data)


def test_longest_plain_name_is_dnspython_s_longest() -> None:
    longest = ".".join(["abcdefgh"] * 28) + ".a."  # 254 characters: 255 bytes on the wire
    assert _plain_wire("CNAME", longest) == (dns.rdatatype.CNAME, dns.rdata.from_text(
        "IN", "CNAME", longest).to_wire())
    with pytest.raises(dns.exception.DNSException):
        dns.rdata.from_text("IN", "CNAME", ".".join(["abcdefgh"] * 28) + ".ab.")
