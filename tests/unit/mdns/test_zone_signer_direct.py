"""Signing from wires (addresses and the NSEC chain signed without dnspython objects) makes
exactly the records dnspython's path makes: same RRSIG text and wire, byte for byte."""

from __future__ import annotations

import dataclasses
import random

import dns.rdatatype
import pytest
from dns.rdtypes.util import Bitmap

from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.domain.dnssec import chain
from openkeel_designate.domain.dnssec.sign import SignatureCache, sign_zone
from openkeel_designate.mdns.zone_signer import rrsets_of
from support.dnssec_zone import make_keys

ORIGIN = "Example.ORG."
EPOCH = 1_760_000_000


def records() -> list[ServedRecord]:
    made = [
        ServedRecord(ORIGIN, "SOA", 3600,
                     "ns1.example.org. hostmaster.example.org. 7 3600 600 86400 300"),
        ServedRecord(ORIGIN, "NS", 3600, "ns1.example.org."),
        ServedRecord(ORIGIN, "MX", 300, "10 mail.example.org."),
        ServedRecord("ns1.example.org.", "A", 3600, "192.0.2.1"),
        ServedRecord("WWW.Example.org.", "A", 300, "192.0.2.10"),
        ServedRecord("WWW.Example.org.", "A", 300, "192.0.2.9"),
        ServedRecord("WWW.Example.org.", "A", 300, "192.0.2.10"),  # the same address twice
        ServedRecord("www.example.org.", "AAAA", 300, "2001:db8::10"),
        ServedRecord("*.wild.example.org.", "A", 60, "192.0.2.77"),
        ServedRecord("*.wild.example.org.", "AAAA", 60, "2001:db8::77"),
        ServedRecord("zero.example.org.", "A", 300, "192.0.2.010"),  # dnspython reads it
        ServedRecord("v6.example.org.", "AAAA", 300, "2001:DB8:0::1"),  # not canonical text
        ServedRecord("a.b.c.example.org.", "TXT", 300, '"deep"'),
        ServedRecord("sub.example.org.", "NS", 3600, "ns.sub.example.org."),
        ServedRecord("ns.sub.example.org.", "A", 3600, "192.0.2.53"),
        ServedRecord("secure.example.org.", "NS", 3600, "ns.other.net."),
        ServedRecord("secure.example.org.", "DS", 3600, "12345 13 2 " + "0123456789abcdef" * 4),
        ServedRecord("types.example.org.", "CAA", 300, '0 issue "ca.example"'),
        ServedRecord("types.example.org.", "URI", 300, '10 1 "https://example.org/"'),
    ]
    made += [ServedRecord(f"h{i}.Example.org.", "A", 300, f"10.0.{i >> 8}.{i & 255}")
             for i in range(300)]
    return made


def without_wires(rrsets):
    return [dataclasses.replace(r, wires=None) for r in rrsets]


def signed(rrsets, keys, nsec3):
    made = sign_zone(ORIGIN, rrsets, keys, nsec3, SignatureCache(), EPOCH)
    return [(r.name, r.rdtype, r.ttl, r.data, r.wire) for r in made.records], made.fresh_signatures


@pytest.mark.parametrize("algorithm", ["ECDSAP256SHA256", "ED25519"])
@pytest.mark.parametrize("nsec3", [False, True])
def test_direct_signing_equals_dnspythons(algorithm, nsec3, monkeypatch):
    keys = make_keys(algorithm)
    rrsets = rrsets_of(records())
    assert sum(r.wires is not None for r in rrsets) > 300  # the direct path is taken
    direct, direct_fresh = signed(rrsets, keys, nsec3)
    monkeypatch.setattr(chain, "_nsec_wire", lambda following, kinds: None)
    chain._nsec_rdata.cache_clear()
    through_dnspython, fresh = signed(without_wires(rrsets), keys, nsec3)
    chain._nsec_rdata.cache_clear()
    assert direct_fresh == fresh
    assert direct == through_dnspython


def test_nsec_rdata_wire_equals_dnspythons():
    rrsets = rrsets_of(records())
    layout = chain.layout(chain.name_key(ORIGIN), rrsets)
    for nsec in chain.nsec_chain(layout.types, 300):
        assert nsec.wires is not None
        assert nsec.wires == tuple(rdata.to_wire() for rdata in nsec.build())
        assert nsec.wires == tuple(rdata.to_digestable() for rdata in nsec.build())


def test_type_bitmap_equals_dnspythons():
    chooser = random.Random(15)
    everyday = [1, 2, 5, 6, 15, 16, 28, 33, 43, 46, 47, 48, 256, 257, 32768, 65280]
    for _ in range(200):
        kinds = set(chooser.sample(everyday, chooser.randint(1, 8)))
        kinds |= {chooser.randint(1, 65535) for _ in range(chooser.randint(0, 3))}
        kinds.discard(0)
        expected = Bitmap.from_rdtypes(sorted(kinds))
        assert chain.bitmap_wire(kinds) == b"".join(
            bytes((window, len(bits))) + bits for window, bits in expected.windows)
    assert chain.bitmap_wire({dns.rdatatype.A, dns.rdatatype.NSEC, dns.rdatatype.RRSIG}) \
        == bytes((0, 6, 0x40, 0, 0, 0, 0, 0x03))
