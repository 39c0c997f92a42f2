"""DNSSEC rules (extension): turn signing on or off for a zone, and show its keys and DS.

Turning signing on generates the zone's keys here — a KSK (flags 257) whose DS goes to the
parent and a ZSK (256) — and seals the private halves under the key-encryption key before they
reach the database; nothing of them is ever returned.  Any change of the setting is a zone
update (new serial, pushed like any write), so the pool's nameservers transfer the newly signed
(or unsigned) zone; mdns does the signing when it renders the transfer.  The setting's status
is that of a change (``central/change_status.py``): PENDING until it is served, then ACTIVE.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import zones as central_zones
from openkeel_designate.central.change_status import status_of
from openkeel_designate.central.notifications import notifies
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.dnssec import keys as dnssec_keys
from openkeel_designate.storage import dnssec as dnssec_store
from openkeel_designate.storage import dnssec_kek
from openkeel_designate.storage import propagation as propagation_store
from openkeel_designate.storage.models import Zone, ZoneDnssec, ZoneDnssecKey, utcnow

RETIRE_MARGIN = 3600  # seconds, beyond the DNSKEY TTL, a rolled-over key stays published


@dataclass(frozen=True, slots=True)
class DnssecView:
    """A zone's DNSSEC state as shown (and notified): public key material only."""

    zone_id: str
    enabled: bool
    status: str
    algorithm: str
    nsec: str
    keys: list[dict[str, Any]]
    ds: list[str]


async def show(svc: Services, ctx: RequestContext, zone_id: str) -> DnssecView:
    """The setting of a zone the caller may see (404 as the zone itself, then the policy)."""
    async with svc.db.read() as session:
        zone = await central_zones.load_visible(session, ctx, zone_id)
        shared_with_caller = zone.tenant_id != ctx.project_id  # as get_zone: seen, not owned
        svc.policy.check("get_zone_dnssec", ctx,
                         central_zones.policy_target(zone, shared_with_caller))
        return await _view(session, zone)


@notifies("dns.zone.dnssec")
async def update(svc: Services, ctx: RequestContext, zone_id: str,
                 values: dict[str, Any]) -> DnssecView:
    """Sign (``enabled``) with the given algorithm and denial, or stop signing."""
    kek = dnssec_kek.load(svc.conf) if values["enabled"] else b""

    async def work(session: AsyncSession) -> DnssecView:
        zone = await central_zones.load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("update_zone_dnssec", ctx, central_zones.policy_target(zone))
        if zone.type != "PRIMARY":
            raise errors.BadRequest("DNSSEC signing is only available for primary zones")
        if zone.action == "DELETE":
            raise errors.BadRequest("Can not update a deleting zone")
        row = await dnssec_store.setting(session, zone.id, for_update=True)
        if row is None:
            row = ZoneDnssec(zone_id=zone.id, enabled=False, algorithm=values["algorithm"],
                             nsec=values["nsec"])
        await _apply(session, zone, row, values, kek)
        await _changed(session, zone, row)
        return await _view(session, zone)

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


@notifies("dns.zone.dnssec")
async def rollover(svc: Services, ctx: RequestContext, zone_id: str) -> DnssecView:
    """A ZSK rollover by double signature: a new ZSK signs beside the old one, which stays
    published (RETIRING) until every cache holding the old DNSKEY set has let it go — the
    DNSKEY TTL plus an hour for the secondaries — then the producer removes it.  The KSK is
    not rolled here: that needs the parent's DS changed in between."""
    kek = dnssec_kek.load(svc.conf)

    async def work(session: AsyncSession) -> DnssecView:
        zone = await central_zones.load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("update_zone_dnssec", ctx, central_zones.policy_target(zone))
        row = await dnssec_store.setting(session, zone.id, for_update=True)
        if row is None or not row.enabled:
            raise errors.BadRequest("DNSSEC is not enabled for this zone")
        retire_at = utcnow() + timedelta(seconds=zone.ttl + RETIRE_MARGIN)
        for key in await dnssec_store.keys(session, zone.id):
            if not key.flags & 1 and key.state == "ACTIVE":
                key.state, key.retire_at = "RETIRING", retire_at
        await dnssec_store.add_key(session, _new_key(zone.id, row.algorithm,
                                                     dnssec_keys.ZONE_FLAGS, kek))
        await _changed(session, zone, row)
        return await _view(session, zone)

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


async def _changed(session: AsyncSession, zone: Zone, row: ZoneDnssec) -> None:
    """The setting or keys changed: a zone update, whose serving the status follows."""
    central_zones.mark_pending(zone, "UPDATE", bump_serial=True)
    zone.updated_at = utcnow()
    row.requested_serial = zone.serial
    row.change_seq = zone.change_seq
    row.refreshed_at = utcnow()
    await dnssec_store.save(session, row)


async def _apply(session: AsyncSession, zone: Zone, row: ZoneDnssec, values: dict[str, Any],
                 kek: bytes) -> None:
    """New keys when signing starts or the algorithm changes (an abrupt algorithm change:
    the parent's DS must follow); none kept once signing stops."""
    if not values["enabled"]:
        row.enabled = False
        await dnssec_store.replace_keys(session, zone.id, [])
        return
    if not row.enabled or row.algorithm != values["algorithm"] or not await dnssec_store.keys(
            session, zone.id):
        await dnssec_store.replace_keys(session, zone.id, [
            _new_key(zone.id, values["algorithm"], flags, kek)
            for flags in (dnssec_keys.SEP_FLAGS, dnssec_keys.ZONE_FLAGS)])
    row.enabled, row.algorithm, row.nsec = True, values["algorithm"], values["nsec"]


def _new_key(zone_id: str, algorithm: str, flags: int, kek: bytes) -> ZoneDnssecKey:
    private = dnssec_keys.generate(algorithm)
    dnskey = dnssec_keys.dnskey_of(private, algorithm, flags)
    return ZoneDnssecKey(zone_id=zone_id, flags=flags, algorithm=dnskey.algorithm,
                         key_tag=dnssec_keys.SigningKey(private, dnskey).key_tag,
                         public_key=dnssec_keys.public_key_b64(dnskey),
                         private_key=dnssec_keys.seal(kek, private, zone_id), state="ACTIVE",
                         created_at=utcnow())


async def _view(session: AsyncSession, zone: Zone) -> DnssecView:
    row = await dnssec_store.setting(session, zone.id)
    if row is None:
        return DnssecView(zone.id, False, "ACTIVE", dnssec_keys.DEFAULT_ALGORITHM, "NSEC", [], [])
    served = await propagation_store.served_serials(session, zone.id, zone.pool_id)
    status = status_of(zone, served, (row.requested_serial + 1) % 2**32, row.change_seq)
    if status == "ACTIVE" and zone.status == "ERROR" and zone.change_seq == row.change_seq:
        # Served serial, failed push: a target keeps the zone wrongly after the transfer
        # (PowerDNS dropping the signatures, pdns4's check_served), so not ACTIVE.
        status = "ERROR"
    keys = await dnssec_store.keys(session, zone.id) if row.enabled else []
    origin = dns.name.from_text(zone.name)
    shown = [_key_view(k) for k in keys]
    ds = [dnssec_keys.ds_of(origin, _dnskey(k)).to_text() for k in keys if k.flags & 1]
    return DnssecView(zone.id, bool(row.enabled), status, row.algorithm, row.nsec, shown, ds)


def _dnskey(key: ZoneDnssecKey) -> dns.rdata.Rdata:
    return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.DNSKEY,
                               f"{key.flags} 3 {key.algorithm} {key.public_key}")


def _key_view(key: ZoneDnssecKey) -> dict[str, Any]:
    dnskey = _dnskey(key)
    return {"key_tag": key.key_tag, "flags": key.flags, "algorithm": key.algorithm,
            "public_key": key.public_key, "dnskey": dnskey.to_text(), "state": key.state,
            "retire_at": key.retire_at}


async def retire_keys(svc: Services, now: datetime | None = None, batch: int = 100) -> int:
    """Remove the rolled-over keys whose time has come, each zone given a new serial."""
    moment = now or utcnow()

    async def work(session: AsyncSession) -> int:
        due = await dnssec_store.retired(session, moment, batch)
        for zone, key in due:
            await dnssec_store.remove_key(session, key)
            central_zones.mark_pending(zone, "UPDATE", bump_serial=True)
        return len(due)

    total = 0
    while True:
        count = await svc.db.transaction(work)
        total += count
        if count < batch:
            break
    if total:
        svc.wake_worker()
    return total


async def refresh_signatures(svc: Services, age: float, batch: int = 100) -> int:
    """Give every signed zone whose serial is older than ``age`` seconds a new one, so its
    signatures are renewed before they expire (mdns re-signs what has less than half its
    validity left when it renders the new version) and the secondaries transfer them."""
    cutoff = utcnow() - timedelta(seconds=age)

    async def work(session: AsyncSession) -> int:
        due = await dnssec_store.refresh_due(session, cutoff, batch)
        for zone, row in due:
            central_zones.mark_pending(zone, "UPDATE", bump_serial=True)
            row.refreshed_at = utcnow()
        return len(due)

    total = 0
    while True:
        count = await svc.db.transaction(work)
        total += count
        if count < batch:
            break
    if total:
        svc.wake_worker()
    return total
