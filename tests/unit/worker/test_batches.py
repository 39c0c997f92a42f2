"""The worker's write batching: a lone item is written at once, items arriving during a write
go into the next one together, each submitter gets its own result or the write's error, and
nobody waits forever when the writer is cancelled."""

from __future__ import annotations

import asyncio

import pytest

from openkeel_designate.worker.batches import Batcher


class SlowWrites:
    """Records each write's items; a write takes until ``release`` is set."""

    def __init__(self) -> None:
        self.writes: list[list[int]] = []
        self.release = asyncio.Event()
        self.fail_with: Exception | None = None

    async def __call__(self, items: list[int]) -> list[int]:
        self.writes.append(list(items))
        await self.release.wait()
        if self.fail_with is not None:
            raise self.fail_with
        return [item * 10 for item in items]


async def test_a_lone_item_is_written_at_once_and_gets_its_result() -> None:
    writes = SlowWrites()
    writes.release.set()
    assert await Batcher(writes).submit(4) == 40
    assert writes.writes == [[4]]


async def test_items_arriving_during_a_write_share_the_next_one() -> None:
    writes = SlowWrites()
    batcher = Batcher(writes)
    first = asyncio.create_task(batcher.submit(1))
    await asyncio.sleep(0)  # the first write has begun and waits
    later = [asyncio.create_task(batcher.submit(n)) for n in (2, 3, 4)]
    await asyncio.sleep(0)
    writes.release.set()
    assert await asyncio.gather(first, *later) == [10, 20, 30, 40]
    assert writes.writes == [[1], [2, 3, 4]]


async def test_a_failed_write_fails_each_of_its_items_and_the_next_write_runs() -> None:
    writes = SlowWrites()
    writes.fail_with = RuntimeError("database gone")
    batcher = Batcher(writes)
    failed = [asyncio.create_task(batcher.submit(n)) for n in (1, 2)]
    await asyncio.sleep(0)
    writes.release.set()
    for task in failed:
        with pytest.raises(RuntimeError, match="database gone"):
            await task
    writes.fail_with = None
    assert await batcher.submit(5) == 50


async def test_a_cancelled_writer_leaves_no_submitter_waiting() -> None:
    writes = SlowWrites()
    batcher = Batcher(writes)
    waiting = [asyncio.create_task(batcher.submit(n)) for n in (1, 2)]
    await asyncio.sleep(0)
    queued = asyncio.create_task(batcher.submit(3))
    await asyncio.sleep(0)
    batcher._writer.cancel()  # what a loop shutting down does to it
    done, pending = await asyncio.wait([*waiting, queued], timeout=1)
    assert not pending
    assert all(task.cancelled() for task in done)
