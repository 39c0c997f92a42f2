"""Authoritative answers from one served zone (RFC 1034 §4.3.2, RFC 2308, RFC 4592, RFC 4035).

Unlike mdns, the nameserver is what resolvers ask, so it answers like any authoritative server:
NXDOMAIN and NODATA carry the SOA (negative-caching TTL) in the authority section, CNAMEs are
returned (and followed inside the zone; the rcode is that of the chain's last name, RFC 6604), wildcards are synthesised, and NS records below the apex
are delegations answered with a referral.

When the query sets DO and the zone arrived signed, each RRset of the answer and authority
sections travels with its RRSIGs (RFC 4035 §3.1.1; a synthesised one with the wildcard's, whose
labels field tells the validator), negative and wildcard answers with the NSEC or NSEC3 records
``dnssec.Chain`` names, and referrals with the DS or the proof that there is none.  Without DO,
or for an unsigned zone, the answer is the same as it always was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import dns.flags
import dns.message
import dns.name
import dns.node
import dns.rcode
import dns.rdataclass
import dns.rdataset
import dns.rdatatype
import dns.rrset

from openkeel_designate.nameserver.dnssec import WILDCARD, Chain
from openkeel_designate.nameserver.zones import ServedZone

_MAX_CNAME_CHAIN = 8
_IN = dns.rdataclass.IN


def answer(response: dns.message.Message, served: ServedZone, qname: dns.name.Name,
           qtype: int, dnssec: bool = False) -> None:
    """Fill ``response`` (already carrying the question) for ``qname``/``qtype`` in ``served``;
    ``dnssec``: the query set DO (RFC 3225)."""
    _Answer(response, served, served.chain if dnssec else None).fill(qname, qtype)


@dataclass(slots=True)
class _Match:
    """What the zone holds for a name: the answering node (the name's own or a wildcard's),
    whether the name exists, and, when it does not, its closest encloser."""

    node: dns.node.Node | None
    exists: bool
    encloser: dns.name.Name | None = None

    @property
    def wildcard(self) -> bool:
        return self.node is not None and not self.exists


class _Answer:
    """One response being filled; ``chain`` is None when no DNSSEC records go in it."""

    def __init__(self, response: dns.message.Message, served: ServedZone, chain: Chain | None):
        self.response = response
        self.served = served
        self.chain = chain

    def fill(self, qname: dns.name.Name, qtype: int) -> None:
        self.response.flags |= dns.flags.AA
        for _ in range(_MAX_CNAME_CHAIN):
            if self.referral(qname, qtype):
                return
            match = self.lookup(qname)
            if match.node is None:
                if not match.exists:  # RFC 6604 §2.1: the rcode is the chain's last name's
                    self.response.set_rcode(dns.rcode.NXDOMAIN)
                self.negative(qname, match)
                return
            cname = match.node.get_rdataset(_IN, dns.rdatatype.CNAME)
            if cname is not None and qtype not in (dns.rdatatype.CNAME, dns.rdatatype.ANY):
                self.add(self.response.answer, qname, match.node, cname)
                self.prove_synthesis(qname, match)
                target = cname[0].target
                if not target.is_subdomain(self.served.origin) or self.answered(target):
                    return
                qname = target
                continue
            rdatasets = _rdatasets(match.node, qtype)
            if not rdatasets:
                self.negative(qname, match)
                return
            signed = qtype not in (dns.rdatatype.ANY, dns.rdatatype.RRSIG)
            for rdataset in rdatasets:
                self.add(self.response.answer, qname, match.node, rdataset, signed)
            self.prove_synthesis(qname, match)
            return

    def lookup(self, qname: dns.name.Name) -> _Match:
        node = self.served.node(qname)
        if node is not None:
            return _Match(node, True)
        if qname in self.served.names:  # empty non-terminal: exists, holds nothing
            return _Match(None, True)
        encloser = qname.parent()
        while encloser not in self.served.names and encloser != self.served.origin:
            encloser = encloser.parent()
        return _Match(self.served.node(WILDCARD.concatenate(encloser)), False, encloser)

    def referral(self, qname: dns.name.Name, qtype: int) -> bool:
        """When ``qname`` is at or below a delegation point, answer with its NS and glue."""
        zone = self.served.zone
        for depth in range(len(self.served.origin) + 1, len(qname) + 1):
            _, cut = qname.split(depth)
            if cut == qname and qtype == dns.rdatatype.DS:
                return False  # DS lives in the parent zone
            node = zone.get_node(cut)
            ns = node.get_rdataset(_IN, dns.rdatatype.NS) if node else None
            if ns is None:
                continue
            if self.response.answer:
                return True  # a CNAME led into the delegation: the resolver follows it from here
            self.response.flags &= ~dns.flags.AA
            self.response.authority.append(_rrset(cut, ns))
            self.secure_delegation(cut, node)
            for rdata in ns:
                glue = zone.get_node(rdata.target)
                if glue is None:
                    continue
                for rdtype in (dns.rdatatype.A, dns.rdatatype.AAAA):
                    rdataset = glue.get_rdataset(_IN, rdtype)
                    if rdataset is not None:
                        self.response.additional.append(_rrset(rdata.target, rdataset))
            return True
        return False

    def secure_delegation(self, cut: dns.name.Name, node: dns.node.Node) -> None:
        """RFC 4035 §3.1.4: the DS with its RRSIG, or the proof that the child is unsigned."""
        if self.chain is None:
            return
        ds = node.get_rdataset(_IN, dns.rdatatype.DS)
        if ds is not None:
            self.add(self.response.authority, cut, node, ds)
        else:
            self.prove(lambda chain: chain.no_ds(cut))

    def negative(self, qname: dns.name.Name, match: _Match) -> None:
        """NXDOMAIN or NODATA: the SOA, and with DNSSEC the records proving it — at the end of
        a CNAME chain too, as BIND and PowerDNS answer it (RFC 6604: a resolver caches the
        chain's negative end from that SOA)."""
        self.add_soa()
        if not match.exists and match.node is None:
            self.prove(lambda chain: chain.nxdomain(qname, match.encloser))
        elif match.wildcard:
            self.prove(lambda chain: chain.wildcard_nodata(qname, match.encloser))
        else:
            self.prove(lambda chain: chain.nodata(qname))

    def prove_synthesis(self, qname: dns.name.Name, match: _Match) -> None:
        """A wildcard answered ``qname``: prove that no closer name exists (RFC 4035 §3.1.3.3)."""
        if match.wildcard:
            self.prove(lambda chain: chain.wildcard_answer(qname, match.encloser))

    def prove(self, proof: Callable[[Chain], list[dns.name.Name]]) -> None:
        """Add the NSEC/NSEC3 records (with RRSIGs) that ``proof(chain)`` names, each once."""
        if self.chain is None:
            return
        present = {(rrset.name, rrset.rdtype) for rrset in self.response.authority}
        for owner in proof(self.chain):
            if (owner, self.chain.record_type) in present:
                continue
            present.add((owner, self.chain.record_type))
            node = self.served.zone.get_node(owner)
            rdataset = node.get_rdataset(_IN, self.chain.record_type) if node else None
            if rdataset is not None:
                self.add(self.response.authority, owner, node, rdataset)

    def add_soa(self) -> None:
        """SOA for negative caching, TTL min(SOA TTL, SOA minimum) as RFC 2308 §3 asks."""
        origin = self.served.origin
        node = self.served.zone.get_node(origin)
        rdataset = node.get_rdataset(_IN, dns.rdatatype.SOA)
        self.add(self.response.authority, origin, node, rdataset, ttl=min(rdataset.ttl,
                                                                          rdataset[0].minimum))

    def add(self, section: list, owner: dns.name.Name, node: dns.node.Node,
            rdataset: dns.rdataset.Rdataset, signed: bool = True, ttl: int | None = None) -> None:
        """``rdataset`` as an RRset of ``owner`` and, with DNSSEC, its RRSIGs right after it."""
        rrset = _rrset(owner, rdataset)
        if ttl is not None:
            rrset.ttl = ttl
        section.append(rrset)
        if self.chain is None or not signed:
            return
        signatures = node.get_rdataset(_IN, dns.rdatatype.RRSIG, rdataset.rdtype)
        if signatures is not None:
            sigset = _rrset(owner, signatures)
            sigset.ttl = rrset.ttl
            section.append(sigset)

    def answered(self, name: dns.name.Name) -> bool:
        return any(rrset.name == name for rrset in self.response.answer)


def _rdatasets(node: dns.node.Node, qtype: int) -> list[dns.rdataset.Rdataset]:
    """What answers ``qtype`` at ``node``: everything for ANY, every RRSIG for RRSIG."""
    if qtype == dns.rdatatype.ANY:
        return list(node.rdatasets)
    if qtype == dns.rdatatype.RRSIG:
        return [rdataset for rdataset in node.rdatasets if rdataset.rdtype == qtype]
    found = node.get_rdataset(_IN, qtype)
    return [found] if found is not None else []


def _rrset(name: dns.name.Name, rdataset: dns.rdataset.Rdataset) -> dns.rrset.RRset:
    """``rdataset`` as an RRset owned by ``name``.  Its records are already a set, so they are
    copied as dnspython's own clone does (its ``items`` dict), not re-added one by one:
    ``RRset.update`` hashes every rdata through its wire form, 20 times the cost, which made
    the copies most of the time of a signed answer (six RRsets or more)."""
    rrset = dns.rrset.RRset(name, rdataset.rdclass, rdataset.rdtype, rdataset.covers)
    rrset.ttl = rdataset.ttl
    rrset.items = rdataset.items.copy()
    return rrset
