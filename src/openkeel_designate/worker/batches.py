"""Writes of many pushes in one transaction: whatever was submitted while the last one ran.

A burst of creates finishes dozens of pushes within milliseconds, and each used to write its
end (ACTIVE, the propagation rows) in a transaction of its own. On SQLite every write waits its
turn behind the API's, so one turn per push made the worker trail a burst by seconds; on the
server databases it is one commit per zone. Here the first submission starts a write at once (a
lone push is not delayed), and what arrives while it waits or runs goes into the next one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class Batcher(Generic[Item, Result]):
    """``submit(item)`` returns ``write(items)``'s result for that item; one write at a time."""

    def __init__(self, write: Callable[[list[Item]], Awaitable[Sequence[Result]]]):
        self._write = write
        self._queue: list[tuple[Item, asyncio.Future]] = []
        self._writer: asyncio.Task | None = None

    async def submit(self, item: Item) -> Result:
        future = asyncio.get_running_loop().create_future()
        self._queue.append((item, future))
        if self._writer is None:
            self._writer = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        batch: list[tuple[Item, asyncio.Future]] = []
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                await self._write_batch(batch)
        finally:
            self._writer = None
            left, self._queue = batch + self._queue, []
            for _, future in left:  # cancelled mid-write (shutdown): nobody waits forever
                if not future.done():
                    future.cancel()

    async def _write_batch(self, batch: list[tuple[Item, asyncio.Future]]) -> None:
        try:
            results = await self._write([item for item, _ in batch])
        except Exception as exc:  # each submitter handles the failure as its own
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)
