"""Runs zone imports and exports in the background of the process that accepted them.

Central commits a PENDING task row and announces it through ``Services.start_task``; the
runner ``attach``-ed to those services starts it at once, so a task usually finishes within
milliseconds.  The row is the durable record, not the asyncio task: ``sweep_forever`` (started
by the runtime) picks up every PENDING task at start-up — what a crash or restart left behind —
and afterwards any task left PENDING for a while by another process that died.  Running a task
twice is harmless: its result is written under a row lock only while it is still PENDING.

The runner lives here, beside the other background work, and reaches the rules through the
``RUNNERS`` table, so central never imports it back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta

from openkeel_designate.central import zone_exports, zone_imports
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.storage import zonetasks as task_store
from openkeel_designate.storage.models import utcnow

LOG = logging.getLogger(__name__)
SWEEP_SECONDS = 30.0
ORPHANED_AFTER = timedelta(seconds=60)

# task_type → the central operation that carries a PENDING task to its end.
RUNNERS: dict[str, Callable[[Services, str], Awaitable[None]]] = {
    task_store.IMPORT: zone_imports.run_import,
    task_store.EXPORT: zone_exports.run_export,
}


class TaskRunner:
    """The zone tasks one process runs; one per ``Services``, so nothing is global."""

    def __init__(self, svc: Services):
        self.svc = svc
        self._running: dict[str, asyncio.Task] = {}
        self._stopping = asyncio.Event()

    def start(self, task_id: str) -> None:
        """Run the task now in this process (no-op when it already runs here)."""
        if task_id in self._running:
            return
        task = asyncio.get_running_loop().create_task(self._run(task_id))
        self._running[task_id] = task
        task.add_done_callback(lambda _t: self._running.pop(task_id, None))

    async def _run(self, task_id: str) -> None:
        try:
            async with self.svc.db.read() as session:
                row = await task_store.get(session, task_id, None)
            if row is None or row.status != "PENDING":
                return
            await RUNNERS[row.task_type](self.svc, task_id)
        except Exception:  # the row stays PENDING; the next sweep tries again
            LOG.exception("zone task %s failed", task_id)

    async def resume(self, orphaned_only: bool = False) -> int:
        """Start every PENDING task (or only those older than ``ORPHANED_AFTER``)."""
        cutoff = utcnow() - ORPHANED_AFTER if orphaned_only else None
        async with self.svc.db.read() as session:
            ids = await task_store.pending(session, created_before=cutoff)
        for task_id in ids:
            self.start(task_id)
        return len(ids)

    async def sweep_forever(self) -> None:
        orphaned_only = False
        while not self._stopping.is_set():
            try:
                count = await self.resume(orphaned_only)
                if count:
                    LOG.info("resumed %d pending zone tasks", count)
                orphaned_only = True
            except asyncio.CancelledError:
                raise
            except errors.ServiceUnavailable as exc:
                LOG.warning("zone task sweep: %s", exc)
            except Exception:
                LOG.exception("zone task sweep failed")
            try:
                await asyncio.wait_for(self._stopping.wait(), SWEEP_SECONDS)
            except TimeoutError:
                pass

    def stop(self) -> None:
        """End ``sweep_forever`` at its next pause (tasks running here are left to the stop's
        grace; an unfinished one stays PENDING and is resumed by the next start)."""
        self._stopping.set()

    async def drain(self) -> None:
        """Wait for the tasks running in this process (tests, graceful shutdown)."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)


def attach(svc: Services) -> TaskRunner:
    """A runner that starts every task ``svc`` announces."""
    runner = TaskRunner(svc)
    svc.task_listeners.append(runner.start)
    return runner
