"""SQLite writers of one process take turns: in arrival order, except that a writer going
``ahead`` (the worker's) passes the waiting ones; a cancelled waiter neither keeps nor loses
the turn for the others."""

from __future__ import annotations

import asyncio

from openkeel_designate.storage.write_turn import LocalTurns


async def _writer(turns: LocalTurns, name: str, order: list[str], ahead: bool = False) -> None:
    await turns.acquire(ahead)
    order.append(name)
    await asyncio.sleep(0)
    turns.release()


async def test_waiting_writers_go_in_arrival_order_and_ahead_ones_first() -> None:
    turns, order = LocalTurns(), []
    await turns.acquire()
    tasks = [asyncio.create_task(_writer(turns, "api-1", order)),
             asyncio.create_task(_writer(turns, "api-2", order)),
             asyncio.create_task(_writer(turns, "worker", order, ahead=True))]
    await asyncio.sleep(0)
    turns.release()
    await asyncio.gather(*tasks)
    assert order == ["worker", "api-1", "api-2"]


async def test_a_cancelled_waiter_does_not_block_the_turn() -> None:
    turns, order = LocalTurns(), []
    await turns.acquire()
    gone = asyncio.create_task(_writer(turns, "gone", order))
    after = asyncio.create_task(_writer(turns, "after", order))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    turns.release()
    await asyncio.wait_for(after, 1)
    assert order == ["after"]
    await turns.acquire()  # free again: taken at once
    turns.release()


async def test_a_waiter_cancelled_as_it_was_handed_the_turn_passes_it_on() -> None:
    turns, order = LocalTurns(), []
    await turns.acquire()
    handed = asyncio.create_task(_writer(turns, "handed", order))
    after = asyncio.create_task(_writer(turns, "after", order))
    await asyncio.sleep(0)
    turns.release()  # the turn goes to "handed", which has not run yet
    handed.cancel()
    await asyncio.wait_for(after, 1)
    assert order == ["after"]
