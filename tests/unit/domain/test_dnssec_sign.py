"""The zone signer: every authoritative RRset validates, glue is left alone, the chain is
closed, and a second version of the zone re-uses the signatures of what did not change."""

from __future__ import annotations

import time

import dns.dnssec
import dns.name
import dns.rdatatype
import dns.rrset
import pytest

from openkeel_designate.domain.dnssec import keys as dkeys
from openkeel_designate.domain.dnssec.chain import name_key
from openkeel_designate.domain.dnssec.sign import SignatureCache, sign_zone
from openkeel_designate.domain.dnssec.validity import BACKDATE, VALIDITY, signing_epoch
from support.dnssec_zone import as_rrsets, make_keys, rrsets_of_text

ORIGIN = "example.org."
APEX = dns.name.from_text(ORIGIN)
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


def signed_rrsets(keys, nsec3: bool, text: str = ZONE_TEXT, cache=None, now=None):
    rrsets = rrsets_of_text(text, ORIGIN)
    cache = SignatureCache() if cache is None else cache
    signed = sign_zone(ORIGIN, rrsets, keys, nsec3, cache, now or int(time.time()))
    return as_rrsets(rrsets, signed.records), signed


def by_type(rrsets, rdtype, covers=dns.rdatatype.NONE):
    return {r.name: r for r in rrsets if r.rdtype == rdtype and r.covers == covers}


def n(text: str) -> dns.name.Name:
    return dns.name.from_text(text)


@pytest.mark.parametrize("algorithm", ["ECDSAP256SHA256", "ED25519"])
@pytest.mark.parametrize("nsec3", [False, True])
def test_every_authoritative_rrset_validates(algorithm, nsec3):
    keys = make_keys(algorithm)
    now = int(time.time())
    signed, _ = signed_rrsets(keys, nsec3, now=now)
    keyring = {APEX: by_type(signed, dns.rdatatype.DNSKEY)[APEX]}
    rrsigs = [r for r in signed if r.rdtype == dns.rdatatype.RRSIG]
    for rrset in signed:
        if rrset.rdtype == dns.rdatatype.RRSIG:
            continue
        sig = next((s for s in rrsigs if s.name == rrset.name and s.covers == rrset.rdtype), None)
        glue = rrset.name == n("ns.sub.example.org.")
        at_cut = rrset.name in {n("sub.example.org."), n("secure.example.org.")}
        if glue or (at_cut and rrset.rdtype == dns.rdatatype.NS):
            assert sig is None, f"{rrset.name} {rrset.rdtype} must not be signed"
            continue
        assert sig is not None, f"{rrset.name} {dns.rdatatype.to_text(rrset.rdtype)} unsigned"
        dns.dnssec.validate(rrset, sig, keyring, now=now)
    dnskey_sigs = by_type(signed, dns.rdatatype.RRSIG, dns.rdatatype.DNSKEY)[APEX]
    assert {s.key_tag for s in dnskey_sigs} == {keys[0].key_tag}  # the KSK signs the keys
    www_sig = by_type(signed, dns.rdatatype.RRSIG, dns.rdatatype.A)[n("www.example.org.")]
    assert {s.key_tag for s in www_sig} == {keys[1].key_tag}  # the ZSK the rest
    cds = by_type(signed, dns.rdatatype.CDS)[APEX]
    assert [r.key_tag for r in cds] == [keys[0].key_tag] and cds[0].digest_type == 2


def test_a_single_sep_key_signs_everything():
    key = make_keys("ED25519", (dkeys.SEP_FLAGS,))
    signed, _ = signed_rrsets(key, False)
    www_sig = by_type(signed, dns.rdatatype.RRSIG, dns.rdatatype.A)[n("www.example.org.")]
    assert {s.key_tag for s in www_sig} == {key[0].key_tag}


def test_nsec_chain_skips_glue_and_closes():
    signed, _ = signed_rrsets(make_keys("ED25519"), False)
    nsecs = by_type(signed, dns.rdatatype.NSEC)
    assert n("ns.sub.example.org.") not in nsecs
    assert n("b.c.example.org.") not in nsecs  # NSEC has no empty non-terminals
    ordered = sorted(nsecs)
    for name, following in zip(ordered, ordered[1:] + ordered[:1]):
        assert nsecs[name][0].next == following
    assert nsecs[n("sub.example.org.")][0].to_text().endswith(" NS RRSIG NSEC")


def test_nsec3_uses_rfc9276_parameters_and_covers_empty_non_terminals():
    signed, _ = signed_rrsets(make_keys("ED25519"), True)
    param = by_type(signed, dns.rdatatype.NSEC3PARAM)[APEX][0]
    assert (param.algorithm, param.flags, param.iterations, param.salt) == (1, 0, 0, b"")
    nsec3s = [r for r in signed if r.rdtype == dns.rdatatype.NSEC3]
    owners = {r.name.labels[0].decode().upper() for r in nsec3s}
    for name in ("b.c.example.org.", "c.example.org.", "a.b.c.example.org.", "example.org."):
        assert dns.dnssec.nsec3_hash(name, None, 0, 1) in owners
    assert dns.dnssec.nsec3_hash("ns.sub.example.org.", None, 0, 1) not in owners
    assert all(r[0].flags == 0 for r in nsec3s)  # no opt-out


def test_canonical_order_of_name_keys():
    names = ["example.org.", "a.example.org.", "yljkjljk.a.example.org.", "Z.a.example.org.",
             "zABC.a.EXAMPLE.org.", "z.example.org.", "\\001.z.example.org.",
             "*.z.example.org.", "\\200.z.example.org."]
    assert sorted(names, key=name_key) == [t for t in sorted(names, key=n)]


def test_a_change_re_signs_only_what_it_touches():
    keys = make_keys("ECDSAP256SHA256")
    cache = SignatureCache()
    now = int(time.time())
    first, _ = signed_rrsets(keys, False, cache=cache, now=now)
    changed = ZONE_TEXT.replace(" 1 3600 600", " 2 3600 600").replace("192.0.2.10", "192.0.2.11")
    second, signed = signed_rrsets(keys, False, changed, cache, now)  # same epoch
    assert signed.fresh_signatures == 2  # the SOA and www's A; no name came or went
    before = {(r.name, r.covers): r for r in first if r.rdtype == dns.rdatatype.RRSIG}
    after = {(r.name, r.covers): r for r in second if r.rdtype == dns.rdatatype.RRSIG}
    www = n("www.example.org.")
    assert after[(www, dns.rdatatype.AAAA)] == before[(www, dns.rdatatype.AAAA)]
    assert after[(www, dns.rdatatype.A)] != before[(www, dns.rdatatype.A)]


@pytest.mark.parametrize("nsec3", [False, True])
def test_a_new_name_re_signs_its_chain_neighbour(nsec3):
    keys = make_keys("ED25519")
    cache = SignatureCache()
    now = int(time.time())
    signed_rrsets(keys, nsec3, cache=cache, now=now)
    added = ZONE_TEXT.replace(" 1 3600 600", " 2 3600 600") + "x 300 IN A 192.0.2.99\n"
    _, signed = signed_rrsets(keys, nsec3, added, cache, now)
    # SOA, x's A, x's NSEC/NSEC3, and that of the name before x in the chain
    assert signed.fresh_signatures == 4


def test_a_new_epoch_renews_every_signature_from_it():
    keys = make_keys("ED25519")
    cache = SignatureCache()
    epoch = int(time.time())
    _, first = signed_rrsets(keys, False, cache=cache, now=epoch)
    later_rrsets, later = signed_rrsets(keys, False, cache=cache, now=epoch + 3 * 86400)
    assert later.fresh_signatures == first.fresh_signatures
    for rrset in by_type(later_rrsets, dns.rdatatype.RRSIG, dns.rdatatype.SOA).values():
        assert {(r.inception, r.expiration) for r in rrset} == {
            (epoch + 3 * 86400 - BACKDATE, epoch + 3 * 86400 + VALIDITY)}


def test_the_stored_epoch_is_used_until_half_the_validity_is_gone():
    day = 86400
    stored = 1_700_000_123
    assert signing_epoch(stored, stored + 6 * day) == stored
    assert signing_epoch(stored, stored + 7 * day) == stored
    fallback = signing_epoch(stored, stored + 8 * day)  # no refresh came: the day's start
    assert fallback % day == 0 and stored + 7 * day < fallback <= stored + 8 * day
    assert signing_epoch(None, stored) == stored - stored % day


def records_of(signed):
    return [(r.name, r.rdtype, r.ttl, r.data, r.wire) for r in signed.records]


@pytest.mark.parametrize("algorithm", ["ECDSAP256SHA256", "ED25519"])
@pytest.mark.parametrize("nsec3", [False, True])
def test_two_processes_sign_a_zone_identically(algorithm, nsec3):
    """Two caches are two mdns processes (or one before and after a restart): same RRsets,
    keys and epoch give byte-identical records, ECDSA included (deterministic nonces)."""
    keys = make_keys(algorithm)
    epoch = 1_790_000_000
    rrsets = rrsets_of_text(ZONE_TEXT, ORIGIN)
    one = sign_zone(ORIGIN, rrsets, keys, nsec3, SignatureCache(), epoch)
    other = sign_zone(ORIGIN, rrsets_of_text(ZONE_TEXT, ORIGIN), keys, nsec3, SignatureCache(),
                      epoch)
    assert records_of(one) == records_of(other)
    assert one.fresh_signatures == other.fresh_signatures > 0


@pytest.mark.parametrize("nsec3", [False, True])
def test_after_one_change_only_its_signature_the_soa_and_the_chain_neighbours_differ(nsec3):
    keys = make_keys("ECDSAP256SHA256")
    epoch = 1_790_000_000
    one, other = SignatureCache(), SignatureCache()
    before = set(records_of(sign_zone(ORIGIN, rrsets_of_text(ZONE_TEXT, ORIGIN), keys, nsec3,
                                      one, epoch)))
    changed = (ZONE_TEXT.replace(" 1 3600 600", " 2 3600 600")
               + "x 300 IN A 192.0.2.99\n")
    # the new version signed by the other process, which never saw the first
    after = set(records_of(sign_zone(ORIGIN, rrsets_of_text(changed, ORIGIN), keys, nsec3,
                                     other, epoch)))
    differ = {(name, rdtype, covers_of(rdtype, data)) for name, rdtype, _, data, _
              in before ^ after}
    x = "x.example.org."
    if nsec3:
        hashed = {name for name, rdtype, _ in differ if rdtype == dns.rdatatype.NSEC3}
        # x's NSEC3 came, the one before it in hash order changed its next hash
        assert len(hashed) == 2
        expected = {("example.org.", dns.rdatatype.RRSIG, dns.rdatatype.SOA),
                    (x, dns.rdatatype.RRSIG, dns.rdatatype.A)}
        expected |= {(h, t, c) for h in hashed for t, c in (
            (dns.rdatatype.NSEC3, None), (dns.rdatatype.RRSIG, dns.rdatatype.NSEC3))}
    else:
        # x sorts after www's ancestors: the NSEC before it is www's (www < x)
        expected = {("example.org.", dns.rdatatype.RRSIG, dns.rdatatype.SOA),
                    (x, dns.rdatatype.RRSIG, dns.rdatatype.A),
                    (x, dns.rdatatype.NSEC, None), (x, dns.rdatatype.RRSIG, dns.rdatatype.NSEC),
                    ("www.example.org.", dns.rdatatype.NSEC, None),
                    ("www.example.org.", dns.rdatatype.RRSIG, dns.rdatatype.NSEC)}
    assert differ == expected


def covers_of(rdtype, data):
    if rdtype != dns.rdatatype.RRSIG:
        return None
    return dns.rdatatype.from_text(data.split()[0])


def test_sealed_private_key_opens_only_for_its_zone():
    kek = dkeys.new_kek()
    private = dkeys.generate("ED25519")
    sealed = dkeys.seal(kek, private, "zone-1")
    assert "PRIVATE" not in sealed
    opened = dkeys.unseal(kek, sealed, "zone-1")
    assert dkeys.dnskey_of(opened, "ED25519") == dkeys.dnskey_of(private, "ED25519")
    with pytest.raises(Exception):
        dkeys.unseal(kek, sealed, "zone-2")
    with pytest.raises(ValueError):
        dkeys.parse_kek("c2hvcnQ=")


def test_during_a_ksk_rollover_both_ksks_sign_the_keys_and_cds_names_both():
    """Double signature of the DNSKEY set: a validator whose DS (or anchor) is either KSK's
    finds a signature by that KSK; CDS/CDNSKEY tell the parent about both."""
    keys = make_keys("ECDSAP256SHA256", (dkeys.SEP_FLAGS, dkeys.SEP_FLAGS, dkeys.ZONE_FLAGS))
    now = int(time.time())
    signed, _ = signed_rrsets(keys, False, now=now)
    dnskeys = by_type(signed, dns.rdatatype.DNSKEY)[APEX]
    sigs = by_type(signed, dns.rdatatype.RRSIG, dns.rdatatype.DNSKEY)[APEX]
    assert {s.key_tag for s in sigs} == {keys[0].key_tag, keys[1].key_tag}
    for ksk in keys[:2]:  # each KSK alone is enough to validate the DNSKEY set
        only = dns.rrset.from_rdata(APEX, 3600, ksk.dnskey)
        mine = [s for s in sigs if s.key_tag == ksk.key_tag]
        dns.dnssec.validate(dnskeys, dns.rrset.from_rdata_list(APEX, 3600, mine), {APEX: only},
                            now=now)
    www_sig = by_type(signed, dns.rdatatype.RRSIG, dns.rdatatype.A)[n("www.example.org.")]
    assert {s.key_tag for s in www_sig} == {keys[2].key_tag}  # the KSKs do not sign data
    assert {r.key_tag for r in by_type(signed, dns.rdatatype.CDS)[APEX]} == {
        keys[0].key_tag, keys[1].key_tag}
    assert len(by_type(signed, dns.rdatatype.CDNSKEY)[APEX]) == 2


def test_going_insecure_publishes_the_rfc8078_delete_records_and_stays_signed():
    keys = make_keys("ED25519")
    now = int(time.time())
    rrsets = rrsets_of_text(ZONE_TEXT, ORIGIN)
    made = sign_zone(ORIGIN, rrsets, keys, False, SignatureCache(), now, delete_ds=True)
    signed = as_rrsets(rrsets, made.records)
    assert [r.to_text() for r in by_type(signed, dns.rdatatype.CDS)[APEX]] == ["0 0 0 00"]
    assert [r.to_text() for r in by_type(signed, dns.rdatatype.CDNSKEY)[APEX]] == ["0 3 0 AA=="]
    keyring = {APEX: by_type(signed, dns.rdatatype.DNSKEY)[APEX]}
    for rdtype in (dns.rdatatype.CDS, dns.rdatatype.CDNSKEY, dns.rdatatype.DNSKEY):
        sig = by_type(signed, dns.rdatatype.RRSIG, rdtype)[APEX]
        assert {s.key_tag for s in sig} == {keys[0].key_tag}
        dns.dnssec.validate(by_type(signed, rdtype)[APEX], sig, keyring, now=now)
    www = n("www.example.org.")
    dns.dnssec.validate(by_type(signed, dns.rdatatype.A)[www],
                        by_type(signed, dns.rdatatype.RRSIG, dns.rdatatype.A)[www], keyring,
                        now=now)


@pytest.mark.parametrize("nsec3", [False, True])
def test_a_secure_delegation_signs_its_ds_not_its_ns_and_lists_ds_in_the_bitmap(nsec3):
    """RFC 4035 §2.2/§2.3: the DS at a cut is the parent's data (signed), the NS the child's
    (unsigned); the denial record there names NS and DS (so a DS query gets no false NODATA),
    with RRSIG only where something is signed (an unsigned cut's NS is not)."""
    keys = make_keys("ED25519")
    now = int(time.time())
    signed, _ = signed_rrsets(keys, nsec3, now=now)
    secure, insecure = n("secure.example.org."), n("sub.example.org.")
    sigs = {(r.name, r.covers) for r in signed if r.rdtype == dns.rdatatype.RRSIG}
    assert (secure, dns.rdatatype.DS) in sigs
    assert (secure, dns.rdatatype.NS) not in sigs and (insecure, dns.rdatatype.NS) not in sigs
    ds = by_type(signed, dns.rdatatype.DS)[secure]
    ds_sig = by_type(signed, dns.rdatatype.RRSIG, dns.rdatatype.DS)[secure]
    dns.dnssec.validate(ds, ds_sig, {APEX: by_type(signed, dns.rdatatype.DNSKEY)[APEX]}, now=now)
    types = _denial_types(signed, nsec3)
    assert types[secure] == {"NS", "DS", "RRSIG"} | ({"NSEC"} if not nsec3 else set())
    assert types[insecure] == {"NS"} | ({"NSEC", "RRSIG"} if not nsec3 else set())


def _denial_types(signed, nsec3: bool) -> dict[dns.name.Name, set[str]]:
    """The types each name's NSEC (or NSEC3, found by hash) lists, by owner name."""
    if not nsec3:
        return {name: set(rrset[0].to_text().split()[1:])
                for name, rrset in by_type(signed, dns.rdatatype.NSEC).items()}
    by_hash = {r.name.labels[0].decode().upper(): r[0] for r in signed
               if r.rdtype == dns.rdatatype.NSEC3}
    found = {}
    for text in ("secure.example.org.", "sub.example.org."):
        rdata = by_hash[dns.dnssec.nsec3_hash(text, None, 0, 1)]
        found[n(text)] = set(rdata.to_text().split()[5:])
    return found
