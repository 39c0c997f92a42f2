"""The built-in authoritative nameserver: a real secondary of mdns for the embedded default pool.

It learns zones only the way BIND or PowerDNS would (NOTIFY → SOA check → AXFR from a master),
so the default single-process setup exercises exactly the propagation path a production pool uses.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from openkeel_designate.dnswire import addresses
from openkeel_designate.dnswire.limits import DEFAULT_UDP_PAYLOAD
from openkeel_designate.mdns.ratelimit import SourceRateLimiter, burst_for
from openkeel_designate.mdns.transport import DEFAULT_MAX_UDP_IN_FLIGHT, DnsListener
from openkeel_designate.dnswire.tsig import Keyring
from openkeel_designate.nameserver.handler import NameserverHandler
from openkeel_designate.nameserver.refresh import Refresher
from openkeel_designate.nameserver.zones import ZoneStore

log = logging.getLogger(__name__)


class BuiltinNameserver:
    """Serves the zones transferred from ``masters``; persists them under ``data_dir``."""

    def __init__(
        self,
        listen: list[tuple[str, int]],
        masters: list[tuple[str, int]],
        data_dir: str | None = None,
        *,
        tcp_recv_timeout: float = 2.0,
        soa_timeout: float = 2.0,
        xfr_timeout: float = 10.0,
        keyring: Keyring | None = None,
        allow_transfer: Iterable[str] = (),
        max_udp_payload: int = DEFAULT_UDP_PAYLOAD,
        max_udp_in_flight: int = DEFAULT_MAX_UDP_IN_FLIGHT,
        udp_rate_limit: float = 0,
        udp_rate_limit_exempt: Iterable[str] = (),
    ):
        """``allow_transfer``: addresses/networks that may AXFR/IXFR; ``keyring``: TSIG keys
        that may too (both empty: nobody).  Its own transfers from ``masters`` are unaffected.
        ``udp_rate_limit``: UDP queries a second per client (0: no limit), never applied to
        the masters (they NOTIFY; in one process the worker polls from the same address) nor
        to ``udp_rate_limit_exempt``."""
        limiter = None
        if udp_rate_limit > 0:
            exempt = addresses.networks(udp_rate_limit_exempt,
                                        "[service:nameserver] udp_rate_limit_exempt")
            exempt += addresses.host_networks(host for host, _ in masters)
            limiter = SourceRateLimiter(udp_rate_limit, exempt=exempt,
                                        burst=burst_for(udp_rate_limit, max_udp_in_flight))
        self.store = ZoneStore(data_dir)
        self.refresher = Refresher(
            self.store, masters, soa_timeout=soa_timeout, xfr_timeout=xfr_timeout
        )
        self.handler = NameserverHandler(self.store, self.refresher, masters, keyring=keyring,
                                         allow_transfer=allow_transfer,
                                         max_udp_payload=max_udp_payload)
        self.listener = DnsListener(
            listen, self.handler, tcp_recv_timeout=tcp_recv_timeout, name="nameserver",
            max_udp_in_flight=max_udp_in_flight, limiter=limiter,
        )

    @property
    def bound(self) -> list[tuple[str, int]]:
        return self.listener.bound

    async def start(self) -> None:
        """Serve persisted zones at once, then re-check each with a master in the background."""
        loaded = self.store.load()
        await self.listener.start()
        self.refresher.start()
        for name in loaded:
            self.refresher.request(name)
        if loaded:
            log.info("nameserver loaded %d persisted zones", len(loaded))

    async def stop(self) -> None:
        await self.refresher.stop()
        await self.listener.stop()

    async def __aenter__(self) -> BuiltinNameserver:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
