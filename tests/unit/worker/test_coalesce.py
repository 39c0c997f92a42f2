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


def claimed(worker: Worker, *seconds_ago: float) -> None:
    now = time.monotonic()
    for ago in seconds_ago:
        worker._last_claims.append(now - ago)


def test_an_idle_worker_claims_at_once(worker: Worker) -> None:
    assert worker._window_left() <= 0


def test_a_change_soon_after_one_claim_is_claimed_at_once(worker: Worker) -> None:
    """A tenant's next change, moments after the last was claimed, is not a stream."""
    claimed(worker, 0.01)
    assert worker._window_left() <= 0


def test_a_stream_of_claims_holds_the_next_for_the_rest_of_the_window(worker: Worker) -> None:
    claimed(worker, *[0.02] * (service.STREAM_CLAIMS - 1), 0.01)
    assert service.COALESCE_SECONDS - 0.03 < worker._window_left() <= service.COALESCE_SECONDS


def test_claims_older_than_the_window_hold_nothing(worker: Worker) -> None:
    claimed(worker, *[2 * service.COALESCE_SECONDS] * service.STREAM_CLAIMS)
    assert worker._window_left() <= 0
