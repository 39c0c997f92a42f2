"""Backend for target type ``builtin``: the embedded nameserver, driven only by NOTIFY.

The built-in nameserver is a plain secondary that decides everything from the master's SOA, so
create, update and delete are all the same operation: tell it to look (a delete makes it find the
zone refused by mdns and drop it).  Creating twice is therefore harmless and costs one packet.

A ``builtin`` target without ``host``/``port`` options means the built-in nameserver of this
configuration (``[service:nameserver] listen``), as the embedded default pool spells out.
"""

from __future__ import annotations

from typing import Any

import dns.rcode
from oslo_config import cfg

from openkeel_designate.backends.base import (
    Backend,
    PermanentBackendError,
    TransientBackendError,
    ZoneRef,
)
from openkeel_designate.config import parse_hostport
from openkeel_designate.dnswire.client import send_notify

NOTIFY_TIMEOUT = 10.0
NAMESERVER_PORT = 5300
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}


def target_options(options: dict[str, Any], conf: cfg.ConfigOpts) -> dict[str, Any]:
    """``options`` with a missing ``host``/``port`` taken from this configuration's nameserver
    (its first ``listen`` address; a wildcard address is reached through loopback).

    Without this a pools.yaml ``builtin`` target with no options would NOTIFY 127.0.0.1:53,
    which is not where the built-in nameserver listens."""
    if "host" in options and "port" in options:
        return options
    listen = conf["service:nameserver"].listen
    host, port = parse_hostport(listen[0], NAMESERVER_PORT) if listen else ("127.0.0.1",
                                                                            NAMESERVER_PORT)
    return {"host": _WILDCARDS.get(host, host), "port": port, **options}


class BuiltinBackend(Backend):
    """NOTIFY ``target.notify_host:notify_port`` (target options ``host`` / ``port``)."""

    sends_notify = True
    follows_catalog = False  # a plain secondary: NOTIFY per zone is how it learns them

    async def create_zone(self, zone: ZoneRef) -> None:
        await self._notify(zone)

    async def update_zone(self, zone: ZoneRef) -> None:
        await self._notify(zone)

    async def delete_zone(self, zone: ZoneRef, hard_delete: bool = False) -> None:
        await self._notify(zone)

    async def _notify(self, zone: ZoneRef) -> None:
        host, port = self.target.notify_host, self.target.notify_port
        timeout = float(self.target.options.get("timeout", NOTIFY_TIMEOUT))
        try:
            rcode = await send_notify(zone.name, host, port, timeout=timeout)
        except OSError as exc:
            raise TransientBackendError(f"NOTIFY {zone.name} to {host}:{port}: {exc}") from exc
        if rcode == dns.rcode.REFUSED:
            raise PermanentBackendError(
                f"NOTIFY {zone.name} refused by {host}:{port}: this server is not its secondary"
            )
        if rcode != dns.rcode.NOERROR:
            raise TransientBackendError(
                f"NOTIFY {zone.name} to {host}:{port} answered {dns.rcode.to_text(rcode)}"
            )


BACKEND = BuiltinBackend
