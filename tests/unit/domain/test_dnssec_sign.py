"""The zone signer: every authoritative RRset validates, glue is left alone, the chain is
closed, and a second version of the zone re-uses the signatures of what did not change."""

from __future__ import annotations

import time

import dns.dnssec
import dns.name
import dns.rdatatype
import dns.rrset
import dns.zone
import pytest

from openkeel_designate.domain.dnssec import keys as dkeys
from openkeel_designate.domain.dnssec.sign import SignatureCache, sign_zone

ORIGIN = dns.name.from_text("example.org.")
ZONE_TEXT = """
@ 3600 IN SOA ns1.example.org. hostmaster.example.org. 1 3600 600 86400 300
@ 3600 IN NS ns1.example.org.
ns1 3600 IN A 192.0.2.1
www 300 IN A 192.0.2.10
www 300 IN AAAA 2001:db8::10
a.b.c 300 IN TXT "deep"
sub 3600 IN NS ns.sub.example.org.
ns.sub 3600 IN A 192.0.2.53
secure 3600 IN NS ns.other.net.
secure 3600 IN DS 12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
"""


def zone_rrsets(text: str = ZONE_TEXT) -> list[dns.rrset.RRset]:
    zone = dns.zone.from_text(text, ORIGIN, relativize=False)
    return [dns.rrset.from_rdata_list(name, rds.ttl, list(rds))
            for name, rds in zone.iterate_rdatasets()]


def make_key(algorithm: str) -> dkeys.SigningKey:
    private = dkeys.generate(algorithm)
    return dkeys.SigningKey(private, dkeys.dnskey_of(private, algorithm))


def by_type(rrsets, rdtype, covers=dns.rdatatype.NONE):
    return {r.name: r for r in rrsets if r.rdtype == rdtype and r.covers == covers}


@pytest.mark.parametrize("algorithm", ["ECDSAP256SHA256", "ED25519"])
@pytest.mark.parametrize("nsec3", [False, True])
def test_every_authoritative_rrset_validates(algorithm, nsec3):
    key = make_key(algorithm)
    now = int(time.time())
    signed = sign_zone(ORIGIN, zone_rrsets(), [key], nsec3, SignatureCache(), now).rrsets
    dnskeys = by_type(signed, dns.rdatatype.DNSKEY)[ORIGIN]
    keyring = {ORIGIN: dnskeys}
    rrsigs = [r for r in signed if r.rdtype == dns.rdatatype.RRSIG]
    covered = {(r.name, r.covers) for r in rrsigs}
    for rrset in signed:
        if rrset.rdtype == dns.rdatatype.RRSIG:
            continue
        sig = next((s for s in rrsigs if s.name == rrset.name and s.covers == rrset.rdtype), None)
        glue = rrset.name == dns.name.from_text("ns.sub.example.org.")
        at_cut = rrset.name in {dns.name.from_text("sub.example.org."),
                                dns.name.from_text("secure.example.org.")}
        if glue or (at_cut and rrset.rdtype == dns.rdatatype.NS):
            assert sig is None, f"{rrset.name} {rrset.rdtype} must not be signed"
            continue
        assert sig is not None, f"{rrset.name} {dns.rdatatype.to_text(rrset.rdtype)} unsigned"
        dns.dnssec.validate(rrset, sig, keyring, now=now)
    assert (ORIGIN, dns.rdatatype.CDS) in covered and (ORIGIN, dns.rdatatype.CDNSKEY) in covered
    cds = by_type(signed, dns.rdatatype.CDS)[ORIGIN][0]
    assert cds.key_tag == key.key_tag and cds.digest_type == 2


def test_nsec_chain_skips_glue_and_closes():
    signed = sign_zone(ORIGIN, zone_rrsets(), [make_key("ED25519")], False, SignatureCache(),
                       int(time.time())).rrsets
    nsecs = by_type(signed, dns.rdatatype.NSEC)
    assert dns.name.from_text("ns.sub.example.org.") not in nsecs
    assert dns.name.from_text("b.c.example.org.") not in nsecs  # NSEC has no empty non-terminals
    ordered = sorted(nsecs)
    for name, following in zip(ordered, ordered[1:] + ordered[:1]):
        assert nsecs[name][0].next == following
    cut = nsecs[dns.name.from_text("sub.example.org.")][0]
    assert cut.to_text().endswith(" NS RRSIG NSEC")


def test_nsec3_uses_rfc9276_parameters_and_covers_empty_non_terminals():
    signed = sign_zone(ORIGIN, zone_rrsets(), [make_key("ED25519")], True, SignatureCache(),
                       int(time.time())).rrsets
    param = by_type(signed, dns.rdatatype.NSEC3PARAM)[ORIGIN][0]
    assert (param.algorithm, param.flags, param.iterations, param.salt) == (1, 0, 0, b"")
    owners = {r.name.labels[0].decode().upper() for r in signed if r.rdtype == dns.rdatatype.NSEC3}
    for name in ("b.c.example.org.", "c.example.org.", "a.b.c.example.org.", "example.org."):
        assert dns.dnssec.nsec3_hash(name, None, 0, 1) in owners
    assert dns.dnssec.nsec3_hash("ns.sub.example.org.", None, 0, 1) not in owners
    for rrset in signed:
        if rrset.rdtype == dns.rdatatype.NSEC3:
            assert rrset[0].flags == 0  # no opt-out


def test_a_change_re_signs_only_what_it_touches():
    key = make_key("ECDSAP256SHA256")
    cache = SignatureCache()
    now = int(time.time())
    first = sign_zone(ORIGIN, zone_rrsets(), [key], False, cache, now)
    changed = ZONE_TEXT.replace(" 1 3600 600", " 2 3600 600").replace("192.0.2.10", "192.0.2.11")
    second = sign_zone(ORIGIN, zone_rrsets(changed), [key], False, cache, now + 5)
    # the SOA and www's A are new; the NSEC chain did not change (no name came or went)
    assert second.fresh_signatures == 2
    before = {(r.name, r.covers): r for r in first.rrsets if r.rdtype == dns.rdatatype.RRSIG}
    after = {(r.name, r.covers): r for r in second.rrsets if r.rdtype == dns.rdatatype.RRSIG}
    www = dns.name.from_text("www.example.org.")
    assert after[(www, dns.rdatatype.AAAA)] == before[(www, dns.rdatatype.AAAA)]
    assert after[(www, dns.rdatatype.A)] != before[(www, dns.rdatatype.A)]


def test_a_new_name_re_signs_its_nsec_neighbour():
    key = make_key("ED25519")
    cache = SignatureCache()
    now = int(time.time())
    sign_zone(ORIGIN, zone_rrsets(), [key], False, cache, now)
    added = ZONE_TEXT.replace(" 1 3600 600", " 2 3600 600") + "x 300 IN A 192.0.2.99\n"
    second = sign_zone(ORIGIN, zone_rrsets(added), [key], False, cache, now + 5)
    # SOA, x's A, x's NSEC, and the NSEC of the name before x (its "next" changed)
    assert second.fresh_signatures == 4


def test_sealed_private_key_opens_only_for_its_zone():
    kek = dkeys.new_kek()
    private = dkeys.generate("ED25519")
    sealed = dkeys.seal(kek, private, "zone-1")
    assert "PRIVATE" not in sealed
    opened = dkeys.unseal(kek, sealed, "zone-1")
    assert dkeys.dnskey_of(opened, "ED25519") == dkeys.dnskey_of(private, "ED25519")
    with pytest.raises(Exception):
        dkeys.unseal(kek, sealed, "zone-2")
