"""SQL for the name policies: TLDs and blacklists."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage.models import Blacklist, Tld


async def tld_names(session: AsyncSession) -> list[str]:
    return list((await session.execute(select(Tld.name))).scalars())


async def blacklist_patterns(session: AsyncSession) -> list[str]:
    return list((await session.execute(select(Blacklist.pattern))).scalars())
