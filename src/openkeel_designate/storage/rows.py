"""SQL shared by the administrative resources that are plain rows (TLDs, TSIG keys, blacklists).

Each of them is one table with a unique column, listed with the common filters and paging; one
set of queries serves all three instead of three copies.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.filters import Page, apply_criteria, paginate


async def get(session: AsyncSession, model: type, row_id: str) -> Any | None:
    return await session.get(model, row_id)


async def find(session: AsyncSession, model: type, page: Page) -> list[Any]:
    query = apply_criteria(select(model), model, page.criteria)
    return list((await session.execute(await paginate(session, query, model, page))).scalars())


async def taken(session: AsyncSession, model: type, column: str, value: Any,
                exclude_id: str | None = None) -> bool:
    """True when another row already holds ``value`` in the unique ``column``."""
    query = select(model.id).where(getattr(model, column) == value)
    if exclude_id is not None:
        query = query.where(model.id != exclude_id)
    return (await session.execute(query.limit(1))).first() is not None
