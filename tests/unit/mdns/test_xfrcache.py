"""The transfer cache's bound: by bytes, least recently used out first."""

from __future__ import annotations

from openkeel_designate.mdns.xfrcache import TransferCache


def sections(size: int) -> tuple[tuple[int, bytes], ...]:
    return ((1, b"x" * size),)


def test_least_recently_used_leaves_first() -> None:
    cache = TransferCache(max_bytes=3 * (1000 + 64))
    for key in ("a", "b", "c"):
        cache.put(key, sections(1000))
    assert cache.get("a") is not None  # "b" is now the oldest
    cache.put("d", sections(1000))
    assert cache.get("b") is None
    assert [cache.get(k) is not None for k in ("a", "c", "d")] == [True, True, True]
    assert cache.size <= cache.max_bytes


def test_too_big_is_not_kept_and_replacing_frees_the_old_size() -> None:
    cache = TransferCache(max_bytes=2000)
    cache.put("big", sections(5000))
    assert cache.get("big") is None and cache.size == 0
    cache.put("k", sections(1000))
    cache.put("k", sections(500))
    assert cache.size == 500 + 64 and len(cache) == 1
    cache.clear()
    assert cache.size == 0 and cache.get("k") is None


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_one_transfer_over_the_bound_is_kept_alone_while_it_is_asked_for() -> None:
    clock = Clock()
    cache = TransferCache(max_bytes=2000, large_bytes=20_000, large_seconds=60, clock=clock)
    cache.put("signed", sections(10_000))
    assert cache.size == 0 and cache.large_size == 10_000 + 64  # not in the main bound
    clock.now += 50
    assert cache.get("signed") is not None  # asked for: kept 60 s from now
    clock.now += 50
    assert cache.get("signed") is not None
    cache.put("other", sections(12_000))  # the slot holds one transfer: the newest
    assert cache.get("signed") is None and cache.get("other") is not None
    cache.put("huge", sections(30_000))  # over large_bytes: sent, never kept
    assert cache.get("huge") is None and cache.get("other") is not None
    clock.now += 61
    assert cache.get("other") is None and cache.large_size == 0


def test_the_large_transfer_is_let_go_by_a_timer_when_idle() -> None:
    """The loop's timer looks again after ``large_seconds`` (loop time); the cache's clock
    (fake here) decides whether the transfer was used meanwhile."""
    import asyncio

    async def scenario() -> tuple[int, int, int]:
        clock = Clock()
        cache = TransferCache(max_bytes=2000, large_bytes=20_000, large_seconds=0.01,
                              clock=clock)
        cache.put("signed", sections(10_000))
        held = cache.large_size
        await asyncio.sleep(0.05)  # the timer ran: by the cache's clock no time has passed
        still = cache.large_size
        clock.now += 1
        await asyncio.sleep(0.05)  # it ran again, now past the time: nobody asks, let go
        return held, still, cache.large_size

    held, still, after = asyncio.run(scenario())
    assert held > 0 and still == held and after == 0
