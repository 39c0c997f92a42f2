"""A zone's changes (extension): one change by id, the list, and the feed read by serial.

Two origins, one shape (``ChangeView``):

* ``BATCH``: a ``POST /v2/zones/{id}/changes``, its changes as submitted, its id a UUID kept in
  ``change_batches``.
* ``SERIAL``: one served serial step of the zone's history (``zonehistory``, the IXFR history),
  whatever route made it (single recordset writes, zone imports, the sink, batches too): its
  changes are record-level ``REMOVE_RECORDS`` then ``ADD_RECORDS`` per name and type, read from
  what mdns served.  Its id is derived from the zone and the serial (UUID 5), so the same step
  always has the same id and ``GET .../changes/{id}`` finds it.

A batch is therefore also inside the SERIAL entry of the serial that served it: a consumer that
mirrors the zone reads ``origin=SERIAL`` only; one that tracks its own batches reads them by id.
Both are bounded per zone (``change_store.KEEP`` batches, ``zonehistory.KEEP`` steps).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openkeel_designate.central import recordsets as rs
from openkeel_designate.central.change_status import status_of
from openkeel_designate.central.changes import ChangeView
from openkeel_designate.central.services import Services
from openkeel_designate.central.zones import load_visible
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.serial import serial_ge, serial_gt
from openkeel_designate.storage import changes as change_store
from openkeel_designate.storage import propagation as propagation_store
from openkeel_designate.storage.changes import BATCH, SERIAL, Heading
from openkeel_designate.storage.models import Zone

#: the namespace of SERIAL ids: uuid5(namespace, "<zone id>/<serial>")
_SERIAL_IDS = uuid.UUID("5f0c1e4a-8d0b-4c2e-9a57-6b1d3c0e7f21")
MAX_SERIAL = 4294967295
ORIGINS = (BATCH, SERIAL)


@dataclass(frozen=True)
class ChangeQuery:
    """What a list call asks for, already validated by the API."""

    limit: int
    marker: str | None = None
    since_serial: int | None = None
    origin: str | None = None
    newest_first: bool = True


@dataclass(frozen=True)
class ChangePage:
    changes: list[ChangeView]
    total: int
    complete: bool  # with since_serial: the history still holds every step after it


def serial_change_id(zone_id: str, serial: int) -> str:
    return str(uuid.uuid5(_SERIAL_IDS, f"{zone_id}/{serial}"))


def entry_id(zone_id: str, heading: Heading) -> str:
    return heading.key if heading.origin == BATCH else serial_change_id(zone_id, heading.serial)


def listed(headings: Sequence[Heading]) -> list[Heading]:
    """What the feed shows: batches, and history steps that are differences (a base row is a
    zone's creation or import, whose records are not a change of a served state)."""
    return [h for h in headings if h.origin == BATCH or h.from_serial is not None]


def select(zone_id: str, headings: Sequence[Heading],
           query: ChangeQuery) -> tuple[list[Heading], int]:
    """The page asked for and the count of every entry matching the filters."""
    rows = [h for h in listed(headings)
            if (query.origin is None or h.origin == query.origin)
            and (query.since_serial is None
                 or (h.serial is not None and serial_gt(h.serial, query.since_serial)))]
    # newest first; a batch before the serial step that served it when created at one instant
    rows.sort(key=lambda h: (h.created_at, h.origin == BATCH, entry_id(zone_id, h)),
              reverse=query.newest_first)
    start = 0
    if query.marker is not None:
        ids = [entry_id(zone_id, h) for h in rows]
        if query.marker not in ids:
            raise errors.MarkerNotFound(f"Marker {query.marker} could not be found")
        start = ids.index(query.marker) + 1
    return rows[start:start + query.limit], len(rows)


def complete(headings: Sequence[Heading], since_serial: int) -> bool:
    """Whether every step after ``since_serial`` is still in the history (as IXFR asks)."""
    steps = [h for h in headings if h.origin == SERIAL]
    if not steps or serial_ge(since_serial, steps[-1].serial):
        return True
    start = next((i for i in range(len(steps) - 1, -1, -1)
                  if steps[i].from_serial == since_serial), None)
    if start is None:
        return False
    return all(after.from_serial == before.serial
               for before, after in zip(steps[start:], steps[start + 1:]))


def record_changes(removed: list[list[Any]], added: list[list[Any]]) -> list[dict[str, Any]]:
    """A served difference as batch actions: per name and type, removals then additions."""
    out: list[dict[str, Any]] = []
    for action, rows in (("REMOVE_RECORDS", removed), ("ADD_RECORDS", added)):
        groups: dict[tuple[str, str], list[list[Any]]] = {}
        for row in rows:
            groups.setdefault((row[0], row[1]), []).append(row)
        for (name, rtype), group in sorted(groups.items()):
            change: dict[str, Any] = {"action": action, "name": name, "type": rtype}
            if action == "ADD_RECORDS":
                change["ttl"] = group[0][2]
            change["records"] = sorted(row[3] for row in group)
            out.append(change)
    return out


async def get_change(svc: Services, ctx: RequestContext, zone_id: str,
                     change_id: str) -> ChangeView:
    """Visible as its zone is (404 otherwise): a batch by its id, or a served serial step."""
    async with svc.db.read() as session:
        zone = await _visible(svc, ctx, session, zone_id)
        batch = await change_store.get(session, change_id)
        if batch is not None and batch.zone_id == zone.id:
            heading = Heading(batch.id, BATCH, batch.serial, None, batch.change_seq,
                              batch.created_at)
        else:
            heading = next((h for h in listed(await change_store.headings(session, zone.id))
                            if h.origin == SERIAL and entry_id(zone.id, h) == change_id), None)
        if heading is None:
            raise errors.NotFound("Could not find Change")
        return (await _views(session, zone, [heading]))[0]


async def list_changes(svc: Services, ctx: RequestContext, zone_id: str,
                       query: ChangeQuery) -> ChangePage:
    async with svc.db.read() as session:
        zone = await _visible(svc, ctx, session, zone_id)
        headings = await change_store.headings(session, zone.id)
        page, total = select(zone.id, headings, query)
        full = query.since_serial is None or complete(headings, query.since_serial)
        return ChangePage(await _views(session, zone, page), total, full)


async def _visible(svc: Services, ctx: RequestContext, session: Any, zone_id: str) -> Zone:
    """The zone under the rule of reading its recordsets (a change is recordset content)."""
    zone = await load_visible(session, ctx, zone_id)
    svc.policy.check("get_recordset", ctx, rs.recordset_target(
        zone, ctx, shared=zone.tenant_id != ctx.project_id))
    return zone


async def _views(session: Any, zone: Zone, headings: list[Heading]) -> list[ChangeView]:
    served = await propagation_store.served_serials(session, zone.id, zone.pool_id)
    content = await change_store.contents(session, headings)
    views = []
    for h in headings:
        status = status_of(zone, served, h.serial, h.change_seq)
        changes = content[h.key] if h.origin == BATCH else record_changes(*content[h.key])
        views.append(ChangeView(entry_id(zone.id, h), zone.id, h.origin, status, h.serial,
                                changes, h.created_at,
                                zone.error_reason if status == "ERROR" else None))
    return views
