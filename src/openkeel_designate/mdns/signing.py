"""The signed view of a zone: mdns transfers what the zone holds plus its DNSSEC records.

Wraps the ``ZoneSource`` mdns reads: for a zone whose DNSSEC setting is on, ``zone_records``
returns the zone signed (``domain/dnssec``) — DNSKEY, CDS, CDNSKEY, the NSEC or NSEC3 chain,
RRSIGs — so AXFR carries it with no change to how transfers are built, cached and sent.
Signing is CPU work (seconds for a large zone's first version): it runs in a worker process
of ``offload.py`` (``mdns/zone_signer.py``), not in this process whose event loop serves every
tenant.  All versions of a zone go to the same worker, which keeps the zone's signatures, so a
new version signs only what changed.  The keys go there sealed, with the key-encryption key,
through the pool's local pipe only (see ``mdns/zone_signer.py``).  ``zone_signer`` is imported
where a signing is handed to the pool, not at start: it brings ``cryptography`` (about 10 MB
resident), which this process does not need until a zone is signed.

Signatures depend on the zone's signing epoch (stored, moved by the producer's refresh and
by any change of keys or setting), not on the clock: every mdns process, restarted or not,
serves the same signed zone for a serial.

IXFR: the zone's history holds its own records, not signatures.  When it reaches back to the
client's serial and the epoch has not changed since (``epoch_serial`` is not after it), the
client holds the older version signed exactly as this process would sign it: the version is
rebuilt from the history (current records, the changes undone) and the worker that keeps the
zone's signatures returns the difference between the two signed versions — changed RRSIGs,
the SOA's, NSEC/NSEC3 neighbours — added to the history's own difference.  Otherwise (a new
epoch, a gap in the history, a zone once signed and no longer) ``zone_changes`` answers None
and the handler sends the whole zone, AXFR-style, as RFC 1995 §4 allows.  The limit of the
history (a copy taken between a write and its serial) is the same as for unsigned zones: a
strict client refuses a difference that does not apply and falls back to AXFR.
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
from openkeel_designate.domain.dnssec.validity import DNSSEC_TYPES, signing_epoch
from openkeel_designate.domain.serial import serial_gt
from openkeel_designate.mdns.ixfr import complete_chain, condense, soa_at
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
        signing = await self._signing(zone_id)
        history = getattr(self.source, "zone_changes", None)
        if history is None:
            return None
        if signing is None:
            return await history(zone_id, since_serial)
        if not signing.enabled or not signing.keys or not _same_epoch(signing, since_serial):
            return None  # no longer signed, or signed otherwise since: AXFR-style
        deltas = await history(zone_id, since_serial)
        if not deltas or not complete_chain(deltas, since_serial, deltas[-1].serial):
            return None
        records = await self.source.zone_records(zone_id)
        current = next((r for r in records if r.type == "SOA"), None)
        if current is None or _soa_serial(current) != deltas[-1].serial:
            return None  # the zone moved on meanwhile: the history is not of this version
        removed, added = condense(deltas)
        old_soa = soa_at(deltas, current, since_serial)
        if old_soa is None:
            return None
        old = _older_version(records, old_soa, removed, added)
        made = await self._difference(zone_id, old, records, signing)
        replaced = next((d.old_soa for d in deltas if d.old_soa is not None), None)
        return [ZoneDelta(since_serial, deltas[-1].serial, (*removed, *made[0]),
                          (*added, *made[1]), replaced)]

    async def _signing(self, zone_id: str) -> ZoneSigning | None:
        read = getattr(self.source, "zone_signing", None)
        return await read(zone_id) if read is not None else None

    async def _difference(self, zone_id: str, old: list[ServedRecord],
                          new: list[ServedRecord], signing: ZoneSigning
                          ) -> tuple[list[ServedRecord], list[ServedRecord]]:
        """The signed records ``old`` has and ``new`` has not, and the reverse, made by the
        worker that keeps the zone's signatures."""
        from openkeel_designate.mdns import zone_signer

        made = await offload.run(zone_signer.difference, zone_id, _plain(old), _plain(new),
                                 self.kek(), signing.keys, signing.nsec == "NSEC3",
                                 signing_epoch(signing.epoch, int(time.time())),
                                 signing.disabling, affinity=zone_id)
        metrics.DNSSEC_SIGNING.observe(made.seconds)
        metrics.DNSSEC_SIGNATURES.inc(made.fresh_signatures)
        log.debug("signed difference of zone %s in process %d: -%d +%d, %d new signatures",
                  zone_id, made.pid, len(made.removed), len(made.added), made.fresh_signatures)
        return ([ServedRecord(*m) for m in made.removed], [ServedRecord(*m) for m in made.added])

    async def _sign(self, zone_id: str, records: list[ServedRecord], signing: ZoneSigning
                    ) -> list[ServedRecord]:
        from openkeel_designate.mdns import zone_signer

        kept = [r for r in records if r.type not in _DNSSEC_NAMES]
        signed = await offload.run(zone_signer.sign, zone_id, _plain(kept), self.kek(),
                                   signing.keys, signing.nsec == "NSEC3",
                                   signing_epoch(signing.epoch, int(time.time())),
                                   signing.disabling, affinity=zone_id)
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


def _plain(records: list[ServedRecord]) -> list[tuple[str, str, int, str]]:
    """The zone's own records as the worker takes them (DNSSEC records are made there)."""
    return [(r.name, r.type, r.ttl, r.data) for r in records if r.type not in _DNSSEC_NAMES]


def _same_epoch(signing: ZoneSigning, since_serial: int) -> bool:
    """Whether version ``since_serial`` was signed with the epoch in force now: the epoch is
    stored and still used (``signing_epoch``), and began at or before that serial."""
    if signing.epoch is None or signing.epoch_serial is None:
        return False
    if signing_epoch(signing.epoch, int(time.time())) != signing.epoch:
        return False
    return since_serial == signing.epoch_serial or serial_gt(since_serial, signing.epoch_serial)


def _soa_serial(soa: ServedRecord) -> int | None:
    fields = soa.data.split()
    return int(fields[2]) if len(fields) >= 7 and fields[2].isdigit() else None


def _older_version(records: list[ServedRecord], old_soa: ServedRecord,
                   removed: list[ServedRecord], added: list[ServedRecord]
                   ) -> list[ServedRecord]:
    """The zone's records at the client's serial: the current ones with the history's changes
    undone and the SOA it holds (``ixfr.soa_at``)."""
    gone = set(added)
    old = [old_soa]
    old.extend(r for r in records if r.type != "SOA" and r not in gone)
    old.extend(removed)
    return old


class _ZoneLock:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0
