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
