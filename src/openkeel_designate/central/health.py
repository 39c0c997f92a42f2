"""Health as operators and probes ask for it: the database is the one dependency every role has.

Why the database alone: every role reads its work from it (DESIGN.md, "the zone row is the work
item"); a broker or Keystone outage degrades single features and is reported by them.
"""

from __future__ import annotations

import asyncio

from openkeel_designate.observability import metrics
from openkeel_designate.storage import probe
from openkeel_designate.storage import propagation as propagation_store
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import utcnow

PING_TIMEOUT = 3.0
# Always exported (0 when none), so a dashboard's series exist before the first zone does.
ZONE_STATUSES = frozenset({"ACTIVE", "PENDING", "ERROR"})


async def check_database(db: Database, timeout: float = PING_TIMEOUT) -> None:
    """Raises with a short reason unless the database answers within ``timeout``."""
    try:
        await asyncio.wait_for(probe.ping(db), timeout)
    except asyncio.TimeoutError as exc:
        raise RuntimeError(f"database did not answer within {timeout:.0f} s") from exc
    except Exception as exc:
        raise RuntimeError(f"database unreachable: {exc}") from exc


def database_pool_use(db: Database) -> dict[str, int]:
    return probe.pool_use(db)


async def refresh_gauges(db: Database) -> None:
    """Scrape-time gauges: zones by status, the pending backlog and its age, the DB pool and
    its plain transactions run again.

    Read when Prometheus asks rather than on a timer, so an idle process costs nothing and a
    scrape never shows a value older than itself.
    """
    async with db.read() as session:
        backlog = await propagation_store.backlog(session)
    for status in ZONE_STATUSES | set(backlog.by_status):
        metrics.ZONES.labels(status).set(backlog.by_status.get(status, 0))
    metrics.WORKER_PENDING.set(backlog.pending)
    oldest = backlog.oldest_pending_since
    age = (utcnow() - oldest).total_seconds() if oldest is not None else 0.0
    metrics.WORKER_OLDEST_PENDING.set(max(0.0, age))
    for state, value in database_pool_use(db).items():
        metrics.DB_POOL.labels(state).set(value)
    metrics.DB_PLAIN_RERUN.set(db.plain_declined)
