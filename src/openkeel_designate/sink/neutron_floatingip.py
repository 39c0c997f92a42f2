"""Neutron: a floating IP's address as an A record while it is associated (neutron_floatingip)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openkeel_designate.sink.base import Address, AddressHandler

UPDATE = "floatingip.update.end"
DELETE = "floatingip.delete.start"


class NeutronFloatingHandler(AddressHandler):
    name = "neutron_floatingip"
    event_types = (UPDATE, DELETE)

    async def handle(self, context: Mapping[str, Any], event_type: str,
                     payload: Mapping[str, Any]) -> None:
        if event_type == DELETE:
            await self.delete("floatingip", payload["floatingip_id"])
            return
        floatingip = payload["floatingip"]
        if not floatingip.get("fixed_ip_address"):
            # Disassociated: the name must stop pointing at an address nobody answers on.
            await self.delete("floatingip", floatingip["id"])
            return
        extra = {**floatingip, "project": context.get("project_name")}
        address = Address(floatingip["floating_ip_address"], 4)
        await self.create([address], extra, "floatingip", floatingip["id"])
