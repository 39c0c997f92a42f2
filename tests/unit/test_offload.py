"""The offload pool: work runs in another process, and jobs with the same affinity in the same
one (where a worker may keep a cache for them, as mdns keeps a zone's signatures)."""

from __future__ import annotations

import os

import pytest

from openkeel_designate import offload


@pytest.fixture
def two_workers(monkeypatch):
    offload.shutdown()
    monkeypatch.setattr(offload, "WORKERS", 2)
    yield
    offload.shutdown()  # the next user starts a pool of the machine's size


def keys_on_both_slots() -> tuple[str, str]:
    first = "zone-0"
    other = next(f"zone-{i}" for i in range(1, 100)
                 if offload._slot(f"zone-{i}") != offload._slot(first))
    return first, other


async def test_jobs_of_one_affinity_share_a_worker_and_others_may_not(two_workers):
    first, other = keys_on_both_slots()
    pid = await offload.run(os.getpid, affinity=first)
    assert pid != os.getpid()
    assert {await offload.run(os.getpid, affinity=first) for _ in range(3)} == {pid}
    assert await offload.run(os.getpid, affinity=other) not in (pid, os.getpid())


async def test_a_job_raises_here_what_it_raised_there():
    with pytest.raises(ValueError, match="invalid literal"):
        await offload.run(int, "not a number")
