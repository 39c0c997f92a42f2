"""A backend that changes nothing: for pools whose servers are managed by other means
(catalog zones, an operator's automation) — the worker still NOTIFYs and polls them."""

from __future__ import annotations

from openkeel_designate.backends.base import Backend, ZoneRef


class FakeBackend(Backend):
    async def create_zone(self, zone: ZoneRef) -> None:
        return None

    async def delete_zone(self, zone: ZoneRef, hard_delete: bool = False) -> None:
        return None


BACKEND = FakeBackend
