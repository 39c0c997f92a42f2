"""Authenticated denial: which names a zone holds with authority, and their NSEC or NSEC3 chain.

Names below a zone cut (glue) are not the zone's data (RFC 4035 §2.2): they are left out of the
chain and never signed.  A delegation point is in the chain with its NS (and DS) types.  NSEC3
uses RFC 9276's parameters only: SHA-1, no extra iterations, empty salt, no opt-out.
"""

from __future__ import annotations

from dataclasses import dataclass

import dns.dnssec
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset

NSEC3_PARAM_TEXT = "1 0 0 -"  # RFC 9276 §3.1: SHA-1, flags 0, 0 iterations, no salt
_NS, _DS = dns.rdatatype.NS, dns.rdatatype.DS


@dataclass(frozen=True, slots=True)
class Layout:
    """The zone sorted for signing: rrsets to sign, and each authoritative name's types."""

    signed: list[dns.rrset.RRset]
    unsigned: list[dns.rrset.RRset]
    types: dict[dns.name.Name, set[int]]
    delegations: frozenset[dns.name.Name]


def layout(origin: dns.name.Name, rrsets: list[dns.rrset.RRset]) -> Layout:
    """Split the zone at its cuts: apex and ordinary names are signed whole; at a delegation
    only DS is (the NS there belongs to the child); below a delegation nothing is."""
    delegations = frozenset(r.name for r in rrsets if r.rdtype == _NS and r.name != origin)
    signed: list[dns.rrset.RRset] = []
    unsigned: list[dns.rrset.RRset] = []
    types: dict[dns.name.Name, set[int]] = {}
    for rrset in rrsets:
        if _occluded(rrset.name, origin, delegations):
            unsigned.append(rrset)
            continue
        types.setdefault(rrset.name, set()).add(rrset.rdtype)
        at_cut = rrset.name in delegations
        (unsigned if at_cut and rrset.rdtype != _DS else signed).append(rrset)
    return Layout(signed, unsigned, types, delegations)


def _occluded(name: dns.name.Name, origin: dns.name.Name, cuts: frozenset[dns.name.Name]) -> bool:
    """Whether a zone cut lies strictly above ``name`` (and below the apex)."""
    parent = name
    while parent != origin and len(parent) > len(origin):
        parent = parent.parent()
        if parent in cuts and parent != origin:
            return True
    return False


def nsec_chain(origin: dns.name.Name, types: dict[dns.name.Name, set[int]], ttl: int
               ) -> list[dns.rrset.RRset]:
    """One NSEC per authoritative name, in canonical order, the last pointing at the apex."""
    ordered = sorted(types)
    chain = []
    for index, name in enumerate(ordered):
        following = ordered[(index + 1) % len(ordered)]
        present = types[name] | {dns.rdatatype.NSEC, dns.rdatatype.RRSIG}
        chain.append(_rrset(name, dns.rdatatype.NSEC, ttl,
                            f"{following.to_text()} {_bitmap(present)}"))
    return chain


def nsec3_chain(origin: dns.name.Name, types: dict[dns.name.Name, set[int]],
                delegations: frozenset[dns.name.Name], ttl: int) -> list[dns.rrset.RRset]:
    """One NSEC3 per authoritative name and empty non-terminal, ordered by hash; the types
    are those at the original name (RRSIG where something there is signed)."""
    present = {name: _nsec3_types(name, kinds, delegations) for name, kinds in types.items()}
    for name in list(present):
        parent = name
        while parent != origin and len(parent) > len(origin):
            parent = parent.parent()
            present.setdefault(parent, set())  # an empty non-terminal (RFC 5155 §7.1)
    hashed = sorted((dns.dnssec.nsec3_hash(name, None, 0, 1), name) for name in present)
    chain = []
    for index, (digest, name) in enumerate(hashed):
        following = hashed[(index + 1) % len(hashed)][0]
        owner = dns.name.Name((digest.lower().encode(),)).concatenate(origin)
        chain.append(_rrset(owner, dns.rdatatype.NSEC3, ttl,
                            f"{NSEC3_PARAM_TEXT} {following} {_bitmap(present[name])}".rstrip()))
    return chain


def _nsec3_types(name: dns.name.Name, kinds: set[int],
                 delegations: frozenset[dns.name.Name]) -> set[int]:
    if name in delegations and _DS not in kinds:
        return set(kinds)  # an unsigned delegation: nothing signed at this name
    return kinds | {dns.rdatatype.RRSIG}


def _bitmap(kinds: set[int]) -> str:
    return " ".join(dns.rdatatype.to_text(t) for t in sorted(kinds))


def _rrset(name: dns.name.Name, rdtype: int, ttl: int, text: str) -> dns.rrset.RRset:
    rrset = dns.rrset.RRset(name, dns.rdataclass.IN, rdtype)
    rrset.update_ttl(ttl)
    rrset.add(dns.rdata.from_text(dns.rdataclass.IN, rdtype, text))
    return rrset
