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


def test_an_idle_worker_claims_at_once(worker: Worker) -> None:
    assert worker._window_left() <= 0


def test_a_claim_just_made_holds_the_next_for_the_rest_of_the_window(worker: Worker) -> None:
    worker._last_claim = time.monotonic()
    assert 0 < worker._window_left() <= service.COALESCE_SECONDS


def test_a_claim_older_than_the_window_holds_nothing(worker: Worker) -> None:
    worker._last_claim = time.monotonic() - 2 * service.COALESCE_SECONDS
    assert worker._window_left() <= 0
