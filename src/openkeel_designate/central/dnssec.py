"""DNSSEC rules (extension): turn signing on or off for a zone, and show its keys and DS.

Turning signing on generates the zone's keys here — a KSK (flags 257) whose DS goes to the
parent and a ZSK (256) — and seals the private halves under the key-encryption key before they
reach the database; nothing of them is ever returned.  Any change of the setting is a zone
update (new serial, pushed like any write), so the pool's nameservers transfer the newly signed
(or unsigned) zone; mdns does the signing when it renders the transfer.  The setting's status
is that of a change (``central/change_status.py``): PENDING until it is served, then ACTIVE.

No step leaves a validator without a chain from the parent's DS:

* ZSK rollover (on request, or by the producer once a ZSK is ``[dnssec] zsk_rollover_period``
  days old): double signature — the new ZSK signs beside the old until caches drop the old
  DNSKEY set, then the producer removes the old one.
* KSK rollover (on request, completed on request): the new KSK is published and signs the DNSKEY
  set beside the old one, CDS/CDNSKEY name both, so the parent may hold either DS or both; the
  old KSK goes only when the tenant says the parent shows the new DS.
* Turning signing off (RFC 8078 §4): the zone stays signed and publishes the delete CDS/CDNSKEY
  (``state`` DISABLING) until the tenant confirms, by asking a second time, that the parent
  removed the DS; then it is served unsigned and its keys deleted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
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
from openkeel_designate.domain.dnssec import lifecycle
from openkeel_designate.storage import dnssec as dnssec_store
from openkeel_designate.storage import dnssec_kek
from openkeel_designate.storage import propagation as propagation_store
from openkeel_designate.storage.models import Zone, ZoneDnssec, ZoneDnssecKey, utcnow


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
    state: str = "UNSIGNED"  # SIGNED, DISABLING (going insecure, RFC 8078 §4) or UNSIGNED


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
            row = ZoneDnssec(zone_id=zone.id, enabled=False, disabling=False,
                             algorithm=values["algorithm"],
                             nsec=values["nsec"])
        await _apply(session, zone, row, values, kek)
        await _changed(session, zone, row)
        return await _view(session, zone)

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


@notifies("dns.zone.dnssec")
async def rollover(svc: Services, ctx: RequestContext, zone_id: str,
                   values: dict[str, Any] | None = None) -> DnssecView:
    """Roll a key: ``{"key": "ZSK"}`` (the default) or ``{"key": "KSK"}`` starts a rollover,
    ``{"key": "KSK", "action": "complete"}`` ends a KSK rollover (the old KSK goes)."""
    values = values or {"key": "ZSK", "action": "start"}
    kek = dnssec_kek.load(svc.conf) if values["action"] == "start" else b""

    async def work(session: AsyncSession) -> DnssecView:
        zone = await central_zones.load_visible(session, ctx, zone_id, for_update=True)
        svc.policy.check("update_zone_dnssec", ctx, central_zones.policy_target(zone))
        row = await dnssec_store.setting(session, zone.id, for_update=True)
        if row is None:
            raise errors.BadRequest("DNSSEC is not enabled for this zone")
        lifecycle.check_can_roll(bool(row.enabled), bool(row.disabling))
        if values["key"] == "ZSK":
            await _roll_zsk(session, zone, row, kek, svc.conf.dnssec.retire_margin)
        elif values["action"] == "start":
            await _start_ksk_rollover(session, zone, row, kek)
        else:
            await _complete_ksk_rollover(session, zone)
        await _changed(session, zone, row)
        return await _view(session, zone)

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


async def _roll_zsk(session: AsyncSession, zone: Zone, row: ZoneDnssec, kek: bytes,
                    margin: int) -> None:
    """A ZSK rollover by double signature: a new ZSK signs beside the old one, which stays
    published (RETIRING) until every cache holding the old DNSKEY set has let it go — the
    DNSKEY TTL plus ``margin`` seconds for the secondaries (``[dnssec] retire_margin``) —
    then the producer removes it."""
    retire_at = utcnow() + timedelta(seconds=zone.ttl + margin)
    lifecycle.retire_zsks(await dnssec_store.keys(session, zone.id), retire_at)
    await dnssec_store.add_key(session, _new_key(zone.id, row.algorithm,
                                                 dnssec_keys.ZONE_FLAGS, kek))


async def _start_ksk_rollover(session: AsyncSession, zone: Zone, row: ZoneDnssec,
                              kek: bytes) -> None:
    """A new KSK signs the DNSKEY set beside the old, which turns RETIRING with no time set:
    the zone validates from either DS, and its CDS/CDNSKEY name both, until the tenant
    completes the rollover.  One KSK rollover at a time."""
    lifecycle.retire_ksks(await dnssec_store.keys(session, zone.id))
    await dnssec_store.add_key(session, _new_key(zone.id, row.algorithm,
                                                 dnssec_keys.SEP_FLAGS, kek))


async def _complete_ksk_rollover(session: AsyncSession, zone: Zone) -> None:
    """The tenant says the parent shows the new DS (and its DS TTL has passed): the old KSK is
    no longer needed by any validator and goes."""
    for key in lifecycle.ksks_to_remove(await dnssec_store.keys(session, zone.id)):
        await dnssec_store.remove_key(session, key)


async def roll_zsks(svc: Services, period_days: int, now: datetime | None = None,
                    batch: int = 100) -> int:
    """Start a ZSK rollover in every signed zone whose ACTIVE ZSK is older than the period
    (``[dnssec] zsk_rollover_period``); 0 days: never."""
    if period_days <= 0:
        return 0
    cutoff = (now or utcnow()) - timedelta(days=period_days)

    async def work(session: AsyncSession) -> int:
        due = await dnssec_store.zsk_rollover_due(session, cutoff, batch)
        for zone, row in due:  # the key-encryption key only when there is a key to make
            await _roll_zsk(session, zone, row, dnssec_kek.load(svc.conf),
                            svc.conf.dnssec.retire_margin)
            await _changed(session, zone, row)
        return len(due)

    return await _in_batches(svc, work, batch)


async def _changed(session: AsyncSession, zone: Zone, row: ZoneDnssec) -> None:
    """The setting or keys changed: a zone update, whose serving the status follows."""
    central_zones.mark_pending(zone, "UPDATE", bump_serial=True)
    zone.updated_at = utcnow()
    row.requested_serial = zone.serial
    row.change_seq = zone.change_seq
    row.refreshed_at = utcnow()
    row.epoch_due = True  # signed differently: no IXFR across this serial
    await dnssec_store.save(session, row)


async def _apply(session: AsyncSession, zone: Zone, row: ZoneDnssec, values: dict[str, Any],
                 kek: bytes) -> None:
    """New keys when signing starts or the algorithm changes (an abrupt algorithm change:
    the parent's DS must follow).  Turning it off is two asks: the first starts DISABLING
    (delete CDS/CDNSKEY published, still signed), the second — once the parent has dropped
    the DS — drops the keys and the signatures."""
    if not values["enabled"]:
        if lifecycle.after_disable(bool(row.enabled), bool(row.disabling)) == \
                lifecycle.DISABLING:  # first ask: go insecure safely, still signed
            row.disabling = True
            return
        row.enabled, row.disabling = False, False  # confirmed (or never signed)
        await dnssec_store.replace_keys(session, zone.id, [])
        return
    row.disabling = False  # asking to sign again calls a disabling off
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
    state = lifecycle.setting_state(bool(row.enabled), bool(row.disabling))
    return DnssecView(zone.id, bool(row.enabled), status, row.algorithm, row.nsec, shown, ds,
                      state)


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
            await dnssec_store.new_epoch_due(session, zone.id)  # its signatures go
            central_zones.mark_pending(zone, "UPDATE", bump_serial=True)
        return len(due)

    return await _in_batches(svc, work, batch)


async def refresh_signatures(svc: Services, age: float, batch: int = 100) -> int:
    """Give every signed zone whose serial is older than ``age`` seconds a new one that
    starts a new signing epoch, so its signatures are renewed before they expire (every
    signature is made again from the new epoch when mdns renders the new version) and the
    secondaries transfer them."""
    cutoff = utcnow() - timedelta(seconds=age)

    async def work(session: AsyncSession) -> int:
        due = await dnssec_store.refresh_due(session, cutoff, batch)
        for zone, row in due:
            central_zones.mark_pending(zone, "UPDATE", bump_serial=True)
            row.refreshed_at = utcnow()
            row.epoch_due = True  # the new serial starts a new signing epoch
        return len(due)

    return await _in_batches(svc, work, batch)


async def _in_batches(svc: Services, work: Callable[[AsyncSession], Awaitable[int]],
                      batch: int) -> int:
    """``work`` (one transaction handling at most ``batch`` zones) until a batch comes back
    short; the worker is woken once if any zone got a new serial.  The total."""
    total = 0
    while True:
        count = await svc.db.transaction(work)
        total += count
        if count < batch:
            break
    if total:
        svc.wake_worker()
    return total
