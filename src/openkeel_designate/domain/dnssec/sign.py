"""Signing a whole zone, re-using every signature whose RRset has not changed.

A zone changes a few RRsets at a time, but every change gives it a new serial and a new
transfer; signing all of it again would cost the whole zone's CPU per change.  Signatures are
kept per (owner, type, TTL, canonical rdata, key) in a ``SignatureCache``: a new version of the
zone signs only what differs (the changed RRsets, the SOA, the neighbours' NSEC/NSEC3 records)
and re-signs a kept signature once less than half its validity remains.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

import dns.dnssec
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from openkeel_designate.domain.dnssec import chain
from openkeel_designate.domain.dnssec.keys import SigningKey, cdnskey_of, cds_of, ds_of

VALIDITY = 14 * 86400  # seconds a signature is valid
BACKDATE = 3600  # inception this far in the past: validators with a slow clock still accept
REFRESH_LEFT = VALIDITY // 2  # a kept signature with less validity left than this is redone
DNSSEC_TYPES = frozenset({dns.rdatatype.DNSKEY, dns.rdatatype.RRSIG, dns.rdatatype.NSEC,
                          dns.rdatatype.NSEC3, dns.rdatatype.NSEC3PARAM, dns.rdatatype.CDS,
                          dns.rdatatype.CDNSKEY})
_KEY_TYPES = frozenset({dns.rdatatype.DNSKEY, dns.rdatatype.CDS, dns.rdatatype.CDNSKEY})


@dataclass(frozen=True, slots=True)
class SignedZone:
    """The zone's RRsets (its own and the DNSSEC ones), and how many signatures were made
    (the rest came from the cache)."""

    rrsets: list[dns.rrset.RRset]
    fresh_signatures: int


class SignatureCache:
    """Least-recently-used RRSIGs by what they sign, bounded by count."""

    def __init__(self, max_entries: int = 200_000):
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, dns.rdata.Rdata] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> dns.rdata.Rdata | None:
        rrsig = self._entries.get(key)
        if rrsig is not None:
            self._entries.move_to_end(key)
        return rrsig

    def put(self, key: Hashable, rrsig: dns.rdata.Rdata) -> None:
        self._entries[key] = rrsig
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


def sign_zone(origin: dns.name.Name, rrsets: list[dns.rrset.RRset], keys: list[SigningKey],
              nsec3: bool, cache: SignatureCache, now: int) -> SignedZone:
    """The signed zone: DNSKEY, CDS and CDNSKEY at the apex, the NSEC or NSEC3 chain (and
    NSEC3PARAM), and RRSIGs over every authoritative RRset.  ``rrsets`` must hold the SOA."""
    rrsets = [r for r in rrsets if r.rdtype not in DNSSEC_TYPES]
    soa = next(r for r in rrsets if r.rdtype == dns.rdatatype.SOA and r.name == origin)
    denial_ttl = min(soa.ttl, int(soa[0].minimum))  # RFC 9077
    rrsets = rrsets + _apex_keys(origin, keys, soa.ttl)
    if nsec3:
        rrsets.append(chain._rrset(origin, dns.rdatatype.NSEC3PARAM, 0, chain.NSEC3_PARAM_TEXT))
    zone = chain.layout(origin, rrsets)
    denial = (chain.nsec3_chain(origin, zone.types, zone.delegations, denial_ttl) if nsec3
              else chain.nsec_chain(origin, zone.types, denial_ttl))
    signer = _Signer(origin, keys, cache, now)
    signatures = [signer.sign(r) for r in zone.signed + denial]
    return SignedZone(rrsets + denial + [s for s in signatures if s is not None], signer.fresh)


def _apex_keys(origin: dns.name.Name, keys: list[SigningKey], ttl: int) -> list[dns.rrset.RRset]:
    """DNSKEY, and CDS/CDNSKEY (RFC 8078) for the SEP keys the parent should point at."""
    sep = [k.dnskey for k in keys if k.flags & 1]
    made = []
    for rdtype, rdatas in ((dns.rdatatype.DNSKEY, [k.dnskey for k in keys]),
                           (dns.rdatatype.CDS, [cds_of(ds_of(origin, d)) for d in sep]),
                           (dns.rdatatype.CDNSKEY, [cdnskey_of(d) for d in sep])):
        rrset = dns.rrset.RRset(origin, dns.rdataclass.IN, rdtype)
        rrset.update_ttl(ttl)
        for rdata in rdatas:
            rrset.add(rdata)
        made.append(rrset)
    return made


class _Signer:
    def __init__(self, origin: dns.name.Name, keys: list[SigningKey], cache: SignatureCache,
                 now: int):
        self.origin = origin
        self.cache = cache
        self.now = now
        zsks = [k for k in keys if not k.flags & 1]
        self.key_signers = [k for k in keys if k.flags & 1] or keys
        self.zone_signers = zsks or self.key_signers  # a CSK signs everything
        self.fresh = 0

    def sign(self, rrset: dns.rrset.RRset) -> dns.rrset.RRset | None:
        keys = self.key_signers if rrset.rdtype in _KEY_TYPES else self.zone_signers
        rrsigs = dns.rrset.RRset(rrset.name, dns.rdataclass.IN, dns.rdatatype.RRSIG,
                                 covers=rrset.rdtype)
        rrsigs.update_ttl(rrset.ttl)
        content = (rrset.name.canonicalize().to_wire(), rrset.rdtype, rrset.ttl,
                   tuple(sorted(r.to_digestable(self.origin) for r in rrset)))
        for key in keys:
            rrsigs.add(self._signature(rrset, key, content + (key.dnskey.to_digestable(),)))
        return rrsigs if len(rrsigs) else None

    def _signature(self, rrset: dns.rrset.RRset, key: SigningKey, cache_key: tuple
                   ) -> dns.rdata.Rdata:
        kept = self.cache.get(cache_key)
        if kept is not None and kept.expiration - self.now >= REFRESH_LEFT:
            return kept
        rrsig = dns.dnssec.sign(rrset, key.private_key, self.origin, key.dnskey,  # type: ignore[arg-type]
                                inception=self.now - BACKDATE,
                                expiration=self.now + VALIDITY, origin=self.origin)
        self.cache.put(cache_key, rrsig)
        self.fresh += 1
        return rrsig
