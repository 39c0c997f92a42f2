"""Where a zone is served: per nameserver, from what the worker last saw, refreshed on request.

"ACTIVE" says enough nameservers (``threshold_percentage``) took the change; this view says
which did, which are behind and which do not answer — "served by some" versus "served by all".
What the worker saw is reused while it is younger than ``[service:api] propagation_refresh``;
older (or never seen), the nameservers are asked again here, each with a bounded timeout, and
the answers are stored for the next caller.  Same visibility and policy as showing the zone.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

from openkeel_designate.central import zones as central_zones
from openkeel_designate.central.services import Services
from openkeel_designate.dnswire.client import SoaResult, SoaStatus, query_soa
from openkeel_designate.domain import errors, names
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.serial import serial_ge
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import propagation as propagation_store
from openkeel_designate.storage.models import Zone, ZonePropagation, utcnow

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
REFRESH_TIMEOUT = 2.0
HISTORY_LIMIT = 50


def nameserver_status(result: SoaResult, wanted: int, delete: bool) -> tuple[str, str | None]:
    """IN_SYNC / BEHIND / UNREACHABLE for one SOA answer, and the error worth showing."""
    if result.status == SoaStatus.ERROR:
        rcode = f" (rcode {result.rcode})" if getattr(result, "rcode", None) else ""
        return "UNREACHABLE", f"no authoritative answer{rcode}"
    if delete:
        if result.status == SoaStatus.NO_ZONE:
            return "IN_SYNC", None
        return "BEHIND", f"still serves the deleted zone (serial {result.serial})"
    if result.status == SoaStatus.NO_ZONE:
        return "BEHIND", "has no such zone"
    if serial_ge(result.serial, wanted):
        return "IN_SYNC", None
    return "BEHIND", f"serves serial {result.serial}, wanted {wanted}"


def seen_from_soa(host: str, port: int, result: SoaResult, wanted: int,
                  delete: bool) -> propagation_store.Seen:
    status, error = nameserver_status(result, wanted, delete)
    serial = result.serial if result.status == SoaStatus.SUCCESS else None
    return propagation_store.Seen(propagation_store.NAMESERVER, host, port, status, serial,
                                  error)


async def show(svc: Services, ctx: RequestContext, zone_id: str) -> dict[str, Any]:
    """The propagation view of a zone the caller may show (404 / 403 as ``get_zone``)."""
    zone = (await central_zones.get_zone(svc, ctx, zone_id)).zone
    async with svc.db.read() as session:
        detail = await pool_store.detail(session, zone.pool_id)
        rows = await propagation_store.for_zone(session, zone.id)
    nameservers = [(n.host, n.port) for n in detail.nameservers] if detail else []
    if _stale(svc, rows, nameservers):
        await _refresh(svc, zone, nameservers)
        async with svc.db.read() as session:
            rows = await propagation_store.for_zone(session, zone.id)
    return _view(zone, rows, nameservers)


def _stale(svc: Services, rows: list[ZonePropagation],
           nameservers: list[tuple[str, int]]) -> bool:
    bound = utcnow() - timedelta(seconds=svc.conf["service:api"].propagation_refresh)
    checked = {(r.host, r.port): r.checked_at for r in rows
               if r.kind == propagation_store.NAMESERVER}
    return any(checked.get(ns) is None or checked[ns] < bound for ns in nameservers)


async def _refresh(svc: Services, zone: Zone, nameservers: list[tuple[str, int]]) -> None:
    worker = svc.conf["service:worker"]
    timeout = min(worker.dns_timeout, REFRESH_TIMEOUT)
    answers = await asyncio.gather(*(query_soa(zone.name, host, port, timeout=timeout,
                                               tcp=worker.all_tcp)
                                      for host, port in nameservers))
    delete = zone.action == "DELETE"
    seen = [seen_from_soa(host, port, result, zone.serial, delete)
            for (host, port), result in zip(nameservers, answers)]
    try:
        await svc.db.transaction(lambda session: propagation_store.record(
            session, zone.id, seen, prune_nameservers=True))
    except errors.Duplicate:
        pass  # the worker wrote the same rows meanwhile: its answers are as fresh


def _view(zone: Zone, rows: list[ZonePropagation],
          nameservers: list[tuple[str, int]]) -> dict[str, Any]:
    by_server = {(r.host, r.port): r for r in rows if r.kind == propagation_store.NAMESERVER}
    listed = [_nameserver(host, port, by_server.get((host, port))) for host, port in nameservers]
    in_sync = sum(1 for n in listed if n["status"] == "IN_SYNC")
    return {
        "zone_id": zone.id, "zone_name": zone.name, "status": zone.status,
        "action": zone.action, "wanted_serial": zone.serial,
        "pending_since": _time(zone.pending_since),
        "served_by": "all" if listed and in_sync == len(listed) else
                     "some" if in_sync else "none",
        "nameservers": listed,
        "targets": [{"type": r.target_type, "host": r.host, "port": r.port,
                     "status": r.status, "last_error": r.last_error, "since": _time(r.since),
                     "checked_at": _time(r.checked_at)}
                    for r in rows if r.kind == propagation_store.TARGET],
    }


def _nameserver(host: str, port: int, row: ZonePropagation | None) -> dict[str, Any]:
    if row is None:
        return {"host": host, "port": port, "serial": None, "status": "UNREACHABLE",
                "last_error": "not checked yet", "since": None, "checked_at": None}
    return {"host": host, "port": port, "serial": row.serial, "status": row.status,
            "last_error": row.last_error, "since": _time(row.since),
            "checked_at": _time(row.checked_at)}


def _time(value) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%S.%f") if value is not None else None


async def history(svc: Services, ctx: RequestContext, zone_id: str,
                  limit: int = HISTORY_LIMIT) -> dict[str, Any]:
    """The zone's served changes, newest first: each serial with the records it added and
    removed (the IXFR history, so the last ``zonehistory.KEEP`` steps)."""
    zone = (await central_zones.get_zone(svc, ctx, zone_id)).zone
    async with svc.db.read() as session:
        steps = await propagation_store.changes(session, zone.id, limit)
    for step in steps:
        step["created_at"] = _time(step["created_at"])
    return {"zone_id": zone.id, "zone_name": zone.name, "serial": zone.serial,
            "changes": steps}


async def resolve_zone(svc: Services, name_or_id: str) -> str:
    """A zone id from an id or a name (with or without the final dot); 404 when neither."""
    if _UUID.match(name_or_id):
        return name_or_id
    fqdn = name_or_id if name_or_id.endswith(".") else name_or_id + "."
    async with svc.db.read() as session:
        zone_id = await propagation_store.zone_id_by_name(session, names.key(fqdn))
    if zone_id is None:
        raise errors.ZoneNotFound("Could not find Zone")
    return zone_id
