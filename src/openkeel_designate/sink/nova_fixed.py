"""Nova: an instance's fixed IPs as A/AAAA records while it exists (Designate's nova_fixed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openkeel_designate.sink.base import Address, AddressHandler

CREATE = "compute.instance.create.end"
DELETE = "compute.instance.delete.start"


class NovaFixedHandler(AddressHandler):
    name = "nova_fixed"
    event_types = (CREATE, DELETE)

    async def handle(self, context: Mapping[str, Any], event_type: str,
                     payload: Mapping[str, Any]) -> None:
        instance_id = payload["instance_id"]
        if event_type == DELETE:
            await self.delete("instance", instance_id)
            return
        addresses = [Address(ip["address"], int(ip["version"]), {"label": ip.get("label")})
                     for ip in payload.get("fixed_ips") or []]
        extra = {**payload, "project": context.get("project_name")}
        await self.create(addresses, extra, "instance", instance_id)
