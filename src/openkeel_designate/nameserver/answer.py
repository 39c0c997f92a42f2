"""Authoritative answers from one served zone (RFC 1034 §4.3.2, RFC 2308, RFC 4592).

Unlike mdns, the nameserver is what resolvers ask, so it answers like any authoritative server:
NXDOMAIN and NODATA carry the SOA (negative-caching TTL) in the authority section, CNAMEs are
returned (and followed inside the zone), wildcards are synthesised, and NS records below the apex
are delegations answered with a referral.
"""

from __future__ import annotations

import dns.flags
import dns.message
import dns.name
import dns.node
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from openkeel_designate.nameserver.zones import ServedZone

_MAX_CNAME_CHAIN = 8
_WILDCARD = dns.name.Name((b"*",))


def answer(response: dns.message.Message, served: ServedZone, qname: dns.name.Name,
           qtype: int) -> None:
    """Fill ``response`` (already carrying the question) for ``qname``/``qtype`` in ``served``."""
    response.flags |= dns.flags.AA
    for _ in range(_MAX_CNAME_CHAIN):
        if _referral(response, served, qname, qtype):
            return
        node, owner_found = _lookup(served, qname)
        if node is None:
            if not owner_found and not response.answer:
                response.set_rcode(dns.rcode.NXDOMAIN)
            if not response.answer:
                _add_soa(response, served)
            return
        cname = node.get_rdataset(dns.rdataclass.IN, dns.rdatatype.CNAME)
        if cname is not None and qtype not in (dns.rdatatype.CNAME, dns.rdatatype.ANY):
            response.answer.append(_rrset(qname, cname))
            target = cname[0].target
            if not target.is_subdomain(served.origin) or _already_answered(response, target):
                return
            qname = target
            continue
        if qtype == dns.rdatatype.ANY:
            rdatasets = list(node.rdatasets)
        else:
            found = node.get_rdataset(dns.rdataclass.IN, qtype)
            rdatasets = [found] if found is not None else []
        if not rdatasets:
            if not response.answer:
                _add_soa(response, served)
            return
        response.answer.extend(_rrset(qname, rdataset) for rdataset in rdatasets)
        return


def _lookup(served: ServedZone, qname: dns.name.Name) -> tuple[dns.node.Node | None, bool]:
    """The node answering ``qname`` (exact or wildcard) and whether the name exists at all."""
    node = served.zone.get_node(qname)
    if node is not None:
        return node, True
    if qname in served.names:  # empty non-terminal: exists, holds nothing
        return None, True
    encloser = qname.parent()
    while encloser not in served.names and encloser != served.origin:
        encloser = encloser.parent()
    wildcard = served.zone.get_node(_WILDCARD.concatenate(encloser))
    return wildcard, wildcard is not None


def _referral(response: dns.message.Message, served: ServedZone, qname: dns.name.Name,
              qtype: int) -> bool:
    """When ``qname`` is at or below a delegation point, answer with its NS and glue."""
    origin_depth = len(served.origin)
    for depth in range(origin_depth + 1, len(qname) + 1):
        _, cut = qname.split(depth)
        if cut == qname and qtype == dns.rdatatype.DS:
            return False  # DS lives in the parent zone
        node = served.zone.get_node(cut)
        ns = node.get_rdataset(dns.rdataclass.IN, dns.rdatatype.NS) if node else None
        if ns is None:
            continue
        if response.answer:
            return True  # a CNAME led into the delegation: the resolver follows it from here
        response.flags &= ~dns.flags.AA
        response.authority.append(_rrset(cut, ns))
        for rdata in ns:
            glue = served.zone.get_node(rdata.target)
            if glue is None:
                continue
            for rdtype in (dns.rdatatype.A, dns.rdatatype.AAAA):
                rdataset = glue.get_rdataset(dns.rdataclass.IN, rdtype)
                if rdataset is not None:
                    response.additional.append(_rrset(rdata.target, rdataset))
        return True
    return False


def _add_soa(response: dns.message.Message, served: ServedZone) -> None:
    """SOA for negative caching, TTL min(SOA TTL, SOA minimum) as RFC 2308 §3 asks."""
    rdataset = served.zone.get_rdataset(served.origin, dns.rdatatype.SOA)
    rrset = _rrset(served.origin, rdataset)
    rrset.ttl = min(rdataset.ttl, rdataset[0].minimum)
    response.authority.append(rrset)


def _already_answered(response: dns.message.Message, name: dns.name.Name) -> bool:
    return any(rrset.name == name for rrset in response.answer)


def _rrset(name: dns.name.Name, rdataset) -> dns.rrset.RRset:
    rrset = dns.rrset.RRset(name, rdataset.rdclass, rdataset.rdtype)
    rrset.update(rdataset)
    return rrset
