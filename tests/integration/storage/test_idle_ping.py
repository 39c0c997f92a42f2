"""A kept connection that died while idle is replaced before use, not handed to a request.

The pool pings a connection only when it sat idle for ``PING_AFTER_IDLE_SECONDS`` (a ping on
every checkout cost three round trips per session): here the server end of the idle connection
is killed, and the next read after the idle time must still answer, on a new connection.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from openkeel_designate.storage import connections
from openkeel_designate.storage.database import Database

pytestmark = pytest.mark.integration

SERVERS = {
    "postgresql": ("postgresql://postgres@127.0.0.1:5432/test", "SELECT pg_backend_pid()",
                   "SELECT pg_terminate_backend({})"),
    "mysql": ("mysql://root@127.0.0.1:3306/test", "SELECT CONNECTION_ID()", "KILL {}"),
}


@pytest.mark.parametrize("kind", sorted(SERVERS))
async def test_an_idle_connection_killed_by_the_server_is_replaced(kind: str) -> None:
    url, who, kill = SERVERS[kind]
    db, killer = Database(url), Database(url)
    try:
        async with db.read() as session:
            victim = (await session.execute(text(who))).scalar()
        async with killer.read() as session:
            await session.execute(text(kill.format(victim)))
        await asyncio.sleep(connections.PING_AFTER_IDLE_SECONDS + 0.2)
        async with db.read() as session:
            now = (await session.execute(text(who))).scalar()
        assert now != victim
    finally:
        await db.dispose()
        await killer.dispose()
