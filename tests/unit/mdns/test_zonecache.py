"""mdns's memory of name → zone (``mdns/zonecache.py``): expiry, sharing, invalidation, bounds."""

from __future__ import annotations

import asyncio

import pytest

from openkeel_designate.dnswire.zonedata import ZoneHead
from openkeel_designate.mdns.zonecache import ZoneCache

HEAD = ZoneHead(id="z1", name="example.org.", pool_id="p", serial=1, ttl=300)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Source:
    """Counts lookups; ``gate`` (when set) holds each lookup until released."""

    def __init__(self, answer: ZoneHead | None = HEAD) -> None:
        self.answer = answer
        self.lookups = 0
        self.gate: asyncio.Event | None = None

    async def find(self) -> ZoneHead | None:
        self.lookups += 1
        if self.gate is not None:
            await self.gate.wait()
        return self.answer


async def test_found_and_not_found_are_both_remembered_for_the_ttl() -> None:
    clock = Clock()
    cache = ZoneCache(1.0, clock=clock)
    found, missing = Source(), Source(None)
    for _ in range(5):
        assert await cache.find("example.org.", "p", found.find) == HEAD
        assert await cache.find("nowhere.example.", "p", missing.find) is None
    assert (found.lookups, missing.lookups) == (1, 1)
    clock.now += 1.5
    assert await cache.find("EXAMPLE.org.", "p", found.find) == HEAD  # names fold case
    assert found.lookups == 2


async def test_pools_are_kept_apart() -> None:
    cache = ZoneCache(10.0, clock=Clock())
    source = Source()
    await cache.find("example.org.", "p", source.find)
    await cache.find("example.org.", "other", source.find)
    await cache.find("example.org.", None, source.find)
    assert source.lookups == 3


async def test_concurrent_lookups_of_one_name_share_one_read() -> None:
    cache = ZoneCache(10.0, clock=Clock())
    source = Source()
    source.gate = asyncio.Event()
    waiting = [asyncio.create_task(cache.find("example.org.", "p", source.find))
               for _ in range(50)]
    await asyncio.sleep(0)
    source.gate.set()
    assert await asyncio.gather(*waiting) == [HEAD] * 50
    assert source.lookups == 1


async def test_invalidate_forgets_and_drops_a_read_under_way() -> None:
    cache = ZoneCache(10.0, clock=Clock())
    old = Source(None)
    old.gate = asyncio.Event()
    reading = asyncio.create_task(cache.find("example.org.", "p", old.find))
    await asyncio.sleep(0)
    cache.invalidate()  # e.g. the zone was created while that read was under way
    old.gate.set()
    assert await reading is None  # its caller gets what it read...
    new = Source()
    assert await cache.find("example.org.", "p", new.find) == HEAD  # ...but it is not kept
    assert new.lookups == 1
    cache.invalidate()
    assert await cache.find("example.org.", "p", new.find) == HEAD
    assert new.lookups == 2


async def test_a_failed_read_is_not_remembered() -> None:
    cache = ZoneCache(10.0, clock=Clock())
    calls = 0

    async def failing() -> ZoneHead | None:
        nonlocal calls
        calls += 1
        raise ConnectionError("database down")

    for _ in range(2):
        with pytest.raises(ConnectionError):
            await cache.find("example.org.", "p", failing)
    assert calls == 2
    assert await cache.find("example.org.", "p", Source().find) == HEAD


async def test_one_caller_giving_up_does_not_cancel_the_others() -> None:
    cache = ZoneCache(10.0, clock=Clock())
    source = Source()
    source.gate = asyncio.Event()
    first = asyncio.create_task(cache.find("example.org.", "p", source.find))
    second = asyncio.create_task(cache.find("example.org.", "p", source.find))
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.sleep(0)
    source.gate.set()
    assert await second == HEAD
    assert first.cancelled()


async def test_the_table_is_bounded() -> None:
    cache = ZoneCache(10.0, max_entries=100, clock=Clock())
    source = Source(None)
    for i in range(1000):
        await cache.find(f"flood-{i}.example.", "p", source.find)
    assert len(cache._entries) == 100
