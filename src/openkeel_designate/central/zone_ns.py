"""Keeping the managed apex NS records of a pool's zones in step with the pool's NS records."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.zones import mark_pending
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import recordsets as rs_store


async def apply_pool_ns(session: AsyncSession, pool_id: str, hostnames: list[str]) -> None:
    """Every live PRIMARY zone of the pool serves exactly ``hostnames`` at its apex."""
    for zone in await pool_store.live_zones(session, pool_id):
        if zone.type != "PRIMARY":
            continue
        recordset = await rs_store.find_one(session, zone.id, zone.name, "NS")
        if recordset is None:
            continue
        current = (await rs_store.records_of(session, [recordset.id]))[recordset.id]
        have = {r.data for r in current}
        await rs_store.delete_records(session, [r.id for r in current if r.data not in hostnames])
        rs_store.add_records(session, (rs_store.new_record(zone, recordset, host, managed=True)
                                       for host in hostnames if host not in have))
        mark_pending(zone)
