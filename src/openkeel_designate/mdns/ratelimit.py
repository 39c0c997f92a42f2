"""Per-client query rate limiting for the UDP listeners: one token bucket per source address.

Why before parsing: the point is that a flood costs the shared event loop almost nothing, so the
decision uses only the datagram's source address — a dict lookup and a little arithmetic, no
DNS parsing, no database.  Why per source and only UDP: a UDP source address can be forged, so a
limited address gets silence (it cannot be used to reflect answers at a victim) while TCP, where
the handshake proves the address, is never limited and stays the way a limited client still
gets its answers.  In the spirit of BIND's response rate limiting, but decided on the query
because here the cost to avoid is answering at all.

A client is an IPv4 address, or an IPv6 /64 (one host usually owns a whole /64 and can pick
any address in it).  Exempt networks (a pool's own nameservers, the masters) are never limited.
The table of clients is bounded: past ``max_clients`` the longest-known entries are forgotten,
so a flood of forged sources costs bounded memory (each of them simply starts with a full
bucket, which is why the listener also bounds the queries in flight).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable

from openkeel_designate.dnswire import addresses
from openkeel_designate.dnswire.addresses import Network

MAX_CLIENTS = 65536
IPV6_CLIENT_PREFIX = 64
_UNKNOWN = ""  # no address is empty


def client_of(address: str) -> str:
    """The client an address belongs to: itself for IPv4 (also when mapped into IPv6), its /64
    for IPv6.  IPv4 text is taken as is: that is the hot path and needs no parsing."""
    if ":" not in address:
        return address
    parsed = addresses.parse(address)
    if parsed is None:
        return address
    if parsed.version == 4:
        return str(parsed)
    return str(ipaddress.ip_network((parsed, IPV6_CLIENT_PREFIX), strict=False))


def burst_for(rate: float, max_in_flight: int) -> float:
    """One second's worth of queries, but never more than a quarter of the listener's
    in-flight bound: a client sending its whole burst at once must not take every slot (the
    queries of everyone else would be dropped until its answers are out)."""
    return max(1.0, min(float(rate), max_in_flight / 4))


class SourceRateLimiter:
    """``allow(address)``: whether one more query from ``address`` may be answered now.

    Each client earns ``rate`` tokens a second up to ``burst`` (default: one second's worth) and
    spends one per query; a query without a token is refused."""

    def __init__(self, rate: float, *, burst: float | None = None,
                 exempt: Iterable[Network] = (), max_clients: int = MAX_CLIENTS,
                 clock: Callable[[], float] = time.monotonic):
        if rate <= 0:
            raise ValueError("rate must be positive (no limiter at all means no limit)")
        self.rate = float(rate)
        self.burst = float(burst if burst is not None else max(rate, 1.0))
        self.max_clients = max_clients
        self.clock = clock
        self._exempt: tuple[Network, ...] = tuple(exempt)
        # Two tables, both bounded: source address -> its client (None: exempt), decided once
        # per address; client -> [tokens, when last refilled].
        self._verdicts: dict[str, str | None] = {}
        self._buckets: dict[str, list[float]] = {}

    @property
    def exempt(self) -> tuple[Network, ...]:
        return self._exempt

    def set_exempt(self, exempt: Iterable[Network]) -> None:
        """Replace the exempt networks (e.g. when the pools change); verdicts are redone."""
        exempt = tuple(exempt)
        if exempt != self._exempt:
            self._exempt = exempt
            self._verdicts.clear()

    def allow(self, address: str) -> bool:
        client = self._verdicts.get(address, _UNKNOWN)
        if client == _UNKNOWN:
            client = self._verdict(address)
        if client is None:
            return True
        bucket = self._buckets.get(client)
        now = self.clock()
        if bucket is None:
            bucket = self._new_bucket(client, now)
        tokens = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        bucket[1] = now
        if tokens < 1.0:
            bucket[0] = tokens
            return False
        bucket[0] = tokens - 1.0
        return True

    def _verdict(self, address: str) -> str | None:
        _make_room(self._verdicts, self.max_clients)
        client = None if self._is_exempt(address) else client_of(address)
        self._verdicts[address] = client
        return client

    def _new_bucket(self, client: str, now: float) -> list[float]:
        _make_room(self._buckets, self.max_clients)
        bucket = self._buckets[client] = [self.burst, now]
        return bucket

    def _is_exempt(self, address: str) -> bool:
        return bool(self._exempt) and addresses.within(address, self._exempt)


def _make_room(table: dict, size: int) -> None:
    """Forget the longest-known entries until one more fits (insertion order is age)."""
    while len(table) >= size:
        del table[next(iter(table))]
