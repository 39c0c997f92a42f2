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
serials never changes once both exist.  Bounded by bytes (least recently used first out); a
transfer larger than the whole bound is sent but not kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

Sections = tuple[tuple[int, bytes], ...]  # per message: (RR count, the RRs' wire)


class TransferCache:
    """Least-recently-used map of transfer keys to rendered answer sections, by total bytes."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.size = 0
        self._entries: OrderedDict[Hashable, tuple[Sections, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> Sections | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: Hashable, sections: Sections) -> None:
        """Keep ``sections`` under ``key``, evicting the least recently used to make room."""
        size = sum(len(body) for _, body in sections) + 64 * len(sections)
        self.discard(key)
        if size > self.max_bytes:
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

    def clear(self) -> None:
        self._entries.clear()
        self.size = 0
