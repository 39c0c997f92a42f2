"""The worker's claim window: a stream of commits is claimed together, a lone change at once."""

from __future__ import annotations

import time

import pytest

from openkeel_designate import config
from openkeel_designate.worker import service
from openkeel_designate.worker.service import Worker


@pytest.fixture
def worker() -> Worker:
    return Worker(config.load([]), db=None)  # type: ignore[arg-type]  # the window reads no table


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)
    monkeypatch.setattr(service.asyncio, "sleep", record)
    return waits


async def test_an_idle_worker_claims_at_once(worker: Worker, slept: list[float]) -> None:
    assert await worker._coalesce() is False
    assert slept == []


async def test_a_claim_just_made_holds_the_next_for_the_rest_of_the_window(
        worker: Worker, slept: list[float]) -> None:
    worker._last_claim = time.monotonic()
    assert await worker._coalesce() is True
    assert len(slept) == 1 and 0 < slept[0] <= service.COALESCE_SECONDS


async def test_a_claim_older_than_the_window_holds_nothing(worker: Worker,
                                                           slept: list[float]) -> None:
    worker._last_claim = time.monotonic() - 2 * service.COALESCE_SECONDS
    assert await worker._coalesce() is False
    assert slept == []
