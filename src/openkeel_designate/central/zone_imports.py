"""Zone imports: a task row now, the zone a moment later.

The request commits a PENDING ``zone_tasks`` row holding the file and the importer's identity;
``worker/tasks`` then parses it and creates the zone through the normal create rules with that
identity.  The zone, its recordsets and the task's COMPLETE state commit in one transaction, so
an import interrupted by a crash is simply run again from its row (nothing half-imported), and a
refused import leaves nothing but its ERROR task.

The file is parsed and validated in a worker process (``offload.py``), never on the event
loop that serves the API and DNS, and within the project's quotas read just before
(``zonefile_import``: a ``$GENERATE`` beyond them is refused before it is expanded).
"""

from __future__ import annotations

import json
import logging
import marshal
import time
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate import offload
from openkeel_designate.central import quotas
from openkeel_designate.central import recordsets as central_recordsets
from openkeel_designate.central import zonefile_import
from openkeel_designate.central import zones as central_zones
from openkeel_designate.central.notifications import emit, notifies
from openkeel_designate.central.scheduler import choose_pool
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ZoneTaskView, ZoneView
from openkeel_designate.domain import errors
from openkeel_designate.domain import names
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import bulk
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import zonetasks as task_store
from openkeel_designate.storage.database import flush
from openkeel_designate.storage.models import Zone, ZoneTask, utcnow

LOG = logging.getLogger(__name__)
_SLICE = 2000  # recordsets built and inserted at a time (see _insert_recordsets)


# --- requests ----------------------------------------------------------------------------------
@notifies("dns.zone_import.create")
async def create_zone_import(svc: Services, ctx: RequestContext, zonefile_text: str,
                             attributes: dict[str, str] | None = None) -> ZoneTaskView:
    svc.policy.check("create_zone_import", ctx, {"project_id": ctx.project_id})
    if not ctx.project_id:
        raise errors.MissingProjectID("A project ID must be specified")
    payload = json.dumps({"zonefile": zonefile_text, "attributes": attributes or {},
                          "context": _identity(ctx)})

    async def work(session: AsyncSession) -> ZoneTaskView:
        if attributes:
            # 404/500 now, as Designate
            choose_pool(svc, ctx, attributes, await pool_store.placement(session))
        task = await task_store.insert(session, task_store.IMPORT, ctx.project_id,
                                       payload=payload)
        return ZoneTaskView.of(task)

    task = await svc.db.transaction(work)
    svc.start_task(task.id)
    return task


async def _rules(svc: Services, ctx: RequestContext) -> zonefile_import.Rules:
    """What the worker process checks the file against: configuration and the quotas now."""
    async with svc.db.read() as session:
        limits = await quotas.effective(svc, session, ctx.project_id)
    central_conf = svc.conf["service:central"]
    return zonefile_import.Rules(
        min_ttl=central_conf.min_ttl,
        supported_types=tuple(svc.conf.supported_record_type),
        max_recordset_name_len=central_conf.max_recordset_name_len,
        limits=zonefile_import.Limits(zone_records=limits["zone_records"],
                                      zone_recordsets=limits["zone_recordsets"],
                                      recordset_records=limits["recordset_records"]))


def _identity(ctx: RequestContext) -> dict[str, Any]:
    return {"user_id": ctx.user_id, "project_id": ctx.project_id, "roles": ctx.roles,
            "request_id": ctx.request_id}


# --- the import itself -------------------------------------------------------------------------
async def run_import(svc: Services, task_id: str) -> None:
    """Parse and create; the task ends COMPLETE or ERROR with Designate's messages."""
    async with svc.db.read() as session:
        task = await task_store.get(session, task_id, task_store.IMPORT)
    if task is None or task.status != "PENDING":
        return
    payload = json.loads(task.payload or "{}")
    ctx = RequestContext(**payload.get("context", {}))
    rules = await _rules(svc, ctx)
    started = time.perf_counter()
    try:
        parsed = await offload.run(zonefile_import.parse_packed, payload.get("zonefile", ""),
                                   rules, _SLICE)
    except zonefile_import.ZoneFileError as exc:
        await _finish(svc, task_id, "ERROR", str(exc))
        return
    except Exception as exc:  # the worker process died or could not start: not retried
        LOG.exception("zone import %s: parsing failed", task_id)
        await _finish(svc, task_id, "ERROR", zonefile_import.undefined(str(exc)))
        return
    parsed.values["attributes"] = payload.get("attributes") or {}
    parsed_at = time.perf_counter()
    try:
        central_zones.check_create_allowed(svc, ctx, parsed.values)
        # The API's rule on each recordset's TTL: it holds for all when it holds for the lowest.
        central_recordsets.check_ttl(svc, ctx, _totals(parsed)[3])
        checked_at = time.perf_counter()
        created = await svc.db.transaction(lambda s: _create(svc, s, ctx, task_id, parsed))
    except errors.ServiceUnavailable:
        # The database went away (storage turns that into ServiceUnavailable, a DesignateError):
        # the task stays PENDING and the sweep retries it, rather than failing the import.
        raise
    except errors.DuplicateZone:
        await _finish(svc, task_id, "ERROR", "Duplicate zone.")
    except errors.InvalidTTL as exc:
        await _finish(svc, task_id, "ERROR", exc.message or "")
    except errors.OverQuota:
        await _finish(svc, task_id, "ERROR", zonefile_import.OVER_QUOTA)
    except errors.DesignateError as exc:
        await _finish(svc, task_id, "ERROR", zonefile_import.undefined(exc.message or exc.type))
    except Exception as exc:  # as Designate: any other failure ends the import
        LOG.exception("zone import %s failed", task_id)
        await _finish(svc, task_id, "ERROR", zonefile_import.undefined(str(exc)))
    else:
        if created is not None:
            LOG.info("zone import %s: %d recordsets, parse %.2f s, checks %.2f s, "
                     "insert %.2f s", task_id, _totals(parsed)[0], parsed_at - started,
                     checked_at - parsed_at, time.perf_counter() - checked_at)
            svc.wake_worker()
            zone, task = created
            emit(svc, zone, "dns.zone.create", "dns.domain.create")
            emit(svc, task, "dns.zone_import.update")


async def _create(svc: Services, session: AsyncSession, ctx: RequestContext, task_id: str,
                  parsed: zonefile_import.ParsedZone) -> tuple[ZoneView, ZoneTask] | None:
    """Zone, recordsets and the task's result in the caller's transaction (None: done already)."""
    task = await task_store.lock_pending(session, task_id)
    if task is None:
        return None
    created = await central_zones.insert_zone(svc, session, ctx, parsed.values)
    zone = created.zone
    await _enforce_quotas(svc, session, ctx, parsed)
    await _insert_recordsets(session, zone, ctx, parsed)
    task_store.finish(task, "COMPLETE", f"{zone.name} imported", zone_id=zone.id)
    return created, task


def _totals(parsed: zonefile_import.ParsedZone) -> tuple[int, int, int, int | None]:
    """Recordsets, records, the largest recordset and the lowest TTL of the import."""
    assert parsed.totals is not None
    return parsed.totals


async def _enforce_quotas(svc: Services, session: AsyncSession, ctx: RequestContext,
                          parsed: zonefile_import.ParsedZone) -> None:
    recordsets, records, largest, _lowest_ttl = _totals(parsed)
    managed = 2  # SOA and apex NS, already created with the zone
    await quotas.enforce(svc, session, ctx.project_id, zone_recordsets=recordsets + managed,
                         zone_records=records, recordset_records=largest)


async def _insert_recordsets(session: AsyncSession, zone: Zone, ctx: RequestContext,
                             parsed: zonefile_import.ParsedZone) -> None:
    """Bulk rows: creation times step by a microsecond to keep the file's order on export.

    The recordsets came from the worker process packed by slices of ``_SLICE``, with their ids
    and hashes; here each slice is unpacked and becomes rows (a few milliseconds of the loop)
    and one insert per table, which awaits the database, so the loop serves other requests
    between slices.
    """
    await flush(session)
    base = utcnow()
    project, shard, zone_id, owner = ctx.project_id, zone.shard, zone.id, zone.tenant_id
    index = 0
    for packed in parsed.packed or ():
        rs_rows: list[tuple[Any, ...]] = []
        record_rows: list[tuple[Any, ...]] = []
        for name, rtype, ttl, records, rs_id, record_keys in marshal.loads(packed):
            index += 1
            created = base + timedelta(microseconds=index)
            # Columns in bulk.RECORDSET_COLUMNS / bulk.RECORD_COLUMNS order.
            rs_rows.append((rs_id, 1, shard, project, zone_id, owner, name, names.key(name),
                            rtype, ttl, None, name[::-1], created))
            record_rows += [(record_id, 1, shard, project, zone_id, rs_id, data, digest, False,
                             "PENDING", "CREATE", None, created)
                            for data, (record_id, digest) in zip(records, record_keys)]
        await bulk.insert(session, rs_rows, record_rows)


async def _finish(svc: Services, task_id: str, status: str, message: str) -> None:
    async def work(session: AsyncSession) -> ZoneTask | None:
        task = await task_store.lock_pending(session, task_id)
        if task is not None:
            task_store.finish(task, status, message)
        return task

    emit(svc, await svc.db.transaction(work), "dns.zone_import.update")
