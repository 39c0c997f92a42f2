"""Zone transfers between projects: requests offered by the owner, accepts by the receiver.

Reads of a request by id ignore the tenant filter and leave visibility to policy (an open
request, one without a target project, is readable by anyone who knows its id); deletes and
lists only see the rows of the owner and of the target project, as in Designate.  Accepting
re-owns the zone, its recordsets and records in one transaction; nothing changes in DNS, so
no serial is bumped and the worker is not involved.
"""

from __future__ import annotations

import secrets
import string
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import quotas
from openkeel_designate.central.notifications import notifies
from openkeel_designate.central.services import Services
from openkeel_designate.central.views import ListResult
from openkeel_designate.central.zones import CATALOG_FORBIDDEN, load_visible, policy_target
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import transfers as store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import flush
from openkeel_designate.storage.rows import snapshot
from openkeel_designate.storage.models import (
    ZoneTransferAccept,
    ZoneTransferRequest,
    utcnow,
)

_KEY_ALPHABET = string.ascii_uppercase + string.digits
_KEY_LENGTH = 8


@dataclass(frozen=True)
class RequestView:
    request: Any  # the request's columns, frozen (storage.rows.snapshot), never the row
    zone_name: str | None
    # False hides project ids, key and timestamps (get_zone_transfer_request_detailed)
    detailed: bool


@dataclass(frozen=True)
class AcceptView:
    accept: Any  # the accept's columns, frozen (storage.rows.snapshot), never the row
    # The key is only echoed by the create call; Designate never stores it on the accept.
    show_key: bool = False


def new_key() -> str:
    return "".join(secrets.choice(_KEY_ALPHABET) for _ in range(_KEY_LENGTH))


def _request_target(request: ZoneTransferRequest) -> dict[str, Any]:
    return {"project_id": request.tenant_id, "tenant_id": request.tenant_id,
            "target_project_id": request.target_tenant_id,
            "target_tenant_id": request.target_tenant_id}


def _owner_target(request: ZoneTransferRequest) -> dict[str, Any]:
    return {"project_id": request.tenant_id, "tenant_id": request.tenant_id}


def _view(svc: Services, ctx: RequestContext, request: ZoneTransferRequest,
          zone_name: str | None) -> RequestView:
    detailed = svc.policy.allows("get_zone_transfer_request_detailed", ctx,
                                 _owner_target(request))
    return RequestView(snapshot(request), zone_name, detailed)


def _not_found() -> errors.ZoneTransferRequestNotFound:
    return errors.ZoneTransferRequestNotFound("Could not find ZoneTransferRequest")


# --- requests ----------------------------------------------------------------------------------
@notifies("dns.zone_transfer_request.create")
async def create_request(svc: Services, ctx: RequestContext, zone_id: str,
                         values: dict[str, Any]) -> RequestView:
    async def work(session: AsyncSession) -> RequestView:
        zone = await load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("get_zone", ctx, policy_target(zone, zone.tenant_id != ctx.project_id))
        if zone.type == "CATALOG":
            raise errors.Forbidden(CATALOG_FORBIDDEN)
        if zone.action == "DELETE":
            raise errors.BadRequest("Can not transfer a deleting zone")
        svc.policy.check("create_zone_transfer_request", ctx, policy_target(zone))
        if not ctx.project_id:
            raise errors.MissingProjectID("A project ID must be specified")
        if await store.active_request_exists(session, zone.id, ctx.project_id, ctx.all_tenants):
            raise errors.DuplicateZoneTransferRequest()
        request = await store.insert_request(session, {
            "zone_id": zone.id, "key": new_key(), "description": values.get("description"),
            "tenant_id": ctx.project_id, "target_tenant_id": values.get("target_project_id")})
        return _view(svc, ctx, request, zone.name)

    return await svc.db.transaction(work)


async def _get_request(svc: Services, session: AsyncSession, ctx: RequestContext,
                       request_id: str | None) -> tuple[ZoneTransferRequest, str | None]:
    """Found across projects, then allowed by policy (owner, target, or anyone when open)."""
    row = await store.get_request(session, request_id) if request_id else None
    if row is None:
        raise _not_found()
    svc.policy.check("get_zone_transfer_request", ctx, _request_target(row[0]))
    return row


async def get_request(svc: Services, ctx: RequestContext, request_id: str) -> RequestView:
    async with svc.db.read() as session:
        request, zone_name = await _get_request(svc, session, ctx, request_id)
    return _view(svc, ctx, request, zone_name)


async def find_requests(svc: Services, ctx: RequestContext, page: Page) -> list[RequestView]:
    svc.policy.check("find_zone_transfer_requests", ctx)
    async with svc.db.read() as session:
        rows = await store.find_requests(session, page, project_id=ctx.project_id,
                                         all_tenants=ctx.all_tenants)
    return [_view(svc, ctx, request, zone_name) for request, zone_name in rows]


@notifies("dns.zone_transfer_request.update")
async def update_request(svc: Services, ctx: RequestContext, request_id: str,
                         values: dict[str, Any]) -> RequestView:
    async def work(session: AsyncSession) -> RequestView:
        request, zone_name = await _get_request(svc, session, ctx, request_id)
        svc.policy.check("update_zone_transfer_request", ctx, _owner_target(request))
        if "description" in values:
            request.description = values["description"]
        if "target_project_id" in values:
            request.target_tenant_id = values["target_project_id"]
        request.version += 1
        request.updated_at = utcnow()
        await flush(session)
        return _view(svc, ctx, request, zone_name)

    return await svc.db.transaction(work)


@notifies("dns.zone_transfer_request.delete")
async def delete_request(svc: Services, ctx: RequestContext,
                         request_id: str) -> ZoneTransferRequest:
    async def work(session: AsyncSession) -> ZoneTransferRequest:
        row = await store.get_request(session, request_id, project_id=ctx.project_id,
                                      all_tenants=ctx.all_tenants)
        if row is None:
            raise _not_found()
        svc.policy.check("delete_zone_transfer_request", ctx, _owner_target(row[0]))
        await store.delete_request(session, row[0])
        return row[0]

    return await svc.db.transaction(work)


# --- accepts -----------------------------------------------------------------------------------
class _AcceptFailed(Exception):
    """The accept row was written, then the transfer failed: Designate keeps it as ERROR."""

    def __init__(self, error: errors.DesignateError, accept: ZoneTransferAccept):
        super().__init__(str(error))
        self.error = error
        self.accept = accept


@notifies("dns.zone_transfer_accept.create")
async def create_accept(svc: Services, ctx: RequestContext, values: dict[str, Any]) -> AcceptView:
    async def work(session: AsyncSession) -> AcceptView:
        request, _ = await _get_request(svc, session, ctx, values.get("zone_transfer_request_id"))
        request = await store.lock_request(session, request.id) or request
        if request.status != "ACTIVE":
            if request.status == "COMPLETE":
                raise errors.InvalidZoneTransfer("Zone Transfer Request has been used")
            raise errors.InvalidZoneTransfer("Zone Transfer Request Invalid")
        if request.key != values.get("key"):
            raise errors.IncorrectZoneTransferKey("Key does not match stored key for request")
        # Only the target (or anyone for an open request) passes: no project_id in the target.
        svc.policy.check("create_zone_transfer_accept", ctx, {
            "project_id": None, "tenant_id": None,
            "target_project_id": request.target_tenant_id,
            "target_tenant_id": request.target_tenant_id})
        if not ctx.project_id:
            raise errors.MissingProjectID("A project ID must be specified")
        accept = store.new_accept(request, ctx.project_id, values["key"])
        try:
            await _move_zone(svc, session, ctx, request)
        except errors.DesignateError as exc:
            raise _AcceptFailed(exc, accept) from exc
        now = utcnow()
        accept.status, accept.updated_at = "COMPLETE", now
        request.status, request.updated_at = "COMPLETE", now
        request.version += 1
        await store.save_accept(session, accept)
        return AcceptView(snapshot(accept), show_key=True)

    try:
        return await svc.db.transaction(work)
    except _AcceptFailed as failed:
        await _record_failure(svc, failed.accept)
        raise failed.error from None


async def _move_zone(svc: Services, session: AsyncSession, ctx: RequestContext,
                     request: ZoneTransferRequest) -> None:
    zone = await zone_store.get(session, request.zone_id, for_update=True)
    if zone is None:
        raise errors.ZoneNotFound("Could not find Zone")
    if zone.action == "DELETE":
        raise errors.BadRequest("Can not transfer a deleting zone")
    limits = await quotas.effective(svc, session, ctx.project_id)
    count = await zone_store.count_for_project(session, ctx.project_id, limits["zones"])
    quotas.check(limits, zones=count + 1)
    await store.change_owner(session, zone, ctx.project_id)


async def _record_failure(svc: Services, accept: ZoneTransferAccept) -> None:
    async def work(session: AsyncSession) -> None:
        accept.status, accept.updated_at = "ERROR", utcnow()
        await store.save_accept(session, accept)

    await svc.db.transaction(work)


async def get_accept(svc: Services, ctx: RequestContext, accept_id: str) -> AcceptView:
    async with svc.db.read() as session:
        accept = await store.get_accept(session, accept_id, project_id=ctx.project_id,
                                        all_tenants=ctx.all_tenants)
    if accept is None:
        raise errors.ZoneTransferAcceptNotFound("Could not find ZoneTransferAccept")
    svc.policy.check("get_zone_transfer_accept", ctx,
                     {"project_id": accept.tenant_id, "tenant_id": accept.tenant_id})
    return AcceptView(snapshot(accept))


async def find_accepts(svc: Services, ctx: RequestContext, page: Page) -> ListResult:
    svc.policy.check("find_zone_transfer_accepts", ctx)
    async with svc.db.read() as session:
        rows, total = await store.find_accepts(session, page, project_id=ctx.project_id,
                                               all_tenants=ctx.all_tenants)
    return ListResult([AcceptView(snapshot(row)) for row in rows], total)
