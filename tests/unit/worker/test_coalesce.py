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


def claimed(worker: Worker, *seconds_ago: float, zones: int = 1, changed: int | None = None
            ) -> None:
    """Claims made that long ago, each of ``zones`` zones, ``changed`` of them with changes
    (the rest new zones; all of them with changes unless told)."""
    now = time.monotonic()
    for ago in seconds_ago:
        worker._last_claims.append((now - ago, zones, zones if changed is None else changed))


def test_an_idle_worker_claims_at_once(worker: Worker) -> None:
    assert worker._window_left() <= 0


def test_a_change_soon_after_one_claim_is_claimed_at_once(worker: Worker) -> None:
    """A tenant's next change, moments after the last was claimed, is not a stream."""
    claimed(worker, 0.01)
    assert worker._window_left() <= 0


def test_a_stream_of_claims_holds_the_next_for_the_rest_of_the_window(worker: Worker) -> None:
    """Claims follow each other while the last one's push still runs: commits come faster
    than pushes end, and are gathered."""
    claimed(worker, *[0.02] * (service.STREAM_CLAIMS - 1), 0.01)
    worker._running.add("zone-being-pushed")
    assert service.COALESCE_SECONDS - 0.03 < worker._window_left() <= service.COALESCE_SECONDS


def test_claims_whose_pushes_all_ended_hold_nothing(worker: Worker) -> None:
    """A tenant that waits for each change to go ACTIVE before the next: however many of its
    changes the window saw, the next has nothing to be gathered with."""
    claimed(worker, *[0.05] * service.STREAM_CLAIMS, 0.02)
    assert not worker._running
    assert worker._window_left() <= 0


def test_a_claim_of_many_zones_holds_the_next_for_the_rest_of_the_window(worker: Worker) -> None:
    """One claim took many zones, one with changes: a second would push it twice."""
    claimed(worker, 0.01, zones=service.STREAM_ZONES, changed=1)
    assert service.COALESCE_SECONDS - 0.02 < worker._window_left() <= service.COALESCE_SECONDS


def test_many_changed_zones_hold_the_next_claim_for_the_longer_window(worker: Worker) -> None:
    """Ten tenants writing their zones: their pushes are gathered for longer."""
    claimed(worker, 0.01, zones=service.STREAM_ZONES, changed=service.STREAM_ZONES)
    assert (service.BUSY_COALESCE_SECONDS - 0.02 < worker._window_left()
            <= service.BUSY_COALESCE_SECONDS)
    worker._last_claims.clear()
    claimed(worker, service.COALESCE_SECONDS + 0.02, zones=service.STREAM_ZONES,
            changed=service.STREAM_ZONES)  # past the short window, within the long one
    assert 0 < worker._window_left() < service.BUSY_COALESCE_SECONDS - service.COALESCE_SECONDS


def test_a_few_changed_zones_among_new_ones_keep_the_usual_window(worker: Worker) -> None:
    claimed(worker, 0.01, zones=2 * service.STREAM_ZONES, changed=service.STREAM_ZONES - 1)
    assert service.COALESCE_SECONDS - 0.02 < worker._window_left() <= service.COALESCE_SECONDS


def test_a_burst_of_new_zones_is_claimed_in_the_shortest_window(worker: Worker) -> None:
    """Each new zone is pushed once whatever the window: waiting gathers nothing for it."""
    assert service.NEW_ZONES_COALESCE_SECONDS < service.COALESCE_SECONDS
    claimed(worker, 0.01, zones=2 * service.STREAM_ZONES, changed=0)
    assert (service.NEW_ZONES_COALESCE_SECONDS - 0.02 < worker._window_left()
            <= service.NEW_ZONES_COALESCE_SECONDS)
    worker._last_claims.clear()
    claimed(worker, service.NEW_ZONES_COALESCE_SECONDS + 0.01, zones=2 * service.STREAM_ZONES,
            changed=0)  # past the new zones' window, within the usual one
    assert worker._window_left() <= 0


def test_a_claim_of_a_few_zones_leaves_the_second_claim(worker: Worker) -> None:
    claimed(worker, 0.01, zones=service.STREAM_ZONES - 1)
    assert worker._window_left() <= 0


def test_a_push_overtaken_by_a_newer_change_holds_the_second_claim(worker: Worker) -> None:
    """A stream into one zone: its change came before the push of the last one ended."""
    claimed(worker, 0.02)
    worker._overtaken_at = time.monotonic() - 0.01
    assert service.COALESCE_SECONDS - 0.03 < worker._window_left() <= service.COALESCE_SECONDS


def test_an_overtaken_push_before_the_window_holds_nothing(worker: Worker) -> None:
    claimed(worker, 0.02)
    worker._overtaken_at = time.monotonic() - 2 * service.COALESCE_SECONDS
    assert worker._window_left() <= 0


def test_claims_older_than_the_window_hold_nothing(worker: Worker) -> None:
    claimed(worker, *[2 * service.COALESCE_SECONDS] * service.STREAM_CLAIMS,
            zones=service.STREAM_ZONES)
    assert worker._window_left() <= 0


def test_the_first_poll_waits_for_most_of_the_typical_confirmation_time() -> None:
    """Pushes confirmed after ~20 ms make the next push's first poll wait ~14 ms; a pool not
    seen yet is polled at once; a few slow pushes (a loaded host, a large zone) do not move it,
    and nothing pushes the first poll past the cap."""
    assert service.first_wait([]) == 0.0
    assert service.first_wait([0.02, 0.018, 0.022]) == pytest.approx(0.014)
    assert service.first_wait([0.02, 0.018, 0.022, 0.1, 30.0]) == pytest.approx(0.0154)
    assert service.first_wait([0.2, 0.3, 30.0]) == service.MAX_FIRST_WAIT


def test_a_push_confirmed_at_its_first_poll_counts_as_shorter() -> None:
    """Served before the first poll: the next first poll comes earlier, not at the same time."""
    assert service.confirmation_time(0.02, polls=1) < 0.02
    assert service.confirmation_time(0.02, polls=3) == 0.02
