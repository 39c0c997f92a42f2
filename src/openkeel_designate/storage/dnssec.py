"""SQL of DNSSEC signing: a zone's setting, its keys and its signing epoch (tables of
migrations 0009-0011)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, bindparam, case, delete, exists, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.dnswire.zonedata import SealedKey, ZoneSigning
from openkeel_designate.storage.database import Database, bounded
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import Zone, ZoneDnssec, ZoneDnssecKey


async def setting(session: AsyncSession, zone_id: str, for_update: bool = False
                  ) -> ZoneDnssec | None:
    query = select(ZoneDnssec).where(ZoneDnssec.zone_id == zone_id)
    if for_update:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def keys(session: AsyncSession, zone_id: str) -> list[ZoneDnssecKey]:
    return list((await session.execute(
        select(ZoneDnssecKey).where(ZoneDnssecKey.zone_id == zone_id)
        .order_by(ZoneDnssecKey.flags.desc(), ZoneDnssecKey.created_at))).scalars())


async def add_key(session: AsyncSession, key: ZoneDnssecKey) -> None:
    session.add(key)
    await session.flush()


async def retired(session: AsyncSession, now: datetime, limit: int
                  ) -> list[tuple[Zone, ZoneDnssecKey]]:
    """RETIRING keys past their ``retire_at``, with their (live) zone, locked."""
    query = (select(Zone, ZoneDnssecKey).join(ZoneDnssecKey, ZoneDnssecKey.zone_id == Zone.id)
             .where(ZoneDnssecKey.state == "RETIRING", ZoneDnssecKey.retire_at <= now,
                    Zone.deleted == zone_store.LIVE, Zone.action != "DELETE")
             .order_by(ZoneDnssecKey.retire_at).limit(limit).with_for_update())
    return [(zone, key) for zone, key in (await session.execute(query)).all()]


async def remove_key(session: AsyncSession, key: ZoneDnssecKey) -> None:
    await session.delete(key)
    await session.flush()


async def save(session: AsyncSession, row: ZoneDnssec) -> None:
    session.add(row)
    await session.flush()


async def replace_keys(session: AsyncSession, zone_id: str, new: list[ZoneDnssecKey]) -> None:
    await session.execute(delete(ZoneDnssecKey).where(ZoneDnssecKey.zone_id == zone_id))
    session.add_all(new)
    await session.flush()


def _claim_statements():  # noqa: ANN202 - prebuilt statements
    """What every claim asks of the DNSSEC tables, built once (``workqueue._write_statements``
    says why)."""
    zd = ZoneDnssec.__table__
    now = bindparam("b_now")
    later = case((or_(zd.c.epoch.is_(None), zd.c.epoch < now), now), else_=zd.c.epoch + 1)
    advance_epoch = (update(zd).where(zd.c.zone_id == bindparam("b_zone_id"),
                                      zd.c.epoch_due.is_(True))
                     .values(epoch=later, epoch_serial=bindparam("b_serial"), epoch_due=False))
    return bounded(advance_epoch)


_ADVANCE_EPOCH = _claim_statements()


def _signing_statement():  # noqa: ANN202 - prebuilt statement
    """mdns's read of a zone's signing, on every transfer (``zonesource._read_statements``):
    the setting with each of its keys, one row per key (one with no key columns when it has
    none), in one statement: the setting and the keys as two reads were two round trips to
    PostgreSQL on every transfer of every zone, the second wasted on the unsigned ones."""
    zd, zk = ZoneDnssec.__table__, ZoneDnssecKey.__table__
    return (select(zd.c.enabled, zd.c.nsec, zd.c.disabling, zd.c.epoch, zd.c.epoch_serial,
                   zk.c.flags, zk.c.algorithm, zk.c.private_key)
            .select_from(zd.outerjoin(zk, zk.c.zone_id == zd.c.zone_id))
            .where(zd.c.zone_id == bindparam("b_zone_id")).order_by(zk.c.id))


_SIGNING = _signing_statement()


def epoch_due(zone_id: ColumnElement[str]) -> ColumnElement[bool]:
    """Whether the zone's next serial starts a new signing epoch: a column of the claim's read
    of the zone, so that ``advance_epoch`` runs only then (it changed nothing on the other
    claims, yet cost each a statement)."""
    zd = ZoneDnssec.__table__
    return exists().where(zd.c.zone_id == zone_id, zd.c.epoch_due.is_(True)).label("epoch_due")


def is_signed(zone_id: ColumnElement[str]) -> ColumnElement[bool]:
    """Whether the zone ``zone_id`` has DNSSEC on, i.e. mdns transfers it signed: a column of
    the claim's read of the zone (the worker's push needs it; a read of its own cost a
    statement per claim)."""
    zd = ZoneDnssec.__table__
    return exists().where(zd.c.zone_id == zone_id, zd.c.enabled.is_(True)).label("signed")


async def signing(db: Database, zone_id: str) -> ZoneSigning | None:
    """The zone's signing setting; None when DNSSEC was never turned on for it (a point read)."""
    [found] = await db.point_reads([(_SIGNING, {"b_zone_id": zone_id})])
    if not found:
        return None
    row = found[0]
    return ZoneSigning(bool(row.enabled), row.nsec,
                       tuple(SealedKey(r.flags, r.algorithm, r.private_key)
                             for r in found if r.private_key is not None),
                       bool(row.enabled and row.disabling), row.epoch,
                       None if row.epoch_serial is None else int(row.epoch_serial))


async def advance_epoch(session: AsyncSession, zone_id: str, serial: int, now: int) -> None:
    """The zone got ``serial``: if a new signing epoch is due, it starts now, with this serial.

    Called by the worker's claim in the transaction that gives the zone its new serial, so the
    epoch and the serial change together: mdns never signs one serial with two epochs.  A new
    epoch is strictly later than the last (two changes in one second still differ)."""
    # one prebuilt statement, no read: the claim is on every write's path
    await (await session.connection()).execute(
        _ADVANCE_EPOCH, {"b_zone_id": zone_id, "b_now": now, "b_serial": serial})


async def new_epoch_due(session: AsyncSession, zone_id: str) -> None:
    """The zone's next serial starts a new signing epoch (what is signed and how changed)."""
    await session.execute(update(ZoneDnssec).where(ZoneDnssec.zone_id == zone_id)
                          .values(epoch_due=True))


async def refresh_due(session: AsyncSession, cutoff: datetime, limit: int
                      ) -> list[tuple[Zone, ZoneDnssec]]:
    """Signed live zones whose last new serial for their signatures is older than ``cutoff``,
    oldest first, locked."""
    query = (select(Zone, ZoneDnssec).join(ZoneDnssec, ZoneDnssec.zone_id == Zone.id)
             .where(ZoneDnssec.enabled.is_(True), ZoneDnssec.refreshed_at < cutoff,
                    Zone.deleted == zone_store.LIVE, Zone.action != "DELETE")
             .order_by(ZoneDnssec.refreshed_at).limit(limit)
             .with_for_update())
    return [(zone, row) for zone, row in (await session.execute(query)).all()]


async def zsk_rollover_due(session: AsyncSession, cutoff: datetime, limit: int
                           ) -> list[tuple[Zone, ZoneDnssec]]:
    """Signed live zones (not going insecure) with an ACTIVE ZSK (flags 256) created before
    ``cutoff``, locked."""
    old_zsk = (select(ZoneDnssecKey.id)
               .where(ZoneDnssecKey.zone_id == Zone.id, ZoneDnssecKey.state == "ACTIVE",
                      ZoneDnssecKey.flags == 256, ZoneDnssecKey.created_at < cutoff)
               .exists())
    query = (select(Zone, ZoneDnssec).join(ZoneDnssec, ZoneDnssec.zone_id == Zone.id)
             .where(ZoneDnssec.enabled.is_(True), ZoneDnssec.disabling.is_(False), old_zsk,
                    Zone.deleted == zone_store.LIVE, Zone.action != "DELETE")
             .order_by(Zone.id).limit(limit).with_for_update())
    return [(zone, row) for zone, row in (await session.execute(query)).all()]
