"""Change batches (extension): many recordset writes in one transaction, one serial, one push.

Each change goes through the same functions as the single-recordset routes
(``central/recordsets.py``): the same rules, quotas and policies.  Every change is tried so a 400
can list every problem with its index; one problem rolls the whole batch back.  The zone is
locked for the whole batch, so two batches on one name (cert-manager adding and removing DNS-01
TXT values) apply one after the other and neither loses the other's records.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import recordsets as rs
from openkeel_designate.central.change_status import status_of
from openkeel_designate.central.notifications import emit
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import RecordSetView, zone_etag
from openkeel_designate.central.zones import mark_pending
from openkeel_designate.domain import conditions, errors
from openkeel_designate.domain.conditions import Condition
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.storage import changes as change_store
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage.database import flush
from openkeel_designate.storage.models import Zone

ACTIONS = ("CREATE", "UPSERT", "DELETE", "ADD_RECORDS", "REMOVE_RECORDS")


@dataclass(frozen=True)
class ChangeView:
    """One change of a zone: a batch (``origin`` BATCH, as submitted) or a served serial step
    (``origin`` SERIAL, its record-level changes read from the zone's history)."""

    id: str
    zone_id: str
    origin: str
    status: str
    serial: int | None
    changes: list[dict[str, Any]]
    created_at: datetime
    message: str | None = None  # the zone's error reason, while the status is ERROR


class _Problem(Exception):
    """A change that cannot apply for a reason the single routes answer with a 404."""


async def apply_changes(svc: Services, ctx: RequestContext, zone_id: str,
                        changes: list[dict[str, Any]],
                        condition: Condition | None = None) -> ChangeView:
    """All changes or none; the zone is marked pending once, so the worker gives one serial.

    ``condition`` (``If-Match`` with the zone's ETag): only if the zone is as the caller read it.
    """
    async def work(session: AsyncSession) -> tuple[ChangeView, list[Outcome]]:
        zone, shared = await rs.zone_for_write(session, ctx, zone_id)
        conditions.check(condition, zone_etag(zone))
        problems: list[dict[str, Any]] = []
        outcomes: list[Outcome] = []
        for index, change in enumerate(changes):
            try:
                outcomes.append(await _apply(svc, ctx, session, zone, shared, change))
                await flush(session)
            except (errors.DesignateError, _Problem) as exc:
                problems.extend(_indexed(index, exc))
        if problems:
            raise errors.InvalidChanges(problems)
        if any(_writes(outcome) for outcome in outcomes):
            mark_pending(zone)
        batch = await change_store.insert(session, zone, ctx.project_id, changes)
        status = status_of(zone, [], batch.serial, batch.change_seq)
        view = ChangeView(batch.id, zone.id, change_store.BATCH, status, batch.serial, changes,
                          batch.created_at)
        return view, outcomes

    result, outcomes = await svc.db.transaction(work)
    if any(_writes(outcome) for outcome in outcomes):
        svc.wake_worker()
    for outcome in filter(None, outcomes):  # the events the single routes send, once committed
        emit(svc, outcome[1], outcome[0])
    return result


def _indexed(index: int, exc: Exception) -> list[dict[str, Any]]:
    """Designate's structured entries, each path prefixed with the change's index."""
    if isinstance(exc, errors.DesignateError) and exc.code not in (400, 404, 409, 413):
        raise exc  # policy (403), unavailable (503): the batch as a whole is refused
    entries = getattr(exc, "errors", None) or [{"path": [], "message": _message(exc),
                                                "validator": getattr(exc, "type", "value"),
                                                "validator_value": None}]
    return [{**entry, "path": ["changes", index, *entry.get("path", [])]} for entry in entries]


def _message(exc: Exception) -> str:
    message = getattr(exc, "message", None)
    return str(message if message is not None else exc)


#: what one applied change tells: the single route's event and its result (None: nothing to do)
Outcome = tuple[str, RecordSetView] | None


async def _apply(svc: Services, ctx: RequestContext, session: AsyncSession, zone: Zone,
                 shared: bool, change: dict[str, Any]) -> Outcome:
    """One change through the single-recordset functions; None when there was nothing to do."""
    action, name, rtype = change["action"], change["name"], change["type"]
    existing = await rs_store.find_one(session, zone.id, name, rtype)
    if action == "CREATE" or (existing is None and action in ("UPSERT", "ADD_RECORDS")):
        values = {k: change[k] for k in ("name", "type", "ttl", "description", "records")
                  if k in change}
        data = rs.check_new(svc, values)
        recordset, created = await rs.insert_recordset(svc, ctx, session, zone, shared, values,
                                                       data)
        return "dns.recordset.create", RecordSetView.of(recordset, created, zone.name)
    if existing is None:
        if action == "REMOVE_RECORDS":
            return None  # already gone: removing is idempotent (DNS-01 clean-up retries)
        raise _Problem(f"Could not find RecordSet {name} {rtype}")
    if action in ("UPSERT", "ADD_RECORDS"):  # first alone, so a bad record's index is its own
        rs.validate(svc.conf.supported_record_type, change, rtype, existing.name, stored=True)
    # as the single routes change it: read by statement, not the session's copy of an earlier
    # change in this batch
    recordset, records = await rs_store.read_for_change(session, existing.id)
    values = {} if action == "DELETE" else _update_values(records, change)
    if action == "DELETE" or (action == "REMOVE_RECORDS" and not values["records"]):
        gone = await rs.remove_recordset(svc, ctx, session, zone, shared, recordset, records)
        return "dns.recordset.delete", gone
    view = await rs.change_recordset(svc, ctx, session, zone, shared, recordset, records, values)
    return "dns.recordset.update", view


def _writes(outcome: Outcome) -> bool:
    """As the single routes: an empty recordset created or deleted leaves the zone as served."""
    if outcome is None:
        return False
    event, view = outcome
    return event == "dns.recordset.update" or bool(view.records)


def _update_values(records: list[Any], change: dict[str, Any]) -> dict[str, Any]:
    """What the update route would receive: UPSERT replaces, the others merge with the stored
    ``records``."""
    values = {k: change[k] for k in ("ttl", "description") if k in change}
    given = change.get("records") or []
    if change["action"] == "UPSERT":
        values["records"] = list(given)
        return values
    stored = [r.data for r in records]
    if change["action"] == "ADD_RECORDS":
        values["records"] = stored + [item for item in given if item not in stored]
    else:
        values["records"] = [item for item in stored if item not in given]
    return values
