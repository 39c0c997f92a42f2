"""Pools: read through the API, written from pools.yaml (``manage pool update``).

With no pools file the embedded default pool exists: NS ``ns1.example.net.`` and one target of
type ``builtin`` — the built-in nameserver, pulling from this process's mdns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.central import zone_ns
from openkeel_designate.central.notifications import notifies
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage.database import flush
from openkeel_designate.storage.rows import snapshot
from openkeel_designate.storage.models import Pool, utcnow


@dataclass(frozen=True)
class PoolView:
    pool: Any  # the pool's columns, frozen (storage.rows.snapshot), never the row
    attributes: dict[str, str]
    ns_records: list[tuple[int, str]]


async def _views(session: AsyncSession, pools: list[Pool]) -> list[PoolView]:
    ids = [p.id for p in pools]
    attrs = await pool_store.attributes(session, ids)
    ns = await pool_store.ns_records(session, ids)
    return [PoolView(snapshot(p), attrs.get(p.id, {}), [(r.priority, r.hostname) for r in ns.get(p.id, [])])
            for p in pools]


async def find_pools(svc: Services, ctx: RequestContext, page: Page) -> list[PoolView]:
    svc.policy.check("find_pools", ctx)
    async with svc.db.read() as session:
        return await _views(session, await pool_store.find(session, page))


async def get_pool(svc: Services, ctx: RequestContext, pool_id: str) -> PoolView:
    svc.policy.check("get_pool", ctx)
    async with svc.db.read() as session:
        pool = await pool_store.get(session, pool_id)
        if pool is None:
            raise errors.PoolNotFound("Could not find Pool")
        return (await _views(session, [pool]))[0]


@notifies("dns.pool.create")
async def create_pool(svc: Services, ctx: RequestContext, values: dict[str, Any]) -> PoolView:
    """Deprecated in Designate but still answered: a pool with NS records only."""
    svc.policy.check("create_pool", ctx)

    async def work(session: AsyncSession) -> PoolView:
        if any(p.name == values["name"] for p in await pool_store.all_pools(session)):
            raise errors.DuplicatePool("Duplicate Pool")
        project_id = values.get("project_id")
        pool = await pool_store.insert(
            session, values["name"], values.get("description"),
            ctx.project_id if project_id is None else project_id,
            values.get("attributes") or {},
            [(ns["priority"], ns["hostname"]) for ns in values.get("ns_records") or []])
        return (await _views(session, [pool]))[0]

    return await svc.db.transaction(work)


def default_pool_definition(svc: Services) -> dict[str, Any]:
    """The embedded default pool, pointing at this configuration's nameserver and mdns."""
    from openkeel_designate.config import parse_hostport

    ns_host, ns_port = parse_hostport(svc.conf["service:nameserver"].listen[0], 5300)
    mdns_host, mdns_port = parse_hostport(svc.conf["service:mdns"].listen[0], 5354)
    return {
        "id": svc.conf["service:central"].default_pool_id,
        "name": "default",
        "description": "Default pool (built-in nameserver)",
        "attributes": {},
        "ns_records": [{"hostname": "ns1.example.net.", "priority": 1}],
        "nameservers": [{"host": ns_host, "port": ns_port}],
        "targets": [{"type": "builtin", "description": "built-in nameserver",
                     "masters": [{"host": mdns_host, "port": mdns_port}],
                     "options": {"host": ns_host, "port": ns_port}}],
        "also_notifies": [],
    }


async def ensure_default_pool(svc: Services) -> None:
    """Create the embedded default pool when no pool exists yet (first start).

    Processes started at the same instant on a fresh database all find no pool and all write
    the default one; its fixed id makes every writer but the first fail on the primary key, and
    that writer's whole transaction (pool and parts) is rolled back. Losing that race is a
    success: the pool is there, written once.
    """
    async def work(session: AsyncSession) -> None:
        if await pool_store.count(session) == 0:
            pool_id = await pool_store.write_definition(session, default_pool_definition(svc))
            await pool_store.clear_created_at(session, pool_id)  # as Designate's migration row

    try:
        await svc.db.transaction(work)
    except errors.Duplicate:
        async with svc.db.read() as session:
            if await pool_store.count(session) == 0:
                raise


async def update_from_definitions(svc: Services, definitions: list[dict[str, Any]],
                                  delete_missing: bool = False) -> list[str]:
    """Replace pools from pools.yaml definitions; returns the ids written.

    The default pool (``default_pool_id``, named ``default``) always exists first, as after
    Designate's migrations, so a file that names it without an id updates it in place.
    """
    await ensure_default_pool(svc)

    async def work(session: AsyncSession) -> list[str]:
        existing = {p.name: p for p in await pool_store.all_pools(session)}
        written = []
        for definition in definitions:
            pool = None
            if definition.get("id"):
                pool = await pool_store.get(session, definition["id"])
            if pool is None:
                pool = existing.get(definition["name"])
            before = [] if pool is None else [
                r.hostname for r in (await pool_store.ns_records(session, [pool.id]))[pool.id]]
            pool_id = await pool_store.write_definition(session, definition, pool)
            after = [ns["hostname"] for ns in definition.get("ns_records") or []]
            if pool is not None and before != after:
                await zone_ns.apply_pool_ns(session, pool_id, after)
            written.append(pool_id)
        if delete_missing:
            for pool in await pool_store.all_pools(session):
                if pool.id not in written:
                    if await pool_store.live_zones(session, pool.id):
                        raise errors.InvalidOperation(
                            f"pool {pool.name} must not contain zones to be deleted")
                    await pool_store.delete_pool(session, pool.id)
        return written

    try:
        written = await svc.db.transaction(work)
    except errors.Duplicate:
        # Another `pool update` created a pool of the same name meanwhile: the second run finds
        # it by name and updates it in place (the pool row's lock orders the two writers).
        written = await svc.db.transaction(work)
    svc.wake_worker()
    return written


@notifies("dns.pool.update")
async def update_pool(svc: Services, ctx: RequestContext, pool_id: str,
                      values: dict[str, Any]) -> PoolView:
    """Deprecated in Designate but answered: new NS records are applied to the pool's zones."""
    svc.policy.check("update_pool", ctx)

    async def work(session: AsyncSession) -> PoolView:
        pool = await pool_store.get(session, pool_id)
        if pool is None:
            raise errors.PoolNotFound("Could not find Pool")
        name = values.get("name")
        if name is not None and name != pool.name and any(
                p.name == name for p in await pool_store.all_pools(session)):
            raise errors.DuplicatePool("Duplicate Pool")
        for key in ("name", "description"):
            if key in values and (values[key] is not None or key == "description"):
                setattr(pool, key, values[key])
        if values.get("project_id") is not None and not pool.tenant_id:
            pool.tenant_id = values["project_id"]  # immutable: only while still unset
        if values.get("attributes") is not None:
            await pool_store.replace_attributes(session, pool.id, values["attributes"])
        if values.get("ns_records") is not None:
            await _replace_ns_records(session, pool, values["ns_records"])
        pool.version = (pool.version or 0) + 1
        pool.updated_at = utcnow()
        await flush(session)
        return (await _views(session, [pool]))[0]

    result = await svc.db.transaction(work)
    svc.wake_worker()
    return result


async def _replace_ns_records(session: AsyncSession, pool: Pool,
                              ns_records: list[dict[str, Any]]) -> None:
    if not ns_records:
        raise errors.LastServerDeleteNotAllowed("Not allowed to delete last of servers")
    wanted = [(int(ns["priority"]), ns["hostname"]) for ns in ns_records]
    current = (await pool_store.ns_records(session, [pool.id]))[pool.id]
    if sorted(wanted) == sorted((ns.priority, ns.hostname) for ns in current):
        return
    await pool_store.replace_ns_records(session, pool.id, wanted)
    await zone_ns.apply_pool_ns(session, pool.id, [host for _, host in sorted(wanted)])


@notifies("dns.pool.delete")
async def delete_pool(svc: Services, ctx: RequestContext, pool_id: str) -> PoolView:
    svc.policy.check("delete_pool", ctx)

    async def work(session: AsyncSession) -> PoolView:
        pool = await pool_store.get(session, pool_id)
        if pool is None:
            raise errors.PoolNotFound("Could not find Pool")
        if await pool_store.count_active_zones(session, pool_id):
            raise errors.InvalidOperation("pool must not contain zones")
        deleted = (await _views(session, [pool]))[0]
        await pool_store.delete_pool(session, pool_id)
        return deleted

    return await svc.db.transaction(work)
