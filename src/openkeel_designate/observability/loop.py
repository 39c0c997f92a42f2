"""Event-loop lag: every role shares one loop, so one blocking call delays API answers, DNS
answers and pushes alike.  A task asks to wake every ``interval``; how late it wakes is the lag."""

from __future__ import annotations

import asyncio
import time

from openkeel_designate.observability import metrics

INTERVAL = 0.25


class LoopLagProbe:
    """Keeps the lag gauges current; ``max_since_scrape`` is reset by each read of it."""

    def __init__(self, interval: float = INTERVAL):
        self.interval = interval
        self.last = 0.0
        self.worst = 0.0
        self.beat = time.monotonic()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(self.interval)
            self.beat = time.monotonic()
            self.last = max(0.0, self.beat - before - self.interval)
            self.worst = max(self.worst, self.last)
            metrics.LOOP_LAG.set(self.last)

    def take_worst(self) -> float:
        """The largest lag since the previous call; the loop's current stall counts too."""
        stalled = max(0.0, time.monotonic() - self.beat - self.interval)
        worst, self.worst = max(self.worst, stalled), 0.0
        return worst
