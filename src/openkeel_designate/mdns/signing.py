"""The signed view of a zone: mdns transfers what the zone holds plus its DNSSEC records.

Wraps the ``ZoneSource`` mdns reads: for a zone whose DNSSEC setting is on, ``zone_records``
returns the zone signed (``domain/dnssec``) — DNSKEY, CDS, CDNSKEY, the NSEC or NSEC3 chain,
RRSIGs — so AXFR carries it with no change to how transfers are built, cached and sent.
Signing is CPU work (seconds for a large zone's first version): it runs in a worker process
of ``offload.py`` (``mdns/zone_signer.py``), not in this process whose event loop serves every
tenant.  All versions of a zone go to the same worker, which keeps the zone's signatures, so a
new version signs only what changed.  The keys go there sealed, with the key-encryption key,
through the pool's local pipe only (see ``mdns/zone_signer.py``).

IXFR: the zone's history holds its own records, not signatures; for a zone that is or was
signed the history is not offered (``zone_changes`` answers None), and the handler answers
the IXFR with the whole zone, AXFR-style, as RFC 1995 §4 allows.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import dns.rdatatype

from openkeel_designate import offload
from openkeel_designate.dnswire.zonedata import (
    ServedRecord,
    ZoneDelta,
    ZoneHead,
    ZoneSigning,
    ZoneSource,
)
from openkeel_designate.domain.dnssec.sign import DNSSEC_TYPES
from openkeel_designate.mdns import zone_signer
from openkeel_designate.observability import metrics

log = logging.getLogger(__name__)

_BUILD_SLICE = 2000  # records made into ServedRecords between two turns of the loop
_DNSSEC_NAMES = frozenset(dns.rdatatype.to_text(t) for t in DNSSEC_TYPES)


class SigningSource:
    """A ``ZoneSource`` that signs the zones with DNSSEC turned on; everything else (and
    every other method of the wrapped source) passes through."""

    def __init__(self, source: ZoneSource, kek: Callable[[], bytes]):
        """``kek``: the key-encryption key, asked for only when a signed zone is rendered."""
        self.source = source
        self.kek = kek
        # One signing of a zone at a time (a second asker then finds everything signed); how
        # many zones at once is the offload pool's bound.
        self._zone_locks: dict[str, _ZoneLock] = {}

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
            async with entry.lock:
                return await self._sign(zone_id, records, signing)
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

    async def _sign(self, zone_id: str, records: list[ServedRecord], signing: ZoneSigning
                    ) -> list[ServedRecord]:
        kept = [r for r in records if r.type not in _DNSSEC_NAMES]
        sent = [(r.name, r.type, r.ttl, r.data) for r in kept]
        signed = await offload.run(zone_signer.sign, zone_id, sent, self.kek(), signing.keys,
                                   signing.nsec == "NSEC3", int(time.time()), signing.disabling,
                                   affinity=zone_id)
        metrics.DNSSEC_SIGNING.observe(signed.seconds)
        metrics.DNSSEC_SIGNATURES.inc(signed.fresh_signatures)
        log.debug("signed zone %s in process %d: %d new signatures", zone_id, signed.pid,
                  signed.fresh_signatures)
        served = kept
        for start in range(0, len(signed.records), _BUILD_SLICE):
            served.extend(ServedRecord(*made)
                          for made in signed.records[start:start + _BUILD_SLICE])
            await asyncio.sleep(0)  # ~15,000 records for 5,000: other tenants get turns
        return served


class _ZoneLock:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0
