"""A stop lets a periodic job in flight finish (a job cut mid-statement leaves a database
connection the pool cannot reset), and cancels only a job that outlives the grace."""

from __future__ import annotations

import asyncio

from openkeel_designate.producer.service import Producer

async def _producer_with(job_seconds: float) -> tuple[Producer, list[str]]:
    events: list[str] = []
    producer = Producer(svc=None, owner="test", roles=[])  # type: ignore[arg-type]

    async def job() -> None:
        events.append("started")
        await asyncio.sleep(job_seconds)
        events.append("finished")

    producer._every(3600, job, None)
    await asyncio.sleep(0.05)  # the first run has begun
    return producer, events

def test_a_job_in_flight_finishes_before_the_loop_ends() -> None:
    async def scenario() -> list[str]:
        producer, events = await _producer_with(0.3)
        producer._stopping.set()
        await asyncio.wait(producer._tasks, timeout=5)
        assert all(task.done() and not task.cancelled() for task in producer._tasks)
        return events

    assert asyncio.run(scenario()) == ["started", "finished"]

def test_a_job_outliving_the_grace_is_cancelled() -> None:
    async def scenario() -> tuple[list[str], bool]:
        producer, events = await _producer_with(60)
        loop = asyncio.get_running_loop()
        begun = loop.time()
        await producer.stop(grace=0.2)  # its STOPPED heartbeat fails without services: logged
        return events, loop.time() - begun < 5 and all(t.cancelled() for t in producer._tasks)

    events, cancelled_quickly = asyncio.run(scenario())
    assert events == ["started"]
    assert cancelled_quickly
