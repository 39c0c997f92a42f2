"""The signed view of a zone: mdns transfers what the zone holds plus its DNSSEC records.

Wraps the ``ZoneSource`` mdns reads: for a zone whose DNSSEC setting is on, ``zone_records``
returns the zone signed (``domain/dnssec``) — DNSKEY, CDS, CDNSKEY, the NSEC or NSEC3 chain,
RRSIGs — so AXFR carries it with no change to how transfers are built, cached and sent.
Signing runs in a thread (it is CPU work) and keeps every signature in one ``SignatureCache``,
so a new version of a zone signs only what changed.

IXFR: the zone's history holds its own records, not signatures; for a zone that is or was
signed the history is not offered (``zone_changes`` answers None), and the handler answers
the IXFR with the whole zone, AXFR-style, as RFC 1995 §4 allows.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable

import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from openkeel_designate.dnswire.zonedata import (
    ServedRecord,
    ZoneDelta,
    ZoneHead,
    ZoneSigning,
    ZoneSource,
)
from openkeel_designate.domain.dnssec import keys as dnssec_keys
from openkeel_designate.domain.dnssec.chain import name_key
from openkeel_designate.domain.dnssec.rrsets import RRsetData
from openkeel_designate.domain.dnssec.sign import DNSSEC_TYPES, SignatureCache, sign_zone
from openkeel_designate.mdns.packing import render_rdata
from openkeel_designate.observability import metrics

log = logging.getLogger(__name__)

SIGNING_THREADS = 2
_DNSSEC_NAMES = frozenset(dns.rdatatype.to_text(t) for t in DNSSEC_TYPES)


class SigningSource:
    """A ``ZoneSource`` that signs the zones with DNSSEC turned on; everything else (and
    every other method of the wrapped source) passes through."""

    def __init__(self, source: ZoneSource, kek: Callable[[], bytes],
                 cache: SignatureCache | None = None):
        """``kek``: the key-encryption key, asked for only when a signed zone is rendered."""
        self.source = source
        self.kek = kek
        self.cache = SignatureCache() if cache is None else cache
        # One signing of a zone at a time (a second asker then finds everything signed), and
        # a few zones at once: a small zone is not kept waiting behind a large one's first
        # signing, and the threads stay few.
        self._zone_locks: dict[str, _ZoneLock] = {}
        self._threads = asyncio.Semaphore(SIGNING_THREADS)
        self._opened: dict[tuple[str, str], dnssec_keys.SigningKey] = {}

    def __getattr__(self, name: str):  # peer_hosts …: the wrapped source's
        return getattr(self.source, name)

    async def find_zone(self, name: str, pool_id: str | None) -> ZoneHead | None:
        return await self.source.find_zone(name, pool_id)

    async def rrset(self, zone_id: str, name: str, rtype: str) -> list[ServedRecord]:
        return await self.source.rrset(zone_id, name, rtype)

    async def zone_records(self, zone_id: str) -> list[ServedRecord]:
        records = await self.source.zone_records(zone_id)
        signing = await self._signing(zone_id)
        if signing is None or not signing.enabled or not signing.keys or not records:
            return records
        entry = self._zone_locks.setdefault(zone_id, _ZoneLock())
        entry.users += 1
        try:
            async with entry.lock, self._threads:
                return await asyncio.to_thread(self._sign, zone_id, records, signing)
        finally:
            entry.users -= 1
            if not entry.users:  # nobody else on it: forget it
                del self._zone_locks[zone_id]

    async def zone_changes(self, zone_id: str, since_serial: int) -> list[ZoneDelta] | None:
        if await self._signing(zone_id) is not None:
            return None  # signed (or once signed): the whole zone, AXFR-style
        history = getattr(self.source, "zone_changes", None)
        return await history(zone_id, since_serial) if history is not None else None

    async def _signing(self, zone_id: str) -> ZoneSigning | None:
        read = getattr(self.source, "zone_signing", None)
        return await read(zone_id) if read is not None else None

    def _sign(self, zone_id: str, records: list[ServedRecord], signing: ZoneSigning
              ) -> list[ServedRecord]:
        kept = [r for r in records if r.type not in _DNSSEC_NAMES]
        soa = next(r for r in kept if r.type == "SOA")
        keys = [self._open(zone_id, k.sealed, k.flags, k.algorithm) for k in signing.keys]
        start = time.perf_counter()
        signed = sign_zone(soa.name, rrsets_of(kept), keys, signing.nsec == "NSEC3",
                           self.cache, int(time.time()), signing.disabling)
        metrics.DNSSEC_SIGNING.observe(time.perf_counter() - start)
        metrics.DNSSEC_SIGNATURES.inc(signed.fresh_signatures)
        log.debug("signed %s: %d new signatures", soa.name, signed.fresh_signatures)
        return kept + [ServedRecord(r.name, dns.rdatatype.to_text(r.rdtype), r.ttl, r.data,
                                    r.wire) for r in signed.records]

    def _open(self, zone_id: str, sealed: str, flags: int, algorithm: int
              ) -> dnssec_keys.SigningKey:
        key = self._opened.get((zone_id, sealed))
        if key is None:
            if len(self._opened) > 10_000:
                self._opened.clear()
            key = dnssec_keys.open_key(self.kek(), sealed, zone_id, flags, algorithm)
            self._opened[(zone_id, sealed)] = key
        return key


class _ZoneLock:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


def rrsets_of(records: list[ServedRecord]) -> list[RRsetData]:
    """The records as RRsets (one per folded owner name and type, as served), by their text;
    each is parsed only if it has to be signed."""
    grouped: dict[tuple[str, str], list[ServedRecord]] = {}
    for record in records:
        grouped.setdefault((record.name.lower(), record.type), []).append(record)
    keys: dict[str, tuple] = {}
    rrsets = []
    for (owner, rtype), members in grouped.items():
        key = keys.get(owner)
        if key is None:
            key = keys[owner] = name_key(members[0].name)
        rrsets.append(RRsetData(members[0].name, key, _type_code(rtype), members[0].ttl,
                                tuple(m.data for m in members),
                                functools.partial(_render, members)))
    return rrsets


@functools.lru_cache(maxsize=256)
def _type_code(rtype: str) -> int:
    return dns.rdatatype.from_text(rtype)


def _render(records: list[ServedRecord]) -> dns.rrset.RRset | None:
    """The dnspython RRset of stored records; one that cannot be rendered is left out (the
    transfer leaves it out too)."""
    rrset: dns.rrset.RRset | None = None
    for record in records:
        try:
            rdata = render_rdata(record)
        except Exception:
            continue
        if rrset is None:
            rrset = dns.rrset.RRset(dns.name.from_text(record.name), dns.rdataclass.IN,
                                    rdata.rdtype)
            rrset.update_ttl(record.ttl)
        rrset.add(rdata)
    return rrset
