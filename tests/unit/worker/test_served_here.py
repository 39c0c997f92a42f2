"""The built-in nameserver of the same process tells the worker when it serves a new version
of a zone, so the worker's SOA poll goes at once instead of at its next back-off."""

from __future__ import annotations

import asyncio
import time

import dns.zone
import pytest

from openkeel_designate import config
from openkeel_designate.nameserver.zones import ZoneStore
from openkeel_designate.worker.service import Worker

ZONE_TEXT = """
@ 300 IN SOA ns1.example.org. hostmaster.example.org. 7 3600 600 86400 300
@ 300 IN NS ns1.example.org.
www 300 IN A 192.0.2.1
"""


@pytest.fixture
def worker() -> Worker:
    return Worker(config.load([]), db=None)  # type: ignore[arg-type]  # no table is read


def zone(origin: str) -> dns.zone.Zone:
    return dns.zone.from_text(ZONE_TEXT, origin=origin, relativize=False)


async def test_the_store_names_each_zone_it_starts_or_stops_serving() -> None:
    store = ZoneStore(None)
    seen: list[str] = []
    store.changed_listeners.append(seen.append)
    await store.put(zone("Example.ORG."))
    assert await store.drop(dns.zone.from_text(ZONE_TEXT, origin="example.org.").origin)
    assert not await store.drop(zone("other.org.").origin)  # not served: nothing changed
    assert [name.lower() for name in seen] == ["example.org.", "example.org."]  # any case


async def test_a_failing_listener_does_not_stop_the_zone_being_served() -> None:
    store = ZoneStore(None)

    def broken(_name: str) -> None:
        raise RuntimeError("listener bug")

    seen: list[str] = []
    store.changed_listeners += [broken, seen.append]
    served = await store.put(zone("example.org."))
    assert store.get(served.origin) is served
    assert seen == ["example.org."]


async def test_a_wait_ends_when_the_zone_is_served_here(worker: Worker) -> None:
    worker._served_here["example.org."] = asyncio.Event()
    asyncio.get_running_loop().call_later(0.01, worker.served_here, "EXAMPLE.org.")
    started = time.monotonic()
    await worker._until_served_here("example.org.", 5.0)
    assert time.monotonic() - started < 2.0  # woken by the nameserver, not by the 5 s timeout
    assert not worker._served_here["example.org."].is_set()  # the next wait waits again


async def test_a_zone_served_before_the_wait_is_not_missed(worker: Worker) -> None:
    worker._served_here["example.org."] = asyncio.Event()
    worker.served_here("example.org.")
    started = time.monotonic()
    await worker._until_served_here("example.org.", 5.0)
    assert time.monotonic() - started < 2.0


async def test_without_a_push_in_flight_the_hint_is_ignored_and_waits_run_out(worker: Worker) -> None:
    worker.served_here("example.org.")  # no push of it: nothing to wake, nothing kept
    assert worker._served_here == {}
    started = time.monotonic()
    await worker._until_served_here("example.org.", 0.05)
    assert time.monotonic() - started >= 0.045
    worker._served_here["example.org."] = asyncio.Event()
    started = time.monotonic()
    await worker._until_served_here("example.org.", 0.05)  # no hint: the back-off stands
    assert time.monotonic() - started >= 0.045
