"""TSIG keys: a key belongs to a pool or a zone, which must exist when the key is written."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.crud import Kind
from openkeel_designate.domain import errors
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import TsigKey

KIND = Kind(model=TsigKey, label="TsigKey", rule="tsigkey", unique="name",
            not_found=errors.TsigKeyNotFound, duplicate=errors.DuplicateTsigKey,
            fields=("name", "algorithm", "secret", "scope", "resource_id"))


async def check_resource(session: AsyncSession, values: dict[str, Any]) -> None:
    """The scoped resource exists: a zone of any project, or a pool (else 400)."""
    resource_id, scope = values.get("resource_id"), values.get("scope")
    if scope == "ZONE":
        found = await zone_store.get(session, resource_id, all_tenants=True) is not None
    else:
        found = await pool_store.get(session, resource_id) is not None
    if not found:
        kind = "zone" if scope == "ZONE" else "pool"
        raise errors.InvalidTsigKey(f"Resource ID {resource_id} is not a valid {kind}")
