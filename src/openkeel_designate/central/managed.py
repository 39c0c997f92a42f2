"""Records managed by a plugin (the sink's Nova/Neutron handlers), not by a user.

A plugin owns its records through the ``managed_*`` fields: it replaces a whole recordset when a
resource appears and deletes by resource id when it goes. Neither counts against record quotas
(the zone's owner did not ask for them) and, as every write, each operation is one transaction
that leaves the zone PENDING for the worker.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central.services import Services
from openkeel_designate.central.zones import mark_pending
from openkeel_designate.domain import errors, names, rrtypes
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import flush
from openkeel_designate.storage.models import Record, Zone, utcnow

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class ManagedSource:
    """Who owns a managed record: the plugin and the cloud resource it mirrors."""

    plugin_name: str
    plugin_type: str
    resource_type: str
    resource_id: str


def check_values(zone_name: str, name: str, rtype: str, data: list[str]) -> None:
    """Refuse what a mis-set format string or a bad payload would otherwise write."""
    record_type = rrtypes.get(rtype)
    if record_type is None or not record_type.is_valid_name(name):
        raise errors.InvalidRecordSetName(f"{name!r} is not a valid {rtype} recordset name")
    if not names.is_within(name, zone_name):
        raise errors.InvalidRecordSetLocation(f"{name} is not contained within {zone_name}")
    bad = [item for item in data if not record_type.is_valid(item)]
    if bad:
        raise errors.InvalidObject(f"{bad} are not {rtype} records")


async def _zone_for_write(session: AsyncSession, zone_id: str) -> Zone:
    zone = await zone_store.get(session, zone_id, for_update=True)
    if zone is None:
        raise errors.ZoneNotFound("Could not find Zone")
    if zone.type != "PRIMARY":
        raise errors.BadRequest(f"Managed records need a PRIMARY zone, {zone.name} is {zone.type}")
    if zone.action == "DELETE":
        raise errors.BadRequest("Can not update a deleting zone")
    return zone


def _managed_record(zone: Zone, recordset, data: str, source: ManagedSource, action: str) -> Record:
    record = rs_store.new_record(zone, recordset, data, managed=True, action=action)
    record.managed_plugin_name = source.plugin_name
    record.managed_plugin_type = source.plugin_type
    record.managed_resource_type = source.resource_type
    record.managed_resource_id = source.resource_id
    return record


async def replace_managed_recordset(svc: Services, zone_id: str, name: str, rtype: str,
                                    data: list[str], source: ManagedSource) -> str:
    """Create the recordset (zone, name, type) or overwrite its records; returns its id.

    Overwriting, not appending, is Designate's sink behaviour: two instances with the same
    hostname leave the name pointing at the newer one.
    """
    async def work(session: AsyncSession) -> str:
        zone = await _zone_for_write(session, zone_id)
        check_values(zone.name, name, rtype, data)
        same_name = await rs_store.names_in_zone(session, zone.id, name)
        if any(rs.type == "CNAME" for rs in same_name):
            raise errors.InvalidRecordSetLocation(
                "CNAME recordsets may not share a name with any other records")
        recordset = next((rs for rs in same_name if rs.type == rtype), None)
        action = "UPDATE"
        if recordset is None:
            recordset = rs_store.new_recordset(zone, name, rtype)
            await rs_store.insert(session, [recordset])
            action = "CREATE"
        else:
            old = (await rs_store.records_of(session, [recordset.id]))[recordset.id]
            await rs_store.delete_records(session, [r.id for r in old])
            recordset.version += 1
            recordset.updated_at = utcnow()
        rs_store.add_records(session, (_managed_record(zone, recordset, item, source, action)
                                       for item in dict.fromkeys(data)))
        mark_pending(zone)
        await flush(session)
        return recordset.id

    recordset_id = await svc.db.transaction(work)
    svc.wake_worker()
    return recordset_id


async def delete_managed_records(svc: Services, zone_id: str | None,
                                 source: ManagedSource) -> int:
    """Remove every record the source owns (in one zone, or anywhere); returns how many.

    A recordset left without records goes with them, so the name stops resolving.
    """
    async def work(session: AsyncSession) -> int:
        owned = await rs_store.managed_records(session, zone_id, source.plugin_name,
                                               source.plugin_type, source.resource_type,
                                               source.resource_id)
        for zone_key in sorted({r.zone_id for r in owned}):  # sorted: one lock order
            zone = await zone_store.get(session, zone_key, for_update=True)
            if zone is not None:
                mark_pending(zone)
        await rs_store.delete_records(session, [r.id for r in owned])
        touched = sorted({r.recordset_id for r in owned})
        remaining = await rs_store.records_of(session, touched)
        for recordset_id in touched:
            if not remaining.get(recordset_id):
                await rs_store.delete_recordset(session, recordset_id)
        return len(owned)

    count = await svc.db.transaction(work)
    if count:
        svc.wake_worker()
    return count


async def zone_name(svc: Services, zone_id: str) -> str:
    """The name a plugin formats record names with (``%(zone)s``)."""
    async with svc.db.read() as session:
        zone = await zone_store.get(session, zone_id)
    if zone is None:
        raise errors.ZoneNotFound("Could not find Zone")
    return zone.name
