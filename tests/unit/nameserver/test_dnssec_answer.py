"""The DNSSEC part of the nameserver's answers, section by section, on zones signed by BIND.

Signing runs BIND's tools once per module (the one I/O of these tests: a signer we did not write
is the point); the answers are then computed in memory by ``answer()`` and checked against what
RFC 4035 §3.1 and RFC 5155 §7.2 require, the NSEC3 proofs by hashing the names themselves.
"""

from __future__ import annotations

import base64

import dns.dnssec
import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdatatype
import dns.zone
import pytest

from openkeel_designate.nameserver.answer import answer
from openkeel_designate.nameserver.dnssec import Nsec3Chain, NsecChain
from openkeel_designate.nameserver.zones import ServedZone
from support import signed_zone
from support.signed_zone import EXAMPLE_BODY, sign

pytestmark = pytest.mark.skipif(not signed_zone.available(),
                                reason="BIND's dnssec-keygen and dnssec-signzone needed")

N = dns.name.from_text
NSEC, NSEC3, RRSIG = dns.rdatatype.NSEC, dns.rdatatype.NSEC3, dns.rdatatype.RRSIG
DNSSEC_TYPES = {NSEC, NSEC3, RRSIG, dns.rdatatype.DNSKEY, dns.rdatatype.DS,
                dns.rdatatype.NSEC3PARAM}
QUESTIONS = [("www.example.", "A"), ("alias.example.", "A"), ("nothing.example.", "A"),
             ("a.b.nothing.example.", "TXT"), ("www.example.", "MX"), ("deep.example.", "A"),
             ("x.wild.example.", "A"), ("x.wild.example.", "MX"), ("host.secure.example.", "A"),
             ("host.insecure.example.", "A"), ("secure.example.", "DS"),
             ("dangling.example.", "A"), ("example.", "SOA")]


@pytest.fixture(scope="module")
def nsec(tmp_path_factory) -> ServedZone:
    return ServedZone.of(sign(tmp_path_factory.mktemp("nsec"), "example.", EXAMPLE_BODY).zone)


@pytest.fixture(scope="module")
def nsec3(tmp_path_factory) -> ServedZone:
    signed = sign(tmp_path_factory.mktemp("nsec3"), "example.", EXAMPLE_BODY, nsec3=True,
                  algorithm="ED25519")
    return ServedZone.of(signed.zone)


def ask(served: ServedZone, name: str, rdtype: str, dnssec: bool = True) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype, want_dnssec=dnssec)
    response = dns.message.make_response(query)
    answer(response, served, N(name), dns.rdatatype.from_text(rdtype), dnssec)
    return response


def owners(section, rdtype: int) -> list[dns.name.Name]:
    return [rrset.name for rrset in section if rrset.rdtype == rdtype]


def covers(owner: dns.name.Name, following: dns.name.Name, name: dns.name.Name) -> bool:
    """``owner`` < ``name`` < ``following`` in canonical order, or past the last owner."""
    return owner < name < following or (following <= owner and (name > owner or name < following))


def digest(served: ServedZone, name: dns.name.Name) -> dns.name.Name:
    text = dns.dnssec.nsec3_hash(name, None, 0, 1).lower()
    return dns.name.Name((text.encode(),)).concatenate(served.origin)


def nsec3_next(served: ServedZone, rrset) -> dns.name.Name:
    text = base64.b32hexencode(rrset[0].next).decode().lower()
    return dns.name.Name((text.encode(),)).concatenate(served.origin)


def test_the_chain_is_indexed_once_per_zone(nsec, nsec3) -> None:
    assert isinstance(nsec.chain, NsecChain) and isinstance(nsec3.chain, Nsec3Chain)
    assert list(nsec.chain.owners) == sorted(nsec.chain.owners)
    assert nsec3.hidden and not nsec3.hidden & nsec3.names  # NSEC3 owners are no names
    unsigned = dns.zone.from_text(f"$ORIGIN example.\n$TTL 300\n{EXAMPLE_BODY}",
                                  relativize=False)
    assert ServedZone.of(unsigned).chain is None


@pytest.mark.parametrize("zone", ["nsec", "nsec3"])
def test_every_answer_and_authority_rrset_comes_signed(zone, request) -> None:
    served = request.getfixturevalue(zone)
    for name, rdtype in QUESTIONS:
        response = ask(served, name, rdtype)
        for section in (response.answer, response.authority):
            signed = {(r.name, r.covers) for r in section if r.rdtype == RRSIG}
            unsigned = [(r.name, r.rdtype) for r in section if r.rdtype != RRSIG
                        and (r.name, r.rdtype) not in signed]
            referral_ns = [(r.name, r.rdtype) for r in response.authority
                           if r.rdtype == dns.rdatatype.NS and not response.flags & dns.flags.AA]
            assert unsigned == [] or unsigned == referral_ns, (name, rdtype)


@pytest.mark.parametrize("zone", ["nsec", "nsec3"])
def test_without_do_nothing_of_dnssec_is_added(zone, request) -> None:
    served = request.getfixturevalue(zone)
    for name, rdtype in QUESTIONS:
        response = ask(served, name, rdtype, dnssec=False)
        sections = response.answer + response.authority + response.additional
        assert not {r.rdtype for r in sections} & DNSSEC_TYPES - {dns.rdatatype.DS}, name
    assert owners(ask(served, "secure.example.", "DS", False).answer, dns.rdatatype.DS)
    assert owners(ask(served, "example.", "DNSKEY", False).answer, dns.rdatatype.DNSKEY)


def test_nsec_nxdomain_covers_the_name_and_the_wildcard(nsec) -> None:
    response = ask(nsec, "nothing.example.", "A")
    assert response.rcode() == dns.rcode.NXDOMAIN
    proofs = [r for r in response.authority if r.rdtype == NSEC]
    for name in (N("nothing.example."), N("*.example.")):
        assert any(covers(r.name, r[0].next, name) for r in proofs), name


def test_nsec_nodata_matches_the_name_and_lacks_the_type(nsec) -> None:
    response = ask(nsec, "www.example.", "MX")
    [proof] = [r for r in response.authority if r.rdtype == NSEC]
    assert proof.name == N("www.example.")
    assert response.rcode() == dns.rcode.NOERROR and response.answer == []


def test_nsec_empty_non_terminal_is_covered_by_a_descendant(nsec) -> None:
    [proof] = [r for r in ask(nsec, "deep.example.", "A").authority if r.rdtype == NSEC]
    assert proof.name < N("deep.example.") and proof[0].next.is_subdomain(N("deep.example."))


@pytest.mark.parametrize("zone", ["nsec", "nsec3"])
def test_wildcard_answer_is_signed_by_the_wildcard_and_proves_no_closer_name(zone,
                                                                             request) -> None:
    served = request.getfixturevalue(zone)
    response = ask(served, "a.b.wild.example.", "A")
    [signature] = [r for r in response.answer if r.rdtype == RRSIG]
    assert signature.name == N("a.b.wild.example.") and signature[0].labels == 2
    assert owners(response.authority, served.chain.record_type)


def test_nsec3_nxdomain_is_a_closest_encloser_proof(nsec3) -> None:
    response = ask(nsec3, "a.b.nothing.example.", "TXT")
    assert response.rcode() == dns.rcode.NXDOMAIN
    proofs = [r for r in response.authority if r.rdtype == NSEC3]
    assert len(proofs) == 3
    assert digest(nsec3, N("example.")) in [r.name for r in proofs]  # closest encloser
    for name in (N("nothing.example."), N("*.example.")):  # next closer, wildcard
        hashed = digest(nsec3, name)
        assert any(covers(r.name, nsec3_next(nsec3, r), hashed) for r in proofs), name


def test_nsec3_nodata_matches_the_name(nsec3) -> None:
    for name in ("www.example.", "deep.example.", "WwW.ExAmPlE."):  # case: hashed folded
        [proof] = [r for r in ask(nsec3, name, "MX").authority if r.rdtype == NSEC3]
        assert proof.name == digest(nsec3, N(name.lower()))


def test_nsec3_owner_names_do_not_exist_for_queries(nsec3) -> None:
    hashed = next(iter(nsec3.hidden))
    assert ask(nsec3, hashed.to_text(), "NSEC3").rcode() == dns.rcode.NXDOMAIN


def test_referrals_carry_ds_or_the_proof_of_none(nsec, nsec3) -> None:
    secure = ask(nsec3, "host.secure.example.", "A")
    assert owners(secure.authority, dns.rdatatype.DS) == [N("secure.example.")]
    insecure = ask(nsec, "host.insecure.example.", "A")
    assert owners(insecure.authority, NSEC) == [N("insecure.example.")]
    assert owners(insecure.authority, dns.rdatatype.DS) == []


def test_rrsig_and_any_queries_return_each_signature_once(nsec) -> None:
    rrsigs = ask(nsec, "www.example.", "RRSIG", dnssec=False).answer
    assert {r.covers for r in rrsigs} == {dns.rdatatype.A, dns.rdatatype.AAAA, NSEC}
    anything = ask(nsec, "www.example.", "ANY").answer
    keys = [(r.rdtype, r.covers) for r in anything]
    assert len(keys) == len(set(keys))


def test_an_unsigned_zone_answers_the_same_with_do() -> None:
    unsigned = ServedZone.of(dns.zone.from_text(f"$ORIGIN example.\n$TTL 300\n{EXAMPLE_BODY}",
                                                relativize=False))
    for name, rdtype in QUESTIONS:
        plain, asked = ask(unsigned, name, rdtype, False), ask(unsigned, name, rdtype)
        assert (plain.rcode(), plain.flags, plain.answer, plain.authority, plain.additional) == \
            (asked.rcode(), asked.flags, asked.answer, asked.authority, asked.additional), name


@pytest.mark.parametrize("zone", ["nsec", "nsec3"])
def test_a_cname_to_nothing_proves_the_target_absent(zone, request) -> None:
    """NXDOMAIN (RFC 6604: the rcode of the chain's last name) with the CNAME and the SOA, as
    BIND and PowerDNS answer; with DO the target's denial travels with its signed SOA, so a
    validator can check the end of the chain."""
    served = request.getfixturevalue(zone)
    plain = ask(served, "dangling.example.", "A", dnssec=False)
    assert plain.rcode() == dns.rcode.NXDOMAIN
    assert owners(plain.answer, dns.rdatatype.CNAME) == [N("dangling.example.")]
    assert owners(plain.authority, dns.rdatatype.SOA) == [N("example.")]
    response = ask(served, "dangling.example.", "A")
    assert response.rcode() == dns.rcode.NXDOMAIN
    assert owners(response.answer, dns.rdatatype.CNAME) == [N("dangling.example.")]
    assert owners(response.authority, dns.rdatatype.SOA) == [N("example.")]
    assert owners(response.authority, served.chain.record_type)


def test_nsec3_with_salt_and_iterations_hashes_as_the_signer(tmp_path) -> None:
    served = ServedZone.of(sign(tmp_path, "example.", EXAMPLE_BODY, nsec3=True,
                                salt="AABBCCDD", iterations=3).zone)
    [proof] = [r for r in ask(served, "www.example.", "MX").authority if r.rdtype == NSEC3]
    text = dns.dnssec.nsec3_hash(N("www.example."), "AABBCCDD", 3, 1).lower()
    assert proof.name == dns.name.Name((text.encode(),)).concatenate(served.origin)
    assert ask(served, "nothing.example.", "A").rcode() == dns.rcode.NXDOMAIN
