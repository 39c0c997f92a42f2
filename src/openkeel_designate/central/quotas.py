"""Quota rules: defaults from configuration overlaid by per-project overrides."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.storage import quotas as quota_store

RESOURCES = ("zones", "zone_recordsets", "zone_records", "recordset_records", "api_export_size")


def defaults(svc: Services) -> dict[str, int]:
    conf = svc.conf
    return {name: getattr(conf, f"quota_{name}") for name in RESOURCES}


def caps(svc: Services) -> quota_store.Caps:
    """The limits a create's counts are read against, before the owner's overrides are known
    (the same read fetches them)."""
    return quota_store.Caps(defaults(svc), stored=svc.conf.quota_driver == "storage")


async def effective(svc: Services, session: AsyncSession, project_id: str | None) -> dict[str, int]:
    stored = await quota_store.for_project(session, project_id) \
        if svc.conf.quota_driver == "storage" else {}
    return overlaid(svc, stored)


def overlaid(svc: Services, stored: dict[str, int]) -> dict[str, int]:
    """The limits from the defaults and a project's stored overrides, read already (a recordset
    create reads them with its placement facts, one statement fewer)."""
    values = defaults(svc)
    if svc.conf.quota_driver == "storage":
        values.update(stored)
    return values


async def enforce(svc: Services, session: AsyncSession, project_id: str | None,
                  **wanted: int) -> None:
    """Raise OverQuota when any ``resource=value`` exceeds its limit (negative = unlimited)."""
    check(await effective(svc, session, project_id), **wanted)


def check(limits: dict[str, int], **wanted: int) -> None:
    """``enforce`` with limits already read (several checks of one operation, one read)."""
    over = [name for name, value in wanted.items() if 0 <= limits[name] < value]
    if over:
        over.sort(key=len)
        raise errors.OverQuota(f"Quota exceeded for {', '.join(over)}.")
