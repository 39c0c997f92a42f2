"""Denial of existence for signed zones: which NSEC or NSEC3 records prove an answer.

The nameserver never signs: mdns hands it zones already signed (DNSKEY, RRSIG, NSEC or NSEC3),
and an answer to a query with the DO bit picks from them what RFC 4035 §3.1.3 (NSEC) and RFC 5155
§7.2 (NSEC3) ask for each kind of answer.  Finding the record that covers a name must not walk
the zone per query, so each served zone version gets one ``Chain``, built once (in slices of
the event loop) when the zone is put in service: the NSEC owners in canonical order (RFC 4034
§6.1, which is how dnspython orders names), or the NSEC3 hashes of the chain NSEC3PARAM names,
sorted; both searched by bisection.

Each proof is a list of owner names (of the NSEC or NSEC3 records to return, with their RRSIGs);
the caller takes the records from the zone.  An owner may appear twice (one NSEC both covers the
name and the wildcard): the caller returns it once.

``dns.dnssec`` is imported where an NSEC3 hash is computed, not here: it brings ``cryptography``
(about 10 MB resident), which a nameserver with no NSEC3 zone never needs.
"""

from __future__ import annotations

import base64
import bisect
from abc import ABC, abstractmethod
from dataclasses import dataclass

import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.zone

from openkeel_designate import slices

WILDCARD = dns.name.Name((b"*",))
_HIDDEN = (dns.rdatatype.NSEC3, dns.rdatatype.RRSIG)


class Chain(ABC):
    """The proofs one signed zone can give; ``record_type`` is NSEC or NSEC3."""

    record_type: int

    @abstractmethod
    def nodata(self, qname: dns.name.Name) -> list[dns.name.Name]:
        """``qname`` exists (or is an empty non-terminal) but lacks the type asked."""

    @abstractmethod
    def nxdomain(self, qname: dns.name.Name, encloser: dns.name.Name) -> list[dns.name.Name]:
        """``qname`` does not exist and no wildcard at its closest ``encloser`` answers."""

    @abstractmethod
    def wildcard_answer(self, qname: dns.name.Name,
                        encloser: dns.name.Name) -> list[dns.name.Name]:
        """A wildcard answered: prove no closer name matched ``qname``."""

    @abstractmethod
    def wildcard_nodata(self, qname: dns.name.Name,
                        encloser: dns.name.Name) -> list[dns.name.Name]:
        """A wildcard matched ``qname`` but lacks the type asked."""

    def no_ds(self, cut: dns.name.Name) -> list[dns.name.Name]:
        """The delegation at ``cut`` has no DS: an insecure referral."""
        return self.nodata(cut)


@dataclass(frozen=True, slots=True)
class NsecChain(Chain):
    """NSEC owners sorted canonically: the one at or before a name matches or covers it."""

    owners: tuple[dns.name.Name, ...]
    record_type = dns.rdatatype.NSEC

    def at_or_before(self, name: dns.name.Name) -> dns.name.Name:
        return self.owners[bisect.bisect_right(self.owners, name) - 1]

    def nodata(self, qname: dns.name.Name) -> list[dns.name.Name]:
        # An empty non-terminal owns no NSEC: the one before it covers it, and its next name
        # (a descendant of qname) is what shows the name exists.
        return [self.at_or_before(qname)]

    def nxdomain(self, qname: dns.name.Name, encloser: dns.name.Name) -> list[dns.name.Name]:
        return [self.at_or_before(qname), self.at_or_before(WILDCARD.concatenate(encloser))]

    def wildcard_answer(self, qname: dns.name.Name,
                        encloser: dns.name.Name) -> list[dns.name.Name]:
        return [self.at_or_before(qname)]

    def wildcard_nodata(self, qname: dns.name.Name,
                        encloser: dns.name.Name) -> list[dns.name.Name]:
        return self.nxdomain(qname, encloser)  # covers qname; matches the wildcard


@dataclass(frozen=True, slots=True)
class Nsec3Chain(Chain):
    """NSEC3 hashes (raw digests) sorted, with the owner of each; one parameter set."""

    origin: dns.name.Name
    algorithm: int
    iterations: int
    salt: bytes
    hashes: tuple[bytes, ...]
    owners: dict[bytes, dns.name.Name]
    record_type = dns.rdatatype.NSEC3

    def digest(self, name: dns.name.Name) -> bytes:
        import dns.dnssec

        text = dns.dnssec.nsec3_hash(name, self.salt or None, self.iterations, self.algorithm)
        return base64.b32hexdecode(text.upper())

    def matching(self, name: dns.name.Name) -> list[dns.name.Name]:
        owner = self.owners.get(self.digest(name))
        return [owner] if owner is not None else []

    def covering(self, name: dns.name.Name) -> list[dns.name.Name]:
        index = bisect.bisect_right(self.hashes, self.digest(name)) - 1  # -1: the last wraps
        return [self.owners[self.hashes[index]]]

    def next_closer(self, qname: dns.name.Name, encloser: dns.name.Name) -> dns.name.Name:
        return qname.split(len(encloser) + 1)[1]

    def nodata(self, qname: dns.name.Name) -> list[dns.name.Name]:
        # Only an unsigned delegation of an opt-out chain has no NSEC3 of its own (RFC 5155
        # §7.2.4, §7.2.7): then the closest provable encloser and the opt-out NSEC3 covering
        # the next closer name.
        return self.matching(qname) or self.closest_provable(qname)

    def closest_provable(self, name: dns.name.Name) -> list[dns.name.Name]:
        encloser = name.parent()
        while not self.matching(encloser) and encloser != self.origin:
            encloser = encloser.parent()
        return self.matching(encloser) + self.covering(self.next_closer(name, encloser))

    def nxdomain(self, qname: dns.name.Name, encloser: dns.name.Name) -> list[dns.name.Name]:
        return (self.matching(encloser) + self.covering(self.next_closer(qname, encloser))
                + self.covering(WILDCARD.concatenate(encloser)))

    def wildcard_answer(self, qname: dns.name.Name,
                        encloser: dns.name.Name) -> list[dns.name.Name]:
        return self.covering(self.next_closer(qname, encloser))

    def wildcard_nodata(self, qname: dns.name.Name,
                        encloser: dns.name.Name) -> list[dns.name.Name]:
        return (self.matching(encloser) + self.covering(self.next_closer(qname, encloser))
                + self.matching(WILDCARD.concatenate(encloser)))


def is_signed(zone: dns.zone.Zone) -> bool:
    """A DNSKEY at the apex: the zone came signed from mdns."""
    return zone.get_rdataset(zone.origin, dns.rdatatype.DNSKEY) is not None


def chain_of(zone: dns.zone.Zone) -> slices.Work[Chain | None]:
    """The zone's denial chain; None for an unsigned zone (no DNSKEY at the apex) or one
    without NSEC/NSEC3 records (answered as unsigned: nothing could prove a negative).

    In steps (``slices``): the walk and the sort of a large zone would otherwise hold the event
    loop for a large part of a second."""
    origin = zone.origin
    if not is_signed(zone):
        return None
    param = zone.get_rdataset(origin, dns.rdatatype.NSEC3PARAM)
    if param is not None:
        return (yield from _nsec3_chain(zone, param[0]))
    owners = []
    for name, node in zone.nodes.items():
        if node.get_rdataset(dns.rdataclass.IN, dns.rdatatype.NSEC) is not None:
            owners.append(name)
        yield
    owners = yield from slices.sort(owners, key=canonical_key)
    return NsecChain(tuple(owners)) if owners else None


def canonical_key(name: dns.name.Name) -> tuple[bytes, ...]:
    """A sort key giving RFC 4034 §6.1 order (dnspython's order of names), compared in C."""
    return tuple(label.lower() for label in reversed(name.labels))


def _nsec3_chain(zone: dns.zone.Zone, param) -> slices.Work[Nsec3Chain | None]:
    owners: dict[bytes, dns.name.Name] = {}
    for name, node in zone.nodes.items():
        yield
        rdataset = node.get_rdataset(dns.rdataclass.IN, dns.rdatatype.NSEC3)
        if rdataset is None or len(name) != len(zone.origin) + 1:
            continue
        nsec3 = rdataset[0]
        if (nsec3.algorithm, nsec3.iterations, nsec3.salt) == (param.algorithm,
                                                               param.iterations, param.salt):
            owners[base64.b32hexdecode(name.labels[0].upper())] = name
    if not owners:
        return None
    hashes = yield from slices.sort(owners, key=bytes)
    return Nsec3Chain(zone.origin, param.algorithm, param.iterations, param.salt,
                      tuple(hashes), owners)


def hidden_names(zone: dns.zone.Zone,
                 chain: Chain | None) -> slices.Work[frozenset[dns.name.Name]]:
    """Owners of the NSEC3 chain that hold nothing else: RFC 5155 §7.2.8 — not names of the
    zone for lookups, so a query for one is answered as for any name that does not exist."""
    if not isinstance(chain, Nsec3Chain):
        return frozenset()
    hidden = set()
    for name in chain.owners.values():
        yield
        if all(rdataset.rdtype in _HIDDEN for rdataset in zone.nodes[name].rdatasets):
            hidden.add(name)
    return frozenset(hidden)
