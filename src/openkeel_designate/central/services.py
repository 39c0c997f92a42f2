"""What every central operation needs, passed explicitly (no globals).

``wake_worker`` and ``start_task`` are the only couplings from central to the background work:
hints that a zone became pending, or that a zone task row committed.  Correctness never depends
on them; the zone row and the task row are the durable work items.  The listeners are plain
callables registered by whoever runs that work (``worker/``), so central imports nothing above it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field

from oslo_config import cfg

from openkeel_designate.central.known_zones import KnownZones
from openkeel_designate.central.policy import Policy
from openkeel_designate.storage import wakeup
from openkeel_designate.storage.database import Database


@dataclass
class Services:
    conf: cfg.ConfigOpts
    db: Database
    policy: Policy
    wake_listeners: list[Callable[[], None]] = field(default_factory=list)
    task_listeners: list[Callable[[str], None]] = field(default_factory=list)
    notifier: Any = None  # central.notifications.Notifier when dns.* events are configured
    # This process's worker, if any: whether it has room for another push. Woken in process,
    # it claims the zone at once, so the workers of other processes need no announcement.
    local_worker_free: Callable[[], bool] | None = None
    # An API process of ``[service:api] workers``: its wake-ups go to its parent, which runs
    # the worker and announces to other hosts itself when that worker has no room.
    wakes_relayed: bool = False
    # The zones this process created recordsets in last, as it left them (recordset POSTs
    # that need not read first).
    known_zones: KnownZones = field(default_factory=KnownZones)
    _announcing: asyncio.Task | None = field(default=None, repr=False)
    _announce_again: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if self.notifier is None:
            from openkeel_designate.central.notifications import Notifier

            self.notifier = Notifier(self.conf)

    def wake_worker(self) -> None:
        """Wake this process's listeners; on PostgreSQL also announce the change to the
        workers of other processes, unless this process's own worker has room for it: each
        announcement is a round trip and a notification every listening process (this one
        too) takes in, on every write (a recordset POST in process on PostgreSQL: 1.41 ms of
        CPU with it, 1.28 without, bench/README.md, "the claim's step from the names
        changed"). An API process of ``[service:api] workers`` leaves the announcement to
        its parent, which alone knows whether its worker has room (``wakes_relayed``)."""
        for listener in self.wake_listeners:
            listener()
        if self.db.backend != "postgresql" or self.wakes_relayed:
            return
        if self.local_worker_free is not None and self.local_worker_free():
            return
        if self._announcing is not None:
            # One NOTIFY at a time: the one in flight may have gone before this commit, so it
            # is sent once more when done; a burst of writes costs two, not one per write.
            self._announce_again = True
            return
        self._announcing = asyncio.get_running_loop().create_task(self._announce())

    async def _announce(self) -> None:
        try:
            while True:
                self._announce_again = False
                await wakeup.announce(self.db)
                if not self._announce_again:
                    return
        finally:
            self._announcing = None

    def start_task(self, task_id: str) -> None:
        """A zone task row committed: let a runner in this process pick it up now."""
        for listener in self.task_listeners:
            listener(task_id)
