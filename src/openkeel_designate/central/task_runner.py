"""Runs zone imports and exports in the background of the process that accepted them.

``start`` is called right after a task row commits, so a task usually finishes within
milliseconds.  The row is the durable record, not the asyncio task: ``sweep_forever`` (started
by the runtime) picks up every PENDING task at start-up — what a crash or restart left behind —
and afterwards any task left PENDING for a while by another process that died.  Running a task
twice is harmless: its result is written under a row lock only while it is still PENDING.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.storage import zonetasks as task_store
from openkeel_designate.storage.models import utcnow

LOG = logging.getLogger(__name__)
SWEEP_SECONDS = 30.0
ORPHANED_AFTER = timedelta(seconds=60)

_running: dict[str, asyncio.Task] = {}


def start(svc: Services, task_id: str) -> None:
    """Run the task now in this process (no-op when it already runs here)."""
    if task_id in _running:
        return
    task = asyncio.get_running_loop().create_task(_run(svc, task_id))
    _running[task_id] = task
    task.add_done_callback(lambda _t: _running.pop(task_id, None))


async def _run(svc: Services, task_id: str) -> None:
    from openkeel_designate.central import zone_exports, zone_imports

    try:
        async with svc.db.read() as session:
            row = await task_store.get(session, task_id, None)
        if row is None or row.status != "PENDING":
            return
        if row.task_type == task_store.IMPORT:
            await zone_imports.run_import(svc, task_id)
        else:
            await zone_exports.run_export(svc, task_id)
    except Exception:  # the row stays PENDING; the next sweep tries again
        LOG.exception("zone task %s failed", task_id)


async def resume(svc: Services, orphaned_only: bool = False) -> int:
    """Start every PENDING task (or only those older than ``ORPHANED_AFTER``)."""
    cutoff = utcnow() - ORPHANED_AFTER if orphaned_only else None
    async with svc.db.read() as session:
        ids = await task_store.pending(session, created_before=cutoff)
    for task_id in ids:
        start(svc, task_id)
    return len(ids)


async def sweep_forever(svc: Services) -> None:
    orphaned_only = False
    while True:
        try:
            count = await resume(svc, orphaned_only)
            if count:
                LOG.info("resumed %d pending zone tasks", count)
            orphaned_only = True
        except asyncio.CancelledError:
            raise
        except errors.ServiceUnavailable as exc:
            LOG.warning("zone task sweep: %s", exc)
        except Exception:
            LOG.exception("zone task sweep failed")
        await asyncio.sleep(SWEEP_SECONDS)


async def drain() -> None:
    """Wait for the tasks running in this process (tests, graceful shutdown)."""
    while _running:
        await asyncio.gather(*list(_running.values()), return_exceptions=True)
