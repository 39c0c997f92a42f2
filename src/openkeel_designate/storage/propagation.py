"""Propagation rows (``zone_propagation``), the pending backlog, and the change log of a zone.

Written by the worker once per push (not per poll: a push polls up to hundreds of times) and by
a propagation request that found the rows stale; read by the API and ``manage zone status``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, case, delete, func, insert, literal_column, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.storage import arrays
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage import zonehistory
from openkeel_designate.storage.database import Database, bounded, execute, execute_count
from openkeel_designate.storage.models import (
    PoolNameserver,
    Timestamp,
    Zone,
    ZoneChange,
    ZonePropagation,
    utcnow,
)

NAMESERVER = "nameserver"
TARGET = "target"


@dataclass(frozen=True)
class Seen:
    """One server as seen now; ``kind`` is NAMESERVER or TARGET."""

    kind: str
    host: str
    port: int
    status: str
    serial: int | None = None
    error: str | None = None
    target_type: str | None = None


@dataclass(frozen=True)
class Backlog:
    by_status: dict[str, int]
    pending: int
    oldest_pending_since: datetime | None


async def record_many(db: Database, zones: list[tuple[str, list[Seen]]], *,
                      ahead: bool = False) -> None:
    """``record`` for the pushes of many zones, ended together (one write for a burst).

    On PostgreSQL one statement for them all (``_RECORD_ALL``), its own transaction
    (``Database.write_one``), where ``record`` sends an UPDATE per server and an INSERT for
    each it had no row of: four round trips for a new zone of a one-nameserver pool
    (bench/README.md, "fewer round trips per zone"), and a transaction's BEGIN and COMMIT
    two more. Elsewhere one transaction (``ahead``: ``Database.transaction``'s)."""
    if not db.writes_alone:
        async def each(session: AsyncSession) -> None:
            for zone_id, seen in zones:
                await record(session, zone_id, seen)
        await db.transaction(each, ahead=ahead, plain=True)
        return
    # One row per server: a zone pushed twice in one batch keeps its last observation (two
    # would both be inserted where the server has no row yet).
    latest = {(zone_id, item.kind, item.host, item.port): item
              for zone_id, seen in zones for item in seen}
    columns: dict[str, list] = {name: [] for name in _SEEN_COLUMNS}
    for (zone_id, kind, host, port), item in latest.items():
        for name, value in (("zone_id", zone_id), ("kind", kind), ("host", host), ("port", port),
                            ("status", item.status), ("serial", item.serial),
                            ("last_error", item.error or None),
                            ("target_type", item.target_type or None)):
            columns[name].append(value)
    await db.write_one(_RECORD_ALL, {
        "b_now": utcnow(), **{f"b_{name}": values for name, values in columns.items()}})


def _write_statements():  # noqa: ANN202 - prebuilt statements
    """Overwrite one server's row, or add it: built once and run as Core, since the worker
    writes them at the end of every push (built per call through the ORM, with a read of the
    rows first, they cost ~2.5 ms of CPU a push, bench/worker_inprocess.py)."""
    zp = ZonePropagation.__table__
    b = bindparam
    status, now = b("b_status", type_=zp.c.status.type), b("b_now", type_=Timestamp)
    # ``since`` first: MySQL evaluates SET from left to right, so it must see the old status.
    overwrite = update(zp).where(
        zp.c.zone_id == b("b_zone_id"), zp.c.kind == b("b_kind"), zp.c.host == b("b_host"),
        zp.c.port == b("b_port")).ordered_values(
        (zp.c.since, case((zp.c.status != status, now), else_=zp.c.since)),
        (zp.c.status, status), (zp.c.serial, b("b_serial")), (zp.c.checked_at, now),
        (zp.c.target_type, func.coalesce(b("b_target_type"), zp.c.target_type)),
        # A server back in sync keeps its last error, so "what went wrong" survives recovery.
        (zp.c.last_error, func.coalesce(b("b_error"), zp.c.last_error)))
    add = insert(zp).values(
        zone_id=b("b_zone_id"), kind=b("b_kind"), host=b("b_host"), port=b("b_port"),
        since=now, checked_at=now, status=status, serial=b("b_serial"),
        last_error=b("b_error"), target_type=b("b_target_type"))
    return bounded(overwrite), bounded(add)


_OVERWRITE, _ADD = _write_statements()
_SEEN_COLUMNS = ("zone_id", "kind", "host", "port", "status", "serial", "last_error", "target_type")


def _record_all():  # noqa: ANN202 - a prebuilt statement
    """``record`` of many servers' rows in one PostgreSQL statement: the observations as
    arrays, one per column (``arrays.unnested``), the rows of those servers overwritten by a
    data-modifying CTE, the others inserted. Not ``INSERT ... ON
    CONFLICT DO UPDATE``: it takes a value of the ``id`` sequence at every push of every zone,
    and a busy pool would run the 32-bit key out within years."""
    zp = ZonePropagation.__table__
    now = bindparam("b_now", type_=Timestamp)
    seen = arrays.unnested("seen", {name: zp.c[name].type for name in _SEEN_COLUMNS})
    same_server = [zp.c[name] == seen.c[name] for name in ("zone_id", "kind", "host", "port")]
    overwritten = update(zp).where(*same_server).values(
        since=case((zp.c.status != seen.c.status, now), else_=zp.c.since),
        status=seen.c.status, serial=seen.c.serial, checked_at=now,
        target_type=func.coalesce(seen.c.target_type, zp.c.target_type),
        last_error=func.coalesce(seen.c.last_error, zp.c.last_error),
    ).returning(zp.c.zone_id, zp.c.kind, zp.c.host, zp.c.port).cte("overwritten")
    known = select(literal_column("1")).where(*(overwritten.c[name] == seen.c[name]
                                       for name in ("zone_id", "kind", "host", "port")))
    return bounded(insert(zp).from_select(
        [*_SEEN_COLUMNS, "since", "checked_at"],
        select(*(seen.c[name] for name in _SEEN_COLUMNS), now, now).where(~known.exists())))


_RECORD_ALL = _record_all()


async def record(session: AsyncSession, zone_id: str, seen: list[Seen],
                 prune_nameservers: bool = False) -> None:
    """Overwrite what is known of each server; ``since`` moves only when its status changes.

    ``prune_nameservers``: ``seen`` lists every nameserver of the pool now, so rows of servers
    removed from it go.
    """
    now = utcnow()
    for item in seen:
        params = {"b_zone_id": zone_id, "b_kind": item.kind, "b_host": item.host,
                  "b_port": item.port, "b_status": item.status, "b_serial": item.serial,
                  "b_now": now, "b_error": item.error or None,
                  "b_target_type": item.target_type or None}
        if await execute_count(session, _OVERWRITE, params) == 0:
            await execute(session, _ADD, params)
    if prune_nameservers:
        keep = {(i.host, i.port) for i in seen if i.kind == NAMESERVER}
        for row in await for_zone(session, zone_id):
            if row.kind == NAMESERVER and (row.host, row.port) not in keep:
                await session.delete(row)
        await session.flush()


async def for_zone(session: AsyncSession, zone_id: str) -> list[ZonePropagation]:
    return list((await session.execute(
        select(ZonePropagation).where(ZonePropagation.zone_id == zone_id)
        .order_by(ZonePropagation.kind, ZonePropagation.host, ZonePropagation.port))).scalars())


async def served_serials(session: AsyncSession, zone_id: str, pool_id: str) -> list[int | None]:
    """The serial each nameserver of the pool was last seen serving (None: never seen)."""
    rows = (await session.execute(
        select(ZonePropagation.serial).select_from(PoolNameserver).outerjoin(
            ZonePropagation, (ZonePropagation.zone_id == zone_id)
            & (ZonePropagation.kind == NAMESERVER) & (ZonePropagation.host == PoolNameserver.host)
            & (ZonePropagation.port == PoolNameserver.port))
        .where(PoolNameserver.pool_id == pool_id))).scalars()
    return list(rows)


async def forget(session: AsyncSession, zone_id: str) -> None:
    await session.execute(delete(ZonePropagation).where(ZonePropagation.zone_id == zone_id))


async def backlog(session: AsyncSession) -> Backlog:
    """Live zones by status and the oldest unserved write: two indexed aggregate reads."""
    counts = dict((await session.execute(
        select(Zone.status, func.count()).where(Zone.deleted == zone_store.LIVE)
        .group_by(Zone.status))).all())
    oldest = (await session.execute(
        select(func.min(Zone.pending_since)).where(
            Zone.deleted == zone_store.LIVE, Zone.status.in_(zone_store.UNSERVED)))).scalar_one_or_none()
    pending = sum(counts.get(s, 0) for s in zone_store.UNSERVED)
    return Backlog(by_status=counts, pending=pending, oldest_pending_since=oldest)


async def changes(session: AsyncSession, zone_id: str, limit: int) -> list[dict]:
    """The zone's serial steps as mdns served them (IXFR history), newest first."""
    rows = (await session.execute(
        select(ZoneChange.serial, ZoneChange.from_serial, ZoneChange.added, ZoneChange.removed,
               ZoneChange.created_at).where(ZoneChange.zone_id == zone_id)
        .order_by(ZoneChange.id.desc()).limit(limit))).all()
    return [{"serial": r.serial, "from_serial": r.from_serial,
             "added": [_record(x) for x in zonehistory.content_rows(r.added)],
             "removed": [_record(x) for x in zonehistory.content_rows(r.removed)],
             "created_at": r.created_at} for r in rows]


def _record(row: list) -> dict:
    name, rtype, ttl, data = row
    return {"name": name, "type": rtype, "ttl": ttl, "data": data}


async def zone_id_by_name(session: AsyncSession, name_key: str) -> str | None:
    """The live zone of that (case-folded) name in any pool, for operators who type names."""
    return (await session.execute(select(Zone.id).where(
        Zone.name_key == name_key, Zone.deleted == zone_store.LIVE).limit(1))).scalar_one_or_none()
