"""A short-lived memory of which zone a name is, so a query flood does not become an SQL flood.

mdns finds the zone of every query by looking names up label by label (``www.a.example.``,
``a.example.`` …); without this, each of those is a database round trip, and a flood of
queries for names under a few zones — or under none — turns into many times as many SQL
queries, all competing with the API and the worker for the same connections.  Here each
(name, pool) lookup is remembered, found or not, for ``ttl`` seconds, and concurrent lookups of
the same name share one query.

Only *which zone* is remembered (``ZoneHead``: id, name, pool, type), never what it serves: the
SOA and every record are still read from the database per query, so a new serial is answered
the moment it is committed.  What may be stale is a zone's existence: a zone created or deleted
by this process clears the memory at once (``invalidate``, wired to central's change hook);
one changed by another process is seen within ``ttl`` — the worker tells the nameservers again
every second until they serve a change, so a short ``ttl`` costs at most a retry.  A lookup
that was under way while the memory was cleared is not remembered (it may have read the old
state).  The table is bounded by ``max_entries``; the oldest entries make room.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from openkeel_designate.dnswire.zonedata import ZoneHead

MAX_ENTRIES = 10000

Key = tuple[str, str | None]  # (lower-case absolute name, pool id or None)


class ZoneCache:
    def __init__(self, ttl: float, *, max_entries: int = MAX_ENTRIES,
                 clock: Callable[[], float] = time.monotonic):
        self.ttl = ttl
        self.max_entries = max_entries
        self.clock = clock
        self._entries: dict[Key, tuple[float, ZoneHead | None]] = {}
        self._loading: dict[Key, asyncio.Future] = {}
        self._generation = 0

    def invalidate(self) -> None:
        """Forget everything, including lookups under way (their answers are not kept)."""
        self._generation += 1
        self._entries.clear()
        self._loading.clear()

    async def find(self, name: str, pool_id: str | None,
                   load: Callable[[], Awaitable[ZoneHead | None]]) -> ZoneHead | None:
        """The remembered zone of ``name``, else ``load()``'s answer (shared with every
        concurrent caller asking the same)."""
        key = (name.lower(), pool_id)
        entry = self._entries.get(key)
        if entry is not None and entry[0] > self.clock():
            return entry[1]
        loading = self._loading.get(key)
        if loading is None:
            loading = asyncio.ensure_future(load())
            self._loading[key] = loading
            generation = self._generation
            loading.add_done_callback(lambda done: self._loaded(key, done, generation))
        # Shielded: one caller giving up (its task cancelled) must not cancel the others' answer.
        return await asyncio.shield(loading)

    def _loaded(self, key: Key, done: asyncio.Future, generation: int) -> None:
        if self._loading.get(key) is done:
            del self._loading[key]
        if done.cancelled() or done.exception() is not None or generation != self._generation:
            return  # a failure is not remembered; nor is an answer read before invalidate()
        while len(self._entries) >= self.max_entries:
            del self._entries[next(iter(self._entries))]
        self._entries.pop(key, None)
        self._entries[key] = (self.clock() + self.ttl, done.result())
