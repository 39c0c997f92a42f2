"""designate-mdns: the authoritative source every pool nameserver transfers zones from.

Composition of the UDP/TCP transport (``transport.DnsListener``) with the request handler chain
(``handler.MdnsHandler``); zones are read only through a ``ZoneSource``, TSIG keys through a
``Keyring`` (without one, every signed message is dropped).
"""

from __future__ import annotations

from openkeel_designate.dnswire.zonedata import ZoneSource
from openkeel_designate.mdns.handler import MAX_MESSAGE_SIZE, MdnsHandler, NotifyCallback
from openkeel_designate.mdns.transport import DnsListener
from openkeel_designate.mdns.tsig import Keyring


class MdnsServer:
    """Serves SOA, AXFR/IXFR and other queries for the zones of ``source``; receives NOTIFY."""

    def __init__(
        self,
        source: ZoneSource,
        listen: list[tuple[str, int]],
        default_pool_id: str,
        max_message_size: int = MAX_MESSAGE_SIZE,
        tcp_recv_timeout: float = 0.5,
        on_notify: NotifyCallback | None = None,
        keyring: Keyring | None = None,
        enforce_tsig: bool = False,
    ):
        self.handler = MdnsHandler(
            source,
            default_pool_id,
            max_message_size=max_message_size,
            on_notify=on_notify,
            keyring=keyring,
            enforce_tsig=enforce_tsig,
        )
        self.listener = DnsListener(
            listen, self.handler, tcp_recv_timeout=tcp_recv_timeout, name="mdns"
        )

    @property
    def bound(self) -> list[tuple[str, int]]:
        return self.listener.bound

    async def start(self) -> None:
        await self.listener.start()

    async def stop(self) -> None:
        await self.listener.stop()

    async def __aenter__(self) -> MdnsServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
