"""The rules common to TLDs, TSIG keys and blacklists: admin-only rows with one unique column.

What leaves here is a frozen snapshot of the row (``storage.rows.snapshot``), never the row.
Designate checks ``<verb>_<kind>`` policies (``find_<kind>s`` for lists), answers 404
``<kind>_not_found`` "Could not find <Name>" and 409 "Duplicate <Name>" on the unique column.
A resource-specific ``check`` runs inside the write transaction on the merged values.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.notifications import emit
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import rows

Check = Callable[[AsyncSession, dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Kind:
    model: type
    label: str                      # as in Designate's messages: "Tld", "TsigKey", "Blacklist"
    rule: str                       # policy suffix: "tld" -> create_tld, find_tlds …
    unique: str                     # the unique column
    not_found: type[errors.NotFound]
    duplicate: type[errors.Duplicate]
    fields: tuple[str, ...]         # writable columns


async def find(svc: Services, ctx: RequestContext, kind: Kind, page: Page) -> list[Any]:
    svc.policy.check(f"find_{kind.rule}s", ctx)
    async with svc.db.read() as session:
        return [rows.snapshot(row) for row in await rows.find(session, kind.model, page)]


async def get(svc: Services, ctx: RequestContext, kind: Kind, row_id: str) -> Any:
    svc.policy.check(f"get_{kind.rule}", ctx)
    async with svc.db.read() as session:
        return rows.snapshot(await _load(session, kind, row_id))


async def create(svc: Services, ctx: RequestContext, kind: Kind, values: dict[str, Any],
                 check: Check | None = None) -> Any:
    svc.policy.check(f"create_{kind.rule}", ctx)

    async def work(session: AsyncSession) -> Any:
        if check is not None:
            await check(session, values)
        await _ensure_unique(session, kind, values.get(kind.unique))
        return await rows.insert(session, kind.model, {k: values.get(k) for k in kind.fields},
                                 _duplicate(kind))

    row = await svc.db.transaction(work)
    emit(svc, row, f"dns.{kind.rule}.create")
    return rows.snapshot(row)


async def update(svc: Services, ctx: RequestContext, kind: Kind, row_id: str,
                 values: dict[str, Any], check: Check | None = None) -> Any:
    svc.policy.check(f"update_{kind.rule}", ctx)

    async def work(session: AsyncSession) -> Any:
        row = await _load(session, kind, row_id)
        merged = {k: getattr(row, k) for k in kind.fields} | values
        if check is not None:
            await check(session, merged)
        if kind.unique in values:
            await _ensure_unique(session, kind, values[kind.unique], row.id)
        return await rows.update(session, row, values, _duplicate(kind))

    row = await svc.db.transaction(work)
    emit(svc, row, f"dns.{kind.rule}.update")
    return rows.snapshot(row)


async def delete(svc: Services, ctx: RequestContext, kind: Kind, row_id: str) -> None:
    svc.policy.check(f"delete_{kind.rule}", ctx)

    async def work(session: AsyncSession) -> Any:
        row = await _load(session, kind, row_id)
        await rows.delete(session, row)
        return row

    emit(svc, await svc.db.transaction(work), f"dns.{kind.rule}.delete")


async def _load(session: AsyncSession, kind: Kind, row_id: str) -> Any:
    row = await rows.get(session, kind.model, row_id)
    if row is None:
        raise kind.not_found(f"Could not find {kind.label}")
    return row


async def _ensure_unique(session: AsyncSession, kind: Kind, value: Any,
                         exclude_id: str | None = None) -> None:
    if await rows.taken(session, kind.model, kind.unique, value, exclude_id):
        raise _duplicate(kind)


def _duplicate(kind: Kind) -> errors.Duplicate:
    """409 on the unique column, whether the check or the database (a race) finds the clash."""
    return kind.duplicate(f"Duplicate {kind.label}")
