"""An ExternalDNS plan as change batches: one per zone, each applied all or nothing by central.

Each endpoint goes to the project's zone with the longest matching suffix, whatever that zone's
status: a child zone still PENDING gets its own records, never its parent.  A name under no zone
of the project, outside the domain filter, or in a zone that takes no writes (SECONDARY) is
skipped and reported, as ExternalDNS's own providers skip names of zones they do not manage.

The actions merge rather than replace, so values that ExternalDNS does not own survive:

* ``delete`` removes the endpoint's values (``REMOVE_RECORDS``; an absent value or recordset is
  no error, so a retried plan is harmless); the recordset goes with its last value.
* ``updateNew`` adds its values (``ADD_RECORDS``, with the TTL when one is set), then the values
  of the matching ``updateOld`` that it no longer has are removed: the recordset is never empty
  in between, so it keeps its id.  Single-valued types (CNAME) are replaced (``UPSERT``).
* ``create`` adds (``ADD_RECORDS``), so a recordset that exists already (a race, or a value
  someone else wrote) is merged into rather than answered 409 ``Duplicate RecordSet``.

Deletions come first, then updates, then creations: a name changing from CNAME to A frees the
name before the A arrives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openkeel_designate.domain import rrtypes
from openkeel_designate.externaldns.targets import fqdn, in_filter, to_designate
from openkeel_designate.externaldns.wire import Changes, Endpoint


@dataclass(frozen=True)
class Zone:
    id: str
    name: str  # absolute, lower case
    writable: bool  # PRIMARY and not being deleted


@dataclass
class Batch:
    """The changes for one zone, and for each the plan entry it came from (for errors)."""

    zone: Zone
    changes: list[dict[str, Any]] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)

    def add(self, origin: tuple[str, int], action: str, name: str, rtype: str,
            records: list[str], ttl: int = 0) -> None:
        change: dict[str, Any] = {"action": action, "name": name, "type": rtype,
                                  "records": records}
        if ttl:
            change["ttl"] = ttl
        self.changes.append(change)
        self.origins.append(origin)


@dataclass(frozen=True)
class Skipped:
    section: str
    index: int
    name: str
    reason: str


class Planner:
    """Holds the project's zones and the domain filter while one plan is turned into batches."""

    def __init__(self, zones: list[Zone], filters: list[str]):
        self.zones = {zone.name: zone for zone in zones}
        self.filters = filters
        self.batches: dict[str, Batch] = {}
        self.skipped: list[Skipped] = []

    def plan(self, changes: Changes) -> tuple[list[Batch], list[Skipped]]:
        for index, endpoint in enumerate(changes.delete):
            self._delete(("delete", index), endpoint)
        olds = {_key(endpoint): endpoint for endpoint in changes.updateOld}
        for index, endpoint in enumerate(changes.updateNew):
            self._update(("updateNew", index), olds.get(_key(endpoint)), endpoint)
        for index, endpoint in enumerate(changes.create):
            self._create(("create", index), endpoint)
        batches = sorted(self.batches.values(), key=lambda batch: batch.zone.name)
        return [batch for batch in batches if batch.changes], self.skipped

    def zone_of(self, name: str) -> Zone | None:
        """The zone with the longest suffix of ``name`` (absolute), whatever its status."""
        labels = name.lower().split(".")
        for start in range(len(labels) - 1):
            zone = self.zones.get(".".join(labels[start:]))
            if zone is not None:
                return zone
        return None

    def _batch(self, origin: tuple[str, int], endpoint: Endpoint) -> tuple[Batch, str] | None:
        name = fqdn(endpoint.dns_name)
        zone = self.zone_of(name)
        reason = None
        if not in_filter(self.filters, name):
            reason = "outside the domain filter"
        elif zone is None:
            reason = "under no zone of the project"
        elif not zone.writable:
            reason = f"in zone {zone.name}, which takes no writes (secondary or being deleted)"
        if reason is not None or zone is None:
            self.skipped.append(Skipped(*origin, name, reason or ""))
            return None
        return self.batches.setdefault(zone.id, Batch(zone)), name

    def _delete(self, origin: tuple[str, int], endpoint: Endpoint) -> None:
        found = self._batch(origin, endpoint)
        if found and endpoint.targets:
            batch, name = found
            batch.add(origin, "REMOVE_RECORDS", name, endpoint.record_type, _data(endpoint))

    def _update(self, origin: tuple[str, int], old: Endpoint | None, new: Endpoint) -> None:
        found = self._batch(origin, new)
        if not found:
            return
        batch, name = found
        values, rtype = _data(new), new.record_type
        gone = [v for v in (_data(old) if old else []) if v not in values]
        if not values:
            if gone:
                batch.add(origin, "REMOVE_RECORDS", name, rtype, gone)
        elif _single_valued(rtype) or old is None:
            batch.add(origin, "UPSERT", name, rtype, values, new.ttl)
        else:
            batch.add(origin, "ADD_RECORDS", name, rtype, values, new.ttl)
            if gone:
                batch.add(origin, "REMOVE_RECORDS", name, rtype, gone)

    def _create(self, origin: tuple[str, int], endpoint: Endpoint) -> None:
        found = self._batch(origin, endpoint)
        if found and endpoint.targets:
            batch, name = found
            action = "UPSERT" if _single_valued(endpoint.record_type) else "ADD_RECORDS"
            batch.add(origin, action, name, endpoint.record_type, _data(endpoint), endpoint.ttl)


def _key(endpoint: Endpoint) -> tuple[str, str, str]:
    return fqdn(endpoint.dns_name).lower(), endpoint.record_type, endpoint.set_identifier


def _data(endpoint: Endpoint) -> list[str]:
    values: list[str] = []
    for target in endpoint.targets:
        value = to_designate(endpoint.record_type, target)
        if value not in values:
            values.append(value)
    return values


def _single_valued(record_type: str) -> bool:
    known = rrtypes.get(record_type)
    return known is not None and known.max_records == 1
