"""mdns's own peers are never rate limited by it, even as the pools and zones change.

mdns's UDP clients are first of all the few nameservers of the pools: they ask for SOA after
every NOTIFY and at every refresh, and a secondary that restarts may ask for thousands of zones
at once; then the masters of secondary zones, which NOTIFY mdns of every change.  Starving them
would stop propagation, so their addresses (``SqlZoneSource.peer_hosts``) join the operator's
exemptions at start and every ``REFRESH_SECONDS`` after, as ``manage pool update`` or the API
may change them from another process.  Hosts given by name are skipped (resolving them here
would put DNS lookups on the event loop): list their addresses in ``udp_rate_limit_exempt``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable

from openkeel_designate.dnswire import addresses
from openkeel_designate.mdns.ratelimit import SourceRateLimiter

log = logging.getLogger(__name__)

REFRESH_SECONDS = 30.0

PeerLoader = Callable[[], Awaitable[Iterable[str]]]


class PeerExemption:
    def __init__(self, limiter: SourceRateLimiter, load: PeerLoader,
                 interval: float = REFRESH_SECONDS):
        self.limiter = limiter
        self.load = load
        self.interval = interval
        self.configured = limiter.exempt
        self._task: asyncio.Task | None = None
        self._stopping = asyncio.Event()

    async def start(self) -> None:
        """Exempt the peers before the first query is answered, then keep them current."""
        await self.refresh()
        self._task = asyncio.create_task(self._refresh_forever())

    async def stop(self) -> None:
        """End the loop between reads (a read cut mid-statement leaves a connection the
        pool cannot reset); cancel only a read that hangs."""
        if self._task is not None:
            self._stopping.set()
            await asyncio.wait([self._task], timeout=5)
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def refresh(self) -> None:
        try:
            hosts = await self.load()
        except Exception as exc:  # the database may be down: keep what we had
            log.warning("mdns: reading its peers (pool nameservers, masters) failed (%s); "
                        "their rate limit exemptions stay as they were", exc)
            return
        self.limiter.set_exempt([*self.configured, *addresses.host_networks(hosts)])

    async def _refresh_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                await asyncio.wait_for(self._stopping.wait(), self.interval)
                return
            except TimeoutError:
                await self.refresh()

