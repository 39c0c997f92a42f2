"""Is the database there: the one query readiness probes and ``/healthcheck`` run."""

from __future__ import annotations

from sqlalchemy import text

from openkeel_designate.storage.database import Database


async def ping(db: Database) -> None:
    """Raises (``ServiceUnavailable`` on an outage) unless the database answers a trivial query."""
    async with db.read() as session:
        await session.execute(text("SELECT 1"))


def pool_use(db: Database) -> dict[str, int]:
    """Connections of this process's pool; SQLite's pool has no size or overflow."""
    pool = db.engine.sync_engine.pool
    kept = db.kept.idle  # checked out of the pool, idle all the same (``KeptConnections``)
    use = {"checked_out": _call(pool, "checkedout") - kept,
           "idle": _call(pool, "checkedin") + kept,
           "overflow": max(0, _call(pool, "overflow")), "size": _call(pool, "size")}
    return use


def _call(pool, name: str) -> int:
    method = getattr(pool, name, None)
    try:
        return int(method()) if method else 0
    except (TypeError, ValueError):
        return 0
