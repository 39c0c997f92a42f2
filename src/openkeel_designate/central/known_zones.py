"""What this process knows of a zone from its own last recordset create in it.

A recordset POST reads its zone and the placement facts, then writes guarded by the zone's
``change_seq`` (``recordsets._create_unlocked``). After that write this process knows the zone
as it left it: the same row with ``change_seq`` one higher, one recordset and its records more,
the owner's stored quotas as read. The next create in the zone (a tenant's or a controller's
stream of POSTs) is judged on that knowledge and written in one round trip instead of two
(``rs_store.create_if_unchanged`` with ``assumed`` facts): the write itself checks
``change_seq`` and what it does not vouch for, and when any of it changed, nothing is written
and the create reads as before. A rule the known facts refuse is judged again on a read, so
an answer other than 202 always comes from what the database holds.

Only the zone's owner writes this way (the facts of a shared zone are its owner's), only on
PostgreSQL (the only database that writes without a transaction), and only for zones without
child zones. The knowledge is per process: when another process writes to the zone, the
guarded write misses once, and the zone is left to reads for a moment (``CONTENDED_SECONDS``),
so that two processes taking turns on one zone do not each pay a missed write per create.
"""

from __future__ import annotations

import dataclasses
import time
from collections import OrderedDict
from dataclasses import dataclass

from openkeel_designate.storage.models import Zone
from openkeel_designate.storage.recordsets import PlacementFacts

KEPT_ZONES = 1024
CONTENDED_SECONDS = 1.0


@dataclass(frozen=True)
class KnownZone:
    """A zone as this process's last create left it: ``zone`` (a frozen copy), and ``facts``
    with its counts exact, or None where the quota was unlimited when they were read (the read
    counts nothing then, ``storage.quotas.capped``)."""

    zone: Zone
    recordsets: int | None
    unmanaged_records: int | None
    stored_quotas: dict[str, int]

    def facts(self, limits: dict[str, int]) -> PlacementFacts | None:
        """The placement facts of a create at a name no recordset holds, checked against
        ``limits`` (the quotas now); None when a count they check was never counted."""
        counts = []
        for count, resource in ((self.recordsets, "zone_recordsets"),
                                (self.unmanaged_records, "zone_records")):
            if count is None and limits[resource] >= 0:
                return None
            counts.append(count or 0)
        return PlacementFacts([], [], counts[0], counts[1], self.stored_quotas)


def after_create(zone: Zone, facts: PlacementFacts, limits: dict[str, int],
                 records: int) -> KnownZone | None:
    """What a create of one recordset of ``records`` records, judged on ``facts`` against
    ``limits`` and written, leaves known of ``zone``; None for a zone with child zones (the
    placement rule reads their names)."""
    if facts.child_zones:
        return None
    # What the zone's pending mark changed of the columns the create's rules and answer read
    # (``zones.MARK_PENDING_IF_UNCHANGED``); the others (``pending_since``, ``updated_at``)
    # are never read from a known zone, and the write compares ``change_seq`` itself.
    written = dataclasses.replace(zone, change_seq=zone.change_seq + 1, version=zone.version + 1,
                                  status="PENDING", action="UPDATE")

    def counted(count: int, resource: str, added: int) -> int | None:
        # passed the quota check, a count read against a limit is exact (capped one past it)
        return None if limits[resource] < 0 else count + added

    return KnownZone(written, counted(facts.recordsets, "zone_recordsets", 1),
                     counted(facts.unmanaged_records, "zone_records", records),
                     dict(facts.quota_overrides))


class KnownZones:
    """The ``KnownZone`` of the zones this process created in last (at most ``KEPT_ZONES``)."""

    def __init__(self) -> None:
        self._known: OrderedDict[str, KnownZone] = OrderedDict()
        self._contended: OrderedDict[str, float] = OrderedDict()

    def take(self, zone_id: str, project_id: str) -> KnownZone | None:
        """The known zone, if the project owns it; it is forgotten until the create that took
        it keeps what it left (a create beside it in this process reads instead)."""
        known = self._known.pop(zone_id, None)
        return known if known is not None and known.zone.tenant_id == project_id else None

    def keep(self, known: KnownZone | None) -> None:
        """What a create left known, unless the zone was contended a moment ago."""
        if known is None:
            return
        zone_id = known.zone.id
        until = self._contended.get(zone_id)
        if until is not None:
            if time.monotonic() < until:
                return
            del self._contended[zone_id]
        self._known[zone_id] = known
        self._known.move_to_end(zone_id)
        if len(self._known) > KEPT_ZONES:
            self._known.popitem(last=False)

    def missed(self, zone_id: str) -> None:
        """A write on known facts found the zone changed: another writer is at it."""
        self._contended[zone_id] = time.monotonic() + CONTENDED_SECONDS
        self._contended.move_to_end(zone_id)
        if len(self._contended) > KEPT_ZONES:
            self._contended.popitem(last=False)

    def forget(self, zone_id: str) -> None:
        """This process wrote to the zone otherwise (a PUT, a DELETE): what was known is old."""
        self._known.pop(zone_id, None)
