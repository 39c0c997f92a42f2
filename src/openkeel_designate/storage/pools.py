"""SQL for pools and their parts (ns records, nameservers, targets, also-notifies)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, func, select, union_all, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import catalogzones, facts
from openkeel_designate.storage.filters import apply_criteria, paginate
from openkeel_designate.storage.models import (
    Pool,
    PoolAlsoNotify,
    PoolAttribute,
    PoolNameserver,
    PoolNsRecord,
    PoolTarget,
    PoolTargetMaster,
    PoolTargetOption,
    TsigKey,
    Zone,
    utcnow,
)
from openkeel_designate.storage.zones import LIVE


@dataclass
class PoolDetail:
    """A pool with every part loaded (what the worker and pools.yaml need)."""

    pool: Pool
    attributes: dict[str, str] = field(default_factory=dict)
    ns_records: list[PoolNsRecord] = field(default_factory=list)
    nameservers: list[PoolNameserver] = field(default_factory=list)
    targets: list[tuple[PoolTarget, dict[str, str], list[PoolTargetMaster]]] = field(
        default_factory=list)
    also_notifies: list[PoolAlsoNotify] = field(default_factory=list)


async def get(session: AsyncSession, pool_id: str) -> Pool | None:
    return await session.get(Pool, pool_id)


@dataclass(frozen=True)
class Placement:
    """Every pool with what the scheduler and a new zone's NS records need of it."""

    names: dict[str, str]  # pool id -> name, every pool
    attributes: dict[str, dict[str, str]]  # pool id -> its attributes (every pool has an entry)
    ns_hostnames: dict[str, list[str]]  # pool id -> NS hostnames by priority, then age


def _placement_parts() -> list:
    """The branches (``storage/facts.py``) that read every pool, its attributes and NS records:
    a handful of rows, read whole by the scheduler and by a zone create."""
    p, a, ns = Pool.__table__, PoolAttribute.__table__, PoolNsRecord.__table__
    return [select(*facts.row("pool", p.c.id, p.c.name)),
            select(*facts.row("pool_attribute", a.c.pool_id, a.c.key, a.c.value)),
            select(*facts.row("ns", ns.c.pool_id, ns.c.hostname, ns.c.created_at,
                              number=ns.c.priority))]


PLACEMENT_PARTS = _placement_parts()
_PLACEMENT = union_all(*PLACEMENT_PARTS)


def placement_of(found: list) -> Placement:
    """``Placement`` from the rows of ``PLACEMENT_PARTS`` (other kinds are skipped)."""
    pool_names: dict[str, str] = {}
    attributes: dict[str, dict[str, str]] = defaultdict(dict)
    ns: list[tuple[int, str, str, str]] = []
    for kind, first, second, third, *_rest, number in found:
        if kind == "pool":
            pool_names[first] = second
        elif kind == "pool_attribute":
            attributes[first][second] = third
        elif kind == "ns":
            ns.append((number, third or "", first, second))
    hostnames: dict[str, list[str]] = defaultdict(list)
    for _priority, _created, pool_id, hostname in sorted(ns, key=lambda row: row[:2]):
        hostnames[pool_id].append(hostname)
    return Placement(pool_names, {pool_id: attributes[pool_id] for pool_id in pool_names},
                     hostnames)


async def placement(session: AsyncSession) -> Placement:
    """Every pool, its attributes and NS records in one read (the scheduler's input)."""
    connection = await session.connection()
    return placement_of(list(await connection.execute(_PLACEMENT)))


async def find(session: AsyncSession, page: Page) -> list[Pool]:
    query = apply_criteria(select(Pool), Pool, page.criteria)
    return list((await session.execute(await paginate(session, query, Pool, page))).scalars())


async def all_pools(session: AsyncSession) -> list[Pool]:
    return list((await session.execute(select(Pool))).scalars())


async def count(session: AsyncSession) -> int:
    return (await session.execute(select(func.count()).select_from(Pool))).scalar_one()


async def ns_records(session: AsyncSession, pool_ids: list[str]) -> dict[str, list[PoolNsRecord]]:
    result: dict[str, list[PoolNsRecord]] = defaultdict(list)
    if pool_ids:
        query = select(PoolNsRecord).where(PoolNsRecord.pool_id.in_(pool_ids)).order_by(
            PoolNsRecord.priority, PoolNsRecord.created_at)
        for row in (await session.execute(query)).scalars():
            result[row.pool_id].append(row)
    return result


async def attributes(session: AsyncSession, pool_ids: list[str]) -> dict[str, dict[str, str]]:
    result: dict[str, dict[str, str]] = defaultdict(dict)
    if pool_ids:
        query = select(PoolAttribute).where(PoolAttribute.pool_id.in_(pool_ids))
        for row in (await session.execute(query)).scalars():
            result[row.pool_id][row.key] = row.value
    return result


async def detail(session: AsyncSession, pool_id: str) -> PoolDetail | None:
    pool = await session.get(Pool, pool_id)
    if pool is None:
        return None
    out = PoolDetail(pool=pool)
    out.attributes = (await attributes(session, [pool_id]))[pool_id]
    out.ns_records = (await ns_records(session, [pool_id]))[pool_id]
    out.nameservers = list((await session.execute(
        select(PoolNameserver).where(PoolNameserver.pool_id == pool_id)
        .order_by(PoolNameserver.created_at))).scalars())
    out.also_notifies = list((await session.execute(
        select(PoolAlsoNotify).where(PoolAlsoNotify.pool_id == pool_id))).scalars())
    targets = list((await session.execute(
        select(PoolTarget).where(PoolTarget.pool_id == pool_id)
        .order_by(PoolTarget.created_at))).scalars())
    for target in targets:
        options = dict((await session.execute(
            select(PoolTargetOption.key, PoolTargetOption.value)
            .where(PoolTargetOption.pool_target_id == target.id))).all())
        target_masters = list((await session.execute(
            select(PoolTargetMaster).where(PoolTargetMaster.pool_target_id == target.id)))
            .scalars())
        out.targets.append((target, options, target_masters))
    return out


async def clear_parts(session: AsyncSession, pool_id: str) -> None:
    """Remove every part of a pool before it is written again from pools.yaml."""
    target_ids = select(PoolTarget.id).where(PoolTarget.pool_id == pool_id)
    await session.execute(delete(PoolTargetOption).where(
        PoolTargetOption.pool_target_id.in_(target_ids)))
    await session.execute(delete(PoolTargetMaster).where(
        PoolTargetMaster.pool_target_id.in_(target_ids)))
    for model in (PoolTarget, PoolAttribute, PoolNsRecord, PoolNameserver, PoolAlsoNotify):
        await session.execute(delete(model).where(model.pool_id == pool_id))


async def clear_created_at(session: AsyncSession, pool_id: str) -> None:
    await session.execute(update(Pool).where(Pool.id == pool_id).values(created_at=None))


async def count_active_zones(session: AsyncSession, pool_id: str) -> int:
    """Live zones of the pool that are not being deleted (they block a pool's deletion)."""
    query = select(func.count()).select_from(Zone).where(
        Zone.pool_id == pool_id, Zone.deleted == LIVE, Zone.action != "DELETE")
    return (await session.execute(query)).scalar_one()


async def live_zones(session: AsyncSession, pool_id: str) -> list[Zone]:
    query = select(Zone).where(Zone.pool_id == pool_id, Zone.deleted == LIVE,
                               Zone.action != "DELETE").with_for_update()
    return list((await session.execute(query)).scalars())


async def replace_ns_records(session: AsyncSession, pool_id: str,
                             ns_records: list[tuple[int, str]]) -> None:
    await session.execute(delete(PoolNsRecord).where(PoolNsRecord.pool_id == pool_id))
    session.add_all(PoolNsRecord(pool_id=pool_id, priority=priority, hostname=hostname)
                    for priority, hostname in ns_records)


async def replace_attributes(session: AsyncSession, pool_id: str, values: dict[str, str]) -> None:
    await session.execute(delete(PoolAttribute).where(PoolAttribute.pool_id == pool_id))
    session.add_all(PoolAttribute(pool_id=pool_id, key=k, value=v) for k, v in values.items())


async def delete_pool(session: AsyncSession, pool_id: str) -> None:
    await clear_parts(session, pool_id)
    await session.execute(delete(Pool).where(Pool.id == pool_id))


async def insert(session: AsyncSession, name: str, description: str | None,
                 tenant_id: str | None, attributes: dict[str, str],
                 ns_records: list[tuple[int, str]]) -> Pool:
    """A pool made through the (deprecated) API: NS records and attributes, no targets."""
    pool = Pool(name=name, description=description, tenant_id=tenant_id, created_at=utcnow())
    session.add(pool)
    await session.flush()
    session.add_all(PoolAttribute(pool_id=pool.id, key=key, value=value)
                    for key, value in attributes.items())
    session.add_all(PoolNsRecord(pool_id=pool.id, priority=priority, hostname=hostname)
                    for priority, hostname in ns_records)
    await session.flush()
    return pool


async def write_definition(session: AsyncSession, definition: dict[str, Any],
                           pool: Pool | None = None) -> str:
    """A pool as pools.yaml defines it, every part rewritten; its id."""
    if pool is None:
        pool = Pool(created_at=None)
        if definition.get("id"):
            pool.id = definition["id"]
        session.add(pool)
    pool.name = definition["name"]
    pool.description = definition.get("description")
    pool.updated_at = utcnow()
    await session.flush()
    await clear_parts(session, pool.id)
    for key, value in (definition.get("attributes") or {}).items():
        session.add(PoolAttribute(pool_id=pool.id, key=str(key), value=str(value)))
    for ns in definition.get("ns_records") or []:
        session.add(PoolNsRecord(pool_id=pool.id, priority=int(ns.get("priority", 1)),
                                 hostname=ns["hostname"], created_at=utcnow()))
    for ns in definition.get("nameservers") or []:
        session.add(PoolNameserver(pool_id=pool.id, host=ns["host"], port=int(ns.get("port", 53)),
                                   created_at=utcnow()))
    for notify in definition.get("also_notifies") or []:
        session.add(PoolAlsoNotify(pool_id=pool.id, host=notify["host"],
                                   port=int(notify.get("port", 53))))
    for target_def in definition.get("targets") or []:
        target = PoolTarget(pool_id=pool.id, type=target_def["type"],
                            description=target_def.get("description"),
                            tsigkey_id=target_def.get("tsigkey_id"), created_at=utcnow())
        session.add(target)
        await session.flush()
        for key, value in (target_def.get("options") or {}).items():
            session.add(PoolTargetOption(pool_target_id=target.id, key=str(key), value=str(value)))
        for master in target_def.get("masters") or []:
            session.add(PoolTargetMaster(pool_target_id=target.id, host=master["host"],
                                         port=int(master.get("port", 5354))))
    await catalogzones.write(session, pool.id, definition.get("catalog_zone"))
    await session.flush()
    return pool.id


async def has_pool_tsigkey(session: AsyncSession, pool_id: str) -> bool:
    query = select(func.count()).select_from(TsigKey).where(TsigKey.scope == "POOL",
                                                           TsigKey.resource_id == pool_id)
    return (await session.execute(query)).scalar_one() > 0
