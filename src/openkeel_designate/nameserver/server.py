"""The built-in authoritative nameserver: a real secondary of mdns for the embedded default pool.

It learns zones only the way BIND or PowerDNS would (NOTIFY → SOA check → AXFR from a master),
so the default single-process setup exercises exactly the propagation path a production pool uses.
"""

from __future__ import annotations

import logging

from openkeel_designate.mdns.transport import DnsListener
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
    ):
        self.store = ZoneStore(data_dir)
        self.refresher = Refresher(
            self.store, masters, soa_timeout=soa_timeout, xfr_timeout=xfr_timeout
        )
        self.handler = NameserverHandler(self.store, self.refresher, masters)
        self.listener = DnsListener(
            listen, self.handler, tcp_recv_timeout=tcp_recv_timeout, name="nameserver"
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
