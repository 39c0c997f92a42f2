"""What the two address handlers share: their config group, targets, and the create/delete steps.

A handler is a plain object with async methods; the oslo.messaging thread never sees it
directly (``listener.py`` hands events to the event loop), so the rules below run on the same
loop and database pool as the API.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from oslo_config import cfg

from openkeel_designate.central import managed
from openkeel_designate.central.services import Services
from openkeel_designate.sink import names

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Address:
    """One IP of a resource, with the per-address format keys (Nova's ``label``)."""

    address: str
    version: int
    keys: Mapping[str, Any] = field(default_factory=dict)


class AddressHandler(abc.ABC):
    """A notification handler that mirrors a resource's addresses as A/AAAA records."""

    name: ClassVar[str]
    plugin_type: ClassVar[str] = "handler"
    event_types: ClassVar[tuple[str, ...]]

    def __init__(self, svc: Services, conf: cfg.ConfigOpts):
        self.svc = svc
        self.group = conf[f"handler:{self.name}"]

    def targets(self) -> list[tuple[str, str]]:
        """(exchange, topic) pairs to listen on."""
        return [(self.group.control_exchange, topic) for topic in self.group.notification_topics]

    async def process(self, context: Mapping[str, Any], event_type: str,
                      payload: Mapping[str, Any]) -> None:
        """Entry point for one event; a handler without ``zone_id`` ignores everything."""
        if event_type not in self.event_types:
            return
        if not self.group.zone_id:
            LOG.error("%s: [handler:%s] zone_id is not set, ignoring %s", self.name, self.name,
                      event_type)
            return
        await self.handle(context, event_type, payload)

    @abc.abstractmethod
    async def handle(self, context: Mapping[str, Any], event_type: str,
                     payload: Mapping[str, Any]) -> None:
        """React to an event this handler declares."""

    def source(self, resource_type: str, resource_id: str) -> managed.ManagedSource:
        return managed.ManagedSource(plugin_name=self.name, plugin_type=self.plugin_type,
                                     resource_type=resource_type, resource_id=resource_id)

    async def create(self, addresses: Iterable[Address], extra: Mapping[str, Any],
                     resource_type: str, resource_id: str) -> None:
        """Each address × each format → one recordset replaced in the handler's zone.

        A format that cannot be applied (missing key, bad IDNA label) or a name outside the
        zone is logged and skipped; the other names of the event are still written.
        """
        zone_id = self.group.zone_id
        data = {**extra, "zone": await managed.zone_name(self.svc, zone_id)}
        source = self.source(resource_type, resource_id)
        for address in addresses:
            formats = names.formats_for(address.version, self.group.formatv4,
                                        self.group.formatv6)
            keys = {**data, **address.keys, **names.address_data(address.address,
                                                                 address.version)}
            for fmt in formats:
                try:
                    name = names.render(fmt, keys)
                except (KeyError, ValueError, TypeError) as exc:  # UnicodeError is a ValueError
                    LOG.error("%s: format %r failed for %s: %r", self.name, fmt, resource_id, exc)
                    continue
                await managed.replace_managed_recordset(
                    self.svc, zone_id, name, names.record_type(address.version),
                    [address.address], source)

    async def delete(self, resource_type: str, resource_id: str) -> None:
        count = await managed.delete_managed_records(self.svc, self.group.zone_id,
                                                     self.source(resource_type, resource_id))
        LOG.info("%s: %d record(s) of %s %s deleted", self.name, count, resource_type,
                 resource_id)
