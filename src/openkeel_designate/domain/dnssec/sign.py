"""Signing a whole zone, re-using every signature whose RRset has not changed.

A zone changes a few RRsets at a time, but every change gives it a new serial and a new
transfer; signing all of it again would cost the whole zone's CPU per change.  Signatures are
kept per (owner, type, TTL, rdata texts, key, epoch) in a ``SignatureCache`` with their text and
wire form: a new version of the zone signs only what differs (the changed RRsets, the SOA, the
neighbours' NSEC/NSEC3 records) and parses nothing it does not sign.

Signatures are a function of the RRset, the key and the zone's signing *epoch* only: inception
and expiration come from the epoch (stored per zone, moved forward by the producer's refresh),
not from the clock, and ECDSA uses RFC 6979 deterministic nonces (Ed25519 is deterministic by
design).  So two processes, or one before and after a restart, make byte-identical RRSIGs for
the same version of a zone: secondaries see no churn, and a difference between two versions
(IXFR) computed anywhere applies to a copy transferred from anywhere.
"""

from __future__ import annotations

import struct
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

import dns.dnssec
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset
from dns.dnssecalgs import get_algorithm_cls_from_dnskey
from dns.rdata import RdataStyle, _styled_base64ify
from dns.rdtypes.rrsigbase import posixtime_to_sigtime

from openkeel_designate.domain.dnssec import chain
from openkeel_designate.domain.dnssec.keys import SigningKey, cdnskey_of, cds_of, ds_of
from openkeel_designate.domain.dnssec.rrsets import RRsetData, SignedRecord
from openkeel_designate.domain.dnssec.validity import BACKDATE, DNSSEC_TYPES, VALIDITY

_KEY_TYPES = frozenset({dns.rdatatype.DNSKEY, dns.rdatatype.CDS, dns.rdatatype.CDNSKEY})
# RFC 8078 §4: the CDS and CDNSKEY asking the parent to remove every DS of the zone
DELETE_CDS = "0 0 0 00"
DELETE_CDNSKEY = "0 3 0 AA=="
_RRSIG_FIXED = struct.Struct("!HBBIIIH")  # RFC 4034 §3.1: type covered … key tag


@dataclass(frozen=True, slots=True)
class SignedZone:
    """What signing adds to the zone's own records, and how many signatures were made (the
    rest came from the cache)."""

    records: list[SignedRecord]
    fresh_signatures: int


@dataclass(frozen=True, slots=True)
class _Kept:
    expiration: int
    text: str
    wire: bytes


class SignatureCache:
    """Least-recently-used signatures (and rdata wires, NSEC3 hashes) by what they are of,
    bounded by count."""

    def __init__(self, max_entries: int = 500_000):
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()  # a caller may sign several zones at once in threads
        self.hashes: dict = {}  # NSEC3 hash per name key (cleared with the cache when full)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> object | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
            if len(self.hashes) > self.max_entries:
                self.hashes = {}


def sign_zone(origin: str, rrsets: list[RRsetData], keys: list[SigningKey], nsec3: bool,
              cache: SignatureCache, epoch: int, delete_ds: bool = False) -> SignedZone:
    """DNSKEY, CDS and CDNSKEY at the apex, the NSEC or NSEC3 chain (and NSEC3PARAM), and
    RRSIGs over every authoritative RRset, valid from ``epoch`` - ``BACKDATE`` to ``epoch`` +
    ``VALIDITY``.  ``rrsets`` must hold the apex SOA.  ``delete_ds``:
    the zone is going insecure, its CDS/CDNSKEY are the RFC 8078 delete records (the zone
    stays signed meanwhile, so it validates whether or not the parent still has the DS)."""
    origin_key = chain.name_key(origin)
    rrsets = [r for r in rrsets if r.rdtype not in DNSSEC_TYPES]
    soa = next(r for r in rrsets if r.rdtype == dns.rdatatype.SOA and r.key == origin_key)
    soa_rrset = soa.rrset()
    denial_ttl = min(soa.ttl, int(soa_rrset[0].minimum)) if soa_rrset else soa.ttl  # RFC 9077
    added = _apex_keys(origin, origin_key, keys, soa.ttl, delete_ds)
    if nsec3:
        added.append(RRsetData(origin, origin_key, dns.rdatatype.NSEC3PARAM, 0,
                               (chain.NSEC3_PARAM_TEXT,)))
    zone = chain.layout(origin_key, rrsets + added)
    denial = (chain.nsec3_chain(origin, origin_key, zone.types, zone.delegations, denial_ttl,
                                cache.hashes) if nsec3
              else chain.nsec_chain(zone.types, denial_ttl))
    signer = _Signer(origin, keys, cache, epoch)
    records = [record for r in added + denial for record in signer.records_of(r)]
    for rrset in zone.signed + denial:
        records.extend(signer.sign(rrset))
    return SignedZone(records, signer.fresh)


def _apex_keys(origin: str, origin_key: tuple, keys: list[SigningKey], ttl: int,
               delete_ds: bool) -> list[RRsetData]:
    """DNSKEY, and CDS/CDNSKEY (RFC 8078) for the SEP keys the parent should point at — every
    one, so during a KSK rollover both the old and the new; or the delete records."""
    apex = dns.name.from_text(origin)
    sep = [k.dnskey for k in keys if k.flags & 1]
    made = [RRsetData(origin, origin_key, dns.rdatatype.DNSKEY, ttl,
                      tuple(k.dnskey.to_text() for k in keys))]
    if delete_ds:
        cds, cdnskey = (DELETE_CDS,), (DELETE_CDNSKEY,)
    else:
        cds = tuple(cds_of(ds_of(apex, d)).to_text() for d in sep)
        cdnskey = tuple(cdnskey_of(d).to_text() for d in sep)
    for rdtype, texts in ((dns.rdatatype.CDS, cds), (dns.rdatatype.CDNSKEY, cdnskey)):
        made.append(RRsetData(origin, origin_key, rdtype, ttl, texts))
    return made


class _Signer:
    def __init__(self, origin: str, keys: list[SigningKey], cache: SignatureCache, epoch: int):
        self.origin = dns.name.from_text(origin)
        self.cache = cache
        self.epoch = epoch
        zsks = [k for k in keys if not k.flags & 1]
        self.key_signers = [k for k in keys if k.flags & 1] or keys
        self.zone_signers = zsks or self.key_signers  # a CSK signs everything
        self._ids = {id(k): (k.key_tag, k.dnskey.to_digestable()) for k in keys}
        # wrapped once: dnspython otherwise wraps the key again for every signature
        self._private = {id(k): get_algorithm_cls_from_dnskey(k.dnskey)(key=k.private_key)
                         for k in keys}
        # what the direct path (_direct) needs per key; a key dnspython's policy refuses
        # goes through dnspython, which raises
        self._direct_keys = {id(k): (k.dnskey.algorithm, dns.dnssec.key_id(k.dnskey))
                             for k in keys if dns.dnssec.default_policy.ok_to_sign(k.dnskey)}
        self._signer_wire = self.origin.to_wire()
        self._signer_digest = self.origin.to_digestable()
        self._style = RdataStyle.from_keywords({"origin": None, "relativize": True})  # to_text()
        self._signer_text = self.origin.to_styled_text(self._style)
        self._rrsets: dict[int, tuple[RRsetData, dns.rrset.RRset | None]] = {}
        self.fresh = 0

    def records_of(self, rrset: RRsetData) -> list[SignedRecord]:
        """The records of a generated RRset, their wire kept between versions."""
        made = []
        if rrset.wires is not None:
            return [SignedRecord(rrset.name, rrset.rdtype, rrset.ttl, text, wire)  # type: ignore[arg-type]
                    for text, wire in zip(rrset.datas, rrset.wires)]
        for index, text in enumerate(rrset.datas):
            key = ("wire", rrset.rdtype, text)
            wire = self.cache.get(key)
            if wire is None:
                built = self._built(rrset)
                wire = built[index].to_wire() if built is not None else b""
                self.cache.put(key, wire)
            made.append(SignedRecord(rrset.name, rrset.rdtype, rrset.ttl, text,
                                     wire))  # type: ignore[arg-type]
        return made

    def _built(self, rrset: RRsetData) -> dns.rrset.RRset | None:
        """The RRset's dnspython form, made at most once per signing (for its wire and its
        signature alike)."""
        if id(rrset) not in self._rrsets:
            self._rrsets[id(rrset)] = (rrset, rrset.rrset())  # the RRsetData keeps its id
        return self._rrsets[id(rrset)][1]

    def sign(self, rrset: RRsetData) -> list[SignedRecord]:
        keys = self.key_signers if rrset.rdtype in _KEY_TYPES else self.zone_signers
        content = ("sig", self.epoch, rrset.key, rrset.rdtype, rrset.ttl,
                   tuple(sorted(rrset.datas)))
        made = []
        for key in keys:
            kept = self._signature(rrset, key, content + self._ids[id(key)])
            if kept is not None:
                made.append(SignedRecord(rrset.name, dns.rdatatype.RRSIG, rrset.ttl,
                                         kept.text, kept.wire))
        return made

    def _signature(self, rrset: RRsetData, key: SigningKey, cache_key: tuple) -> _Kept | None:
        kept = self.cache.get(cache_key)
        if isinstance(kept, _Kept):
            return kept
        if rrset.wires is not None and id(key) in self._direct_keys:
            kept = self._direct(rrset, key)
            if kept is not None:
                self.cache.put(cache_key, kept)
                self.fresh += 1
            return kept
        built = self._built(rrset)
        if built is None or not len(built):
            return None  # nothing of it can be served: nothing to sign
        # deterministic: RFC 6979 nonces for ECDSA (what dnspython's flag selects)
        rrsig = dns.dnssec.sign(built, self._private[id(key)], self.origin,
                                key.dnskey, inception=self.epoch - BACKDATE,
                                expiration=self.epoch + VALIDITY, origin=self.origin,
                                deterministic=True)
        kept = _Kept(self.epoch + VALIDITY, rrsig.to_text(), rrsig.to_wire())
        self.cache.put(cache_key, kept)
        self.fresh += 1
        return kept

    def _direct(self, rrset: RRsetData, key: SigningKey) -> _Kept | None:
        """The RRSIG ``dns.dnssec.sign`` makes, byte for byte, made from the RRset's wires
        without dnspython objects (RFC 4034 §3.1.8.1, §6.2-6.3: the RRSIG's fields and
        signer, then every RR in canonical form, sorted by rdata, duplicates once); the
        signature itself is the same call on the same key (RFC 6979 nonces for ECDSA), so the
        bytes are those of the dnspython path (``tests/unit`` holds both equal)."""
        assert rrset.wires is not None
        rdatas = sorted(set(rrset.wires))
        if not rdatas:
            return None  # nothing of it can be served: nothing to sign
        algorithm, key_tag = self._direct_keys[id(key)]
        labels = len(rrset.key) - (1 if rrset.key and rrset.key[-1] == b"*" else 0)
        inception, expiration = self.epoch - BACKDATE, self.epoch + VALIDITY
        header = _RRSIG_FIXED.pack(rrset.rdtype, algorithm, labels, rrset.ttl, expiration,
                                   inception, key_tag)
        owner = b"".join(bytes((len(label),)) + label for label in reversed(rrset.key)) + b"\0"
        fixed = struct.pack("!HHI", rrset.rdtype, dns.rdataclass.IN, rrset.ttl)
        data = b"".join([header, self._signer_digest,
                         *(owner + fixed + struct.pack("!H", len(r)) + r for r in rdatas)])
        signature = self._private[id(key)].sign(data, False, True)
        text = (f"{chain.type_text(rrset.rdtype)} {algorithm} {labels} {rrset.ttl} "
                f"{posixtime_to_sigtime(expiration)} {posixtime_to_sigtime(inception)} "
                f"{key_tag} {self._signer_text} {_styled_base64ify(signature, self._style, True)}")
        return _Kept(expiration, text, header + self._signer_wire + signature)
