"""The narrow contract between the worker and a pool target (a real nameserver's control API).

A backend only creates or deletes a secondary zone on its server; the server then pulls the
content from mdns by AXFR after a NOTIFY.  Errors say whether retrying may help, so the worker
retries transient failures and reports permanent ones at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class BackendError(Exception):
    """A target refused or failed an operation."""


class TransientBackendError(BackendError):
    """Worth retrying: the server is down, slow or busy."""


class PermanentBackendError(BackendError):
    """Retrying will not help: bad configuration, rejected request."""


@dataclass(frozen=True, slots=True)
class ZoneRef:
    """What a backend needs to know of a zone."""

    id: str
    name: str
    serial: int = 0
    # Whether mdns serves the zone signed (DNSSEC on).  Filled from storage only when a target
    # of the pool has ``Backend.needs_signing`` (one extra read per push); False otherwise.
    signed: bool = False


@dataclass(frozen=True, slots=True)
class Target:
    """One pool target as configured in pools.yaml."""

    id: str
    type: str
    description: str | None = None
    masters: tuple[tuple[str, int], ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    tsigkey_id: str | None = None

    @property
    def notify_host(self) -> str:
        return str(self.options.get("host", "127.0.0.1"))

    @property
    def notify_port(self) -> int:
        return int(self.options.get("port", 53))


class Backend:
    """Base of every backend driver; one module per target type registers a subclass."""

    # True when create/update already NOTIFY the server, so the worker need not send another.
    sends_notify: bool = False
    # True when, in a pool with a catalog zone (RFC 9432), the server learns its zones from the
    # catalog (configured by the operator) instead of from backend calls.
    follows_catalog: bool = True
    # True when ``check_served`` needs ``ZoneRef.signed``: only then does the worker read the
    # zone's DNSSEC setting, so pools without such a target pay nothing.
    needs_signing: bool = False

    def __init__(self, target: Target):
        self.target = target

    async def create_zone(self, zone: ZoneRef) -> None:
        """Make the server a secondary for the zone, pulling from ``target.masters``."""
        raise NotImplementedError

    async def update_zone(self, zone: ZoneRef) -> None:
        """Most servers need nothing: the worker's NOTIFY makes them transfer."""

    async def restore_zone(self, zone: ZoneRef) -> None:
        """The server answers as if it had no such zone: make it a secondary again.

        A create by default.  A backend that can tell a zone it lost from one still in its first
        transfer (a secondary answers SERVFAIL until that ends) overrides this to leave the
        latter alone: the worker asks every second, and a create that replaces the zone restarts
        the transfer, so a zone that takes longer than a second to transfer never arrived.
        """
        await self.create_zone(zone)

    async def delete_zone(self, zone: ZoneRef, hard_delete: bool = False) -> None:
        """Remove the zone from the server; an absent zone counts as deleted."""
        raise NotImplementedError

    async def check_served(self, zone: ZoneRef) -> None:
        """Called, for a signed zone in a pool with a ``needs_signing`` target, once the
        nameservers serve its serial: raise when the server keeps the transferred zone in a way
        that serves it wrongly, which only its control API can tell (PowerDNS stripping the
        signatures).  Permanent: the zone goes ERROR; transient: not known yet, asked again.

        Most servers serve what they transferred, as it is: nothing to check.
        """
