"""Rendered zone transfers kept per (zone, SOA), so each version of a zone is rendered once.

Every nameserver of a pool transfers every new serial of a zone, and a large zone costs seconds
to read and render (100,000 records: the SQL join, building the records, making them coherent,
rendering each RR); sending the finished messages costs milliseconds.  This keeps the answer
sections of finished transfers — the RRs split into messages, without header, question or
TSIG — and ``pack.assemble`` puts a header and the asker's question (and its signature, per
message, for a signed transfer) around them for each asker.

Never stale: the key holds the zone id and the SOA's full rdata text (serial included) as
read from the database for *this* transfer, and every change to what a zone serves gets a
new serial before it is announced; the rendered sections of a transfer are stored under the
SOA *they* were rendered with, not the one read first.  An IXFR's difference between two
serials never changes once both exist.  Bounded by bytes (least recently used first out).

A transfer larger than that bound (a signed zone of 100,000 records is ~40 MB: four times the
records, each signature ~100 bytes) goes to a slot of its own instead, one transfer at most
(``large_bytes``), kept only ``large_seconds`` after its last use.  Why: such a transfer costs
seconds to render even with every signature kept (reading the zone, shipping it to the signing
worker and back, rendering 400,000 RRs), and it is asked for in a burst — every nameserver of the
pool after the NOTIFY, the built-in nameserver among them, a retry after a timeout, an operator's
``dig`` — so it is worth keeping through the burst; kept for good, one large zone would hold tens
of MB of an otherwise small idle process, which is what sizing the main bound for it would do.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

Sections = tuple[tuple[int, bytes], ...]  # per message: (RR count, the RRs' wire)


class TransferCache:
    """Least-recently-used map of transfer keys to rendered answer sections, by total bytes."""

    def __init__(self, max_bytes: int, large_bytes: int = 0, large_seconds: float = 0.0,
                 clock: Callable[[], float] = time.monotonic):
        self.max_bytes = max_bytes
        self.size = 0
        self._entries: OrderedDict[Hashable, tuple[Sections, int]] = OrderedDict()
        self.large_bytes = large_bytes
        self.large_seconds = large_seconds
        self._clock = clock
        self._large: tuple[Hashable, Sections, int] | None = None
        self._large_until = 0.0
        self._timer: asyncio.TimerHandle | None = None

    @property
    def large_size(self) -> int:
        """Bytes held by the large-transfer slot (0: empty)."""
        return self._large[2] if self._large is not None else 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> Sections | None:
        entry = self._entries.get(key)
        if entry is None:
            return self._get_large(key)
        self._entries.move_to_end(key)
        return entry[0]

    def _get_large(self, key: Hashable) -> Sections | None:
        if self._large is None or self._large[0] != key:
            return None
        if self._clock() >= self._large_until:
            self._drop_large()
            return None
        self._large_until = self._clock() + self.large_seconds  # in use: kept on
        return self._large[1]

    def put(self, key: Hashable, sections: Sections) -> None:
        """Keep ``sections`` under ``key``, evicting the least recently used to make room."""
        size = sum(len(body) for _, body in sections) + 64 * len(sections)
        self.discard(key)
        if size > self.max_bytes:
            if size <= self.large_bytes and self.large_seconds > 0:
                self._keep_large(key, sections, size)
            return
        while self.size + size > self.max_bytes:
            _, (_, evicted) = self._entries.popitem(last=False)
            self.size -= evicted
        self._entries[key] = (sections, size)
        self.size += size

    def discard(self, key: Hashable) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.size -= entry[1]
        if self._large is not None and self._large[0] == key:
            self._drop_large()

    def clear(self) -> None:
        self._entries.clear()
        self.size = 0
        self._drop_large()

    def _keep_large(self, key: Hashable, sections: Sections, size: int) -> None:
        """The slot holds this transfer now (the one it held is let go), until it has not
        been asked for during ``large_seconds``; dropped by a timer on the running loop, so
        an idle process lets it go without another transfer coming."""
        self._drop_large()
        self._large = (key, sections, size)
        self._large_until = self._clock() + self.large_seconds
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a plain call): dropped when next looked at once expired
        self._timer = loop.call_later(self.large_seconds, self._expire)

    def _expire(self) -> None:
        self._timer = None
        if self._large is None:
            return
        left = self._large_until - self._clock()
        if left > 0:  # used meanwhile: look again when its time is up
            self._timer = asyncio.get_running_loop().call_later(left, self._expire)
        else:
            self._drop_large()

    def _drop_large(self) -> None:
        self._large = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
