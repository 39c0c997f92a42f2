"""Authenticated denial: which names a zone holds with authority, and their NSEC or NSEC3 chain.

Names below a zone cut (glue) are not the zone's data (RFC 4035 §2.2): they are left out of the
chain and never signed.  A delegation point is in the chain with its NS (and DS) types.  NSEC3
uses RFC 9276's parameters only: SHA-1, no extra iterations, empty salt, no opt-out.

Names are handled as text and compared by ``name_key`` (the canonical order of RFC 4034 §6.1
as a tuple), not as dnspython names: a zone of 100,000 names is laid out on every transfer,
and building that many ``dns.name.Name`` objects was most of the time of re-signing a change.
"""

from __future__ import annotations

import functools
from collections.abc import MutableMapping
from dataclasses import dataclass

import dns.dnssec
import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.rrset
from dns.rdtypes.ANY.NSEC import NSEC, Bitmap

from openkeel_designate.domain.dnssec.rrsets import NameKey, RRsetData

NSEC3_PARAM_TEXT = "1 0 0 -"  # RFC 9276 §3.1: SHA-1, flags 0, 0 iterations, no salt
_NS, _DS = dns.rdatatype.NS, dns.rdatatype.DS


@dataclass(frozen=True, slots=True)
class Layout:
    """The zone sorted for signing: RRsets to sign, and each authoritative name's types."""

    signed: list[RRsetData]
    types: dict[NameKey, tuple[str, set[int]]]  # name key → (owner as served, types)
    delegations: frozenset[NameKey]


def layout(origin: NameKey, rrsets: list[RRsetData]) -> Layout:
    """Split the zone at its cuts: apex and ordinary names are signed whole; at a delegation
    only DS is (the NS there belongs to the child); below a delegation nothing is."""
    delegations = frozenset(r.key for r in rrsets if r.rdtype == _NS and r.key != origin)
    signed: list[RRsetData] = []
    types: dict[NameKey, tuple[str, set[int]]] = {}
    for rrset in rrsets:
        if delegations and _occluded(rrset.key, len(origin), delegations):
            continue
        types.setdefault(rrset.key, (rrset.name, set()))[1].add(rrset.rdtype)
        if rrset.key not in delegations or rrset.rdtype == _DS:
            signed.append(rrset)
    return Layout(signed, types, delegations)


def _occluded(key: NameKey, apex_length: int, cuts: frozenset[NameKey]) -> bool:
    """Whether a zone cut lies strictly between the apex and ``key``."""
    return any(key[:length] in cuts for length in range(apex_length + 1, len(key)))


def nsec_chain(types: dict[NameKey, tuple[str, set[int]]], ttl: int) -> list[RRsetData]:
    """One NSEC per authoritative name, in canonical order, the last pointing at the apex."""
    ordered = sorted(types)
    chain = []
    for index, key in enumerate(ordered):
        name, kinds = types[key]
        following = types[ordered[(index + 1) % len(ordered)]][0]
        present = kinds | {dns.rdatatype.NSEC, dns.rdatatype.RRSIG}
        text, wire = _nsec_rdata(following, tuple(sorted(present)))
        chain.append(RRsetData(name, key, dns.rdatatype.NSEC, ttl, (text,),
                               functools.partial(_nsec_rrset, name, following, present, ttl),
                               wire))
    return chain


@functools.lru_cache(maxsize=1 << 18)
def _nsec_rdata(following: str, kinds: tuple[int, ...]) -> tuple[str, tuple[bytes, ...] | None]:
    """An NSEC's rdata text and wire, kept: a new version of a large zone has the same chain
    but for a few names, and making them again was a third of re-signing it."""
    return f"{following} {_bitmap(set(kinds))}", _nsec_wire(following, set(kinds))


def _nsec_wire(following: str, kinds: set[int]) -> tuple[bytes, ...] | None:
    """The NSEC's rdata wire made directly (next name as written, RFC 6840 §5.1; the type
    bitmap of RFC 4034 §4.1.2), or None for a next name that needs dnspython's parser."""
    if "\\" in following or not following.isascii() or not following.endswith("."):
        return None
    labels = following[:-1].split(".")
    if len(following) > 254 or not all(0 < len(label) < 64 for label in labels):
        return None
    name = b"".join(bytes((len(label),)) + label.encode() for label in labels) + b"\0"
    return (name + bitmap_wire(kinds),)


def bitmap_wire(kinds: set[int]) -> bytes:
    """RFC 4034 §4.1.2: per window of 256 types that has any, its number, the length of its
    bitmap and the bitmap up to its last non-zero octet."""
    windows: dict[int, bytearray] = {}
    for rdtype in kinds:
        bits = windows.setdefault(rdtype >> 8, bytearray(32))
        bits[(rdtype & 0xFF) >> 3] |= 0x80 >> (rdtype & 7)
    out = bytearray()
    for window in sorted(windows):
        bits = bytes(windows[window]).rstrip(b"\0")
        out += bytes((window, len(bits))) + bits
    return bytes(out)


def nsec3_chain(origin: str, origin_key: NameKey, types: dict[NameKey, tuple[str, set[int]]],
                delegations: frozenset[NameKey], ttl: int,
                hashes: MutableMapping[NameKey, str]) -> list[RRsetData]:
    """One NSEC3 per authoritative name and empty non-terminal, ordered by hash; the types
    are those at the original name (RRSIG where something there is signed).  ``hashes``
    keeps each name's hash between versions of the zone."""
    present = {key: (name, _nsec3_types(key, kinds, delegations))
               for key, (name, kinds) in types.items()}
    for key in list(present):
        for length in range(len(origin_key) + 1, len(key)):
            if key[:length] not in present:  # an empty non-terminal (RFC 5155 §7.1)
                present[key[:length]] = (_name_text(key[:length]), set())
    hashed = sorted((_hash(key, name, hashes), key) for key, (name, _) in present.items())
    chain = []
    for index, (digest, key) in enumerate(hashed):
        following = hashed[(index + 1) % len(hashed)][0]
        owner = f"{digest.lower()}.{origin}"
        text = f"{NSEC3_PARAM_TEXT} {following} {_bitmap(present[key][1])}".rstrip()
        chain.append(RRsetData(owner, name_key(owner), dns.rdatatype.NSEC3, ttl, (text,)))
    return chain


def name_key(text: str) -> NameKey:
    """The labels of an absolute name from the root down, lower-cased: tuples of these sort
    in DNSSEC's canonical order (RFC 4034 §6.1)."""
    if "\\" in text or not text.isascii():
        labels = dns.name.from_text(text).canonicalize().labels[:-1]
    else:
        labels = tuple(text.lower().encode().split(b"."))[:-1]
    return tuple(reversed(labels))


def _name_text(key: NameKey) -> str:
    return dns.name.Name(tuple(reversed(key)) + (b"",)).to_text()


def _hash(key: NameKey, name: str, hashes: MutableMapping[NameKey, str]) -> str:
    digest = hashes.get(key)
    if digest is None:
        digest = hashes[key] = dns.dnssec.nsec3_hash(name, None, 0, 1)
    return digest


def _nsec3_types(key: NameKey, kinds: set[int], delegations: frozenset[NameKey]) -> set[int]:
    if key in delegations and _DS not in kinds:
        return set(kinds)  # an unsigned delegation: nothing signed at this name
    return kinds | {dns.rdatatype.RRSIG}


def _nsec_rrset(name: str, following: str, kinds: set[int], ttl: int) -> dns.rrset.RRset:
    """The NSEC built directly: its text parser is what made a first signing slow."""
    rdata = NSEC(dns.rdataclass.IN, dns.rdatatype.NSEC, dns.name.from_text(following),
                 Bitmap.from_rdtypes(sorted(kinds)))
    rrset = dns.rrset.RRset(dns.name.from_text(name), dns.rdataclass.IN, dns.rdatatype.NSEC)
    rrset.update_ttl(ttl)
    rrset.add(rdata)
    return rrset


def _bitmap(kinds: set[int]) -> str:
    return " ".join(map(type_text, sorted(kinds)))


@functools.lru_cache(maxsize=1024)
def type_text(rdtype: int) -> str:
    """A type's mnemonic (dnspython's lookup, kept: it is asked a few times per name)."""
    return dns.rdatatype.to_text(rdtype)
