"""designate-mdns: the authoritative source every pool nameserver transfers zones from.

Composition of the UDP/TCP transport (``transport.DnsListener``) with the request handler chain
(``handler.MdnsHandler``); zones are read only through a ``ZoneSource``, TSIG keys through a
``Keyring`` (without one, every signed message is dropped).  The defaults here are those of a
test double (no rate limit, no zone memory, no transfer cache); ``runtime`` passes the
configured ones.
"""

from __future__ import annotations

from collections.abc import Iterable

from openkeel_designate.dnswire import addresses
from openkeel_designate.dnswire.limits import DEFAULT_UDP_PAYLOAD
from openkeel_designate.dnswire.zonedata import ZoneSource
from openkeel_designate.mdns.handler import MAX_MESSAGE_SIZE, MdnsHandler, NotifyCallback
from openkeel_designate.mdns.peers import PeerExemption, PeerLoader
from openkeel_designate.mdns.ratelimit import SourceRateLimiter, burst_for
from openkeel_designate.mdns.transport import DEFAULT_MAX_UDP_IN_FLIGHT, DnsListener
from openkeel_designate.dnswire.tsig import Keyring
from openkeel_designate.mdns.xfrcache import TransferCache
from openkeel_designate.mdns.zonecache import ZoneCache


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
        max_udp_payload: int = DEFAULT_UDP_PAYLOAD,
        max_udp_in_flight: int = DEFAULT_MAX_UDP_IN_FLIGHT,
        udp_rate_limit: float = 0,
        udp_rate_limit_exempt: Iterable[str] = (),
        peers: PeerLoader | None = None,
        zone_cache_ttl: float = 0.0,
        transfer_cache_bytes: int = 0,
        large_transfer_bytes: int = 0,
        large_transfer_seconds: float = 0.0,
    ):
        """``udp_rate_limit``: UDP queries a second per client (0: no limit), not applied to
        ``udp_rate_limit_exempt`` nor to the hosts ``peers`` returns (the pools'
        nameservers, the masters of secondary zones); ``zone_cache_ttl``: seconds a zone lookup is remembered (0: not at all,
        every query reads the source); ``transfer_cache_bytes``: rendered AXFR/IXFR answers kept
        per zone version (0: none, every transfer reads and renders the zone); one transfer larger
        than that, up to ``large_transfer_bytes``, is kept alone for ``large_transfer_seconds``
        after its last use (``xfrcache``)."""
        limiter = None
        self.exemption: PeerExemption | None = None
        if udp_rate_limit > 0:
            exempt = addresses.networks(udp_rate_limit_exempt,
                                        "[service:mdns] udp_rate_limit_exempt")
            limiter = SourceRateLimiter(udp_rate_limit, exempt=exempt,
                                        burst=burst_for(udp_rate_limit, max_udp_in_flight))
            if peers is not None:
                self.exemption = PeerExemption(limiter, peers)
        self.zones = ZoneCache(zone_cache_ttl) if zone_cache_ttl > 0 else None
        self.transfers = (TransferCache(transfer_cache_bytes, large_transfer_bytes,
                                        large_transfer_seconds)
                          if transfer_cache_bytes > 0 else None)
        self.handler = MdnsHandler(
            source,
            default_pool_id,
            max_message_size=max_message_size,
            on_notify=on_notify,
            keyring=keyring,
            enforce_tsig=enforce_tsig,
            max_udp_payload=max_udp_payload,
            zones=self.zones,
            transfers=self.transfers,
        )
        self.listener = DnsListener(
            listen, self.handler, tcp_recv_timeout=tcp_recv_timeout, name="mdns",
            max_udp_in_flight=max_udp_in_flight, limiter=limiter,
        )

    @property
    def bound(self) -> list[tuple[str, int]]:
        return self.listener.bound

    def zones_changed(self) -> None:
        """A zone was created, deleted or moved in this process: forget remembered lookups."""
        if self.zones is not None:
            self.zones.invalidate()

    async def start(self) -> None:
        if self.exemption is not None:
            await self.exemption.start()
        try:
            await self.listener.start()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        if self.exemption is not None:
            await self.exemption.stop()
        await self.listener.stop()

    async def __aenter__(self) -> MdnsServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
