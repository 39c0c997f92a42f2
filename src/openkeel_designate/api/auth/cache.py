"""A bounded, time-limited memory of token validations (valid and invalid alike).

Why invalid results too: a client retrying with a bad token would otherwise cost one Keystone
round trip per request.  Why bounded: tokens are attacker-chosen strings; an unbounded map is a
memory leak on demand.  Keys are SHA-256 digests so raw tokens are not kept as keys.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from typing import Any

#: A remembered validation: the token body, or None for "Keystone said invalid".
Validation = dict[str, Any] | None


def token_key(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


class TokenCache:
    """LRU by insertion with a per-entry deadline; ``ttl <= 0`` turns it off."""

    def __init__(self, ttl: float, max_entries: int):
        self.ttl = ttl
        self.max_entries = max(1, max_entries)
        self._entries: OrderedDict[str, tuple[float, Validation]] = OrderedDict()

    def get(self, key: str) -> tuple[bool, Validation]:
        """``(found, validation)``; an entry past its deadline is dropped and not found."""
        entry = self._entries.get(key)
        if entry is None:
            return False, None
        deadline, value = entry
        if time.monotonic() >= deadline:
            del self._entries[key]
            return False, None
        return True, value

    def put(self, key: str, value: Validation, ttl: float | None = None) -> None:
        """Remember ``value`` for ``ttl`` (at most the configured time)."""
        lifetime = self.ttl if ttl is None else min(ttl, self.ttl)
        if lifetime <= 0:
            self._entries.pop(key, None)
            return
        self._entries[key] = (time.monotonic() + lifetime, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
