"""Cross-process wake-ups on PostgreSQL (``storage/wakeup.py``, ``Services.wake_worker``).

A write's wake-up must reach a worker listening from another process (here: another engine, so
another connection), and a burst of writes must not cost one NOTIFY each: one is in flight at a
time, and one more follows it when writes came in after it started. A connection the server
dropped fails one announcement quietly and is not handed out again.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from openkeel_designate import config
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.storage import wakeup
from openkeel_designate.storage.database import Database
from support.databases import migrated_database_url

pytestmark = pytest.mark.integration


@pytest.fixture
def url():
    with migrated_database_url("postgresql", prefix="okd-wakeup-") as made:
        yield made


async def _woken_after(url: str, writes: int, in_flight_first: bool = False,
                       local_worker_free: bool | None = None, relayed: bool = False) -> int:
    """How many wake-ups another engine's listener saw after ``writes`` back-to-back writes
    (the first one's announcement already on its way with ``in_flight_first``);
    ``local_worker_free``: the writing process runs a worker, with room or not; ``relayed``:
    the writes come from an API process of ``[service:api] workers``, whose wake-ups its
    parent (the process with that worker) takes, as ``Runtime.wake_here`` does."""
    woken: list[float] = []
    listening = Database(url)
    writing = Database(url)
    listener = wakeup.Listener(listening, lambda: woken.append(asyncio.get_running_loop().time()))
    try:
        assert await listener.start()
        svc = Services(conf=config.load([]), db=writing, policy=Policy(config.load([])))
        local: list[int] = []
        if local_worker_free is not None:
            svc.wake_listeners.append(lambda: local.append(1))
            svc.local_worker_free = lambda: local_worker_free
        writer = svc
        if relayed:
            writer = Services(conf=config.load([]), db=writing, policy=Policy(config.load([])),
                              wakes_relayed=True)
            writer.wake_listeners.append(svc.wake_worker)
        for index in range(writes):
            writer.wake_worker()
            if index == 0 and in_flight_first:
                await asyncio.sleep(0)  # the announcement has started: it waits for its connection
        for _ in range(200):  # until the last announcement is out and has had time to arrive
            if svc._announcing is None and woken:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        assert len(local) == (writes if local_worker_free is not None else 0)
        return len(woken)
    finally:
        await listener.stop()
        await listening.dispose()
        await writing.dispose()


async def test_a_write_wakes_a_listener_of_another_process(url: str) -> None:
    assert await _woken_after(url, 1) == 1


async def test_a_write_wakes_only_the_local_worker_when_it_has_room(url: str) -> None:
    """A worker of the writing process claims the zone at once: other processes hear
    nothing. A worker with every push slot taken leaves the zone to them."""
    assert await _woken_after(url, 3, local_worker_free=True) == 0
    assert await _woken_after(url, 1, local_worker_free=False) == 1


async def test_an_api_process_leaves_the_announcement_to_its_parent(url: str) -> None:
    """An API process of ``[service:api] workers`` cannot see its parent's worker: it only
    relays its wake-ups, and the parent announces when its worker has no room, or has none."""
    assert await _woken_after(url, 3, local_worker_free=True, relayed=True) == 0
    assert await _woken_after(url, 1, local_worker_free=False, relayed=True) == 1
    assert await _woken_after(url, 1, relayed=True) == 1


async def test_writes_before_the_announcement_started_share_it(url: str) -> None:
    assert await _woken_after(url, 50) == 1


async def test_writes_while_one_is_in_flight_cost_one_more(url: str) -> None:
    """The announcement in flight may have gone before their commits: exactly one follows it."""
    assert await _woken_after(url, 50, in_flight_first=True) == 2


async def test_a_dropped_connection_fails_one_announcement_and_leaves_the_pool(url: str) -> None:
    db, killer = Database(url, pool_size=1, max_overflow=0), Database(url)
    woken: list[int] = []
    listening = Database(url)
    listener = wakeup.Listener(listening, lambda: woken.append(1))
    try:
        assert await listener.start()
        [[(victim,)]] = await db.point_reads([(text("SELECT pg_backend_pid()"), {})])
        await killer.point_reads([(text(f"SELECT pg_terminate_backend({int(victim)})"), {})])
        # At once: the pool pings only connections idle for a second, so the dead one is used.
        await wakeup.announce(db)  # a hint: no exception
        await wakeup.announce(db)  # on a new connection
        for _ in range(100):
            if woken:
                break
            await asyncio.sleep(0.01)
        assert woken
        [[(now,)]] = await db.point_reads([(text("SELECT pg_backend_pid()"), {})])
        assert now != victim
    finally:
        await listener.stop()
        for each in (db, killer, listening):
            await each.dispose()
