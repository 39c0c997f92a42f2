"""SQL for zones and what hangs on them (attributes, masters, shares)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import (ColumnElement, Select, String, bindparam, cast, delete, exists, func, literal,
                        or_, select, true, union_all, update)
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import json_pairs, quotas, rows
from openkeel_designate.storage.database import Database, bounded, execute, execute_count
from openkeel_designate.storage.filters import apply_criteria, ordered, paginate
from openkeel_designate.storage.models import (SharedZone, Timestamp, Zone, ZoneAttribute, ZoneMaster,
                                              utcnow)
from openkeel_designate.storage.point_reads import Query

LIVE = "0"  # value of ``zones.deleted`` for a zone that is not soft-deleted
# The statuses of a zone or record the worker has still to push (an ERROR is retried).
UNSERVED = ("PENDING", "ERROR")
ZoneRow = tuple[object, bool, dict[str, str], list[tuple[str, int]]]  # zone, shared, attrs, masters


def _visible(query, project_id: str | None, all_tenants: bool):
    """Zones the caller may see: own zones plus zones shared with the project."""
    query = query.where(Zone.deleted == LIVE)
    if all_tenants:
        return query
    shared = select(SharedZone.zone_id).where(SharedZone.target_project_id == project_id)
    return query.where(or_(Zone.tenant_id == project_id, Zone.id.in_(shared)))


async def by_id(session: AsyncSession, zone_id: str, *, lock: bool = False) -> Zone | None:
    """The zone row in whatever state (soft-deleted too), locked when asked."""
    return await session.get(Zone, zone_id, with_for_update=lock)


async def reload(session: AsyncSession, zone: Zone) -> None:
    """Read the row again after a statement that changed it behind the session's back."""
    await session.refresh(zone)


def _zone_columns(zone) -> list:  # noqa: ANN001 - ``Zone`` or the columns of its table
    """A zone's columns (``rows.table_columns``), then whether it has any share, then its
    attributes and its masters folded into the same row (``json_pairs``): what a zone read
    hands to the API, in one statement. ``_zone_row`` reads it."""
    s, a, m = SharedZone.__table__, ZoneAttribute.__table__, ZoneMaster.__table__
    return [*rows.table_columns(Zone),
            exists().where(s.c.zone_id == zone.id).label("shared"),
            json_pairs.column(a.c.key, a.c.value, a.c.zone_id == zone.id, "attributes"),
            json_pairs.column(m.c.host, m.c.port, m.c.zone_id == zone.id, "masters")]


_SHARED_AT = len(rows.table_columns(Zone))  # where ``_zone_columns`` puts the shared flag


def _zone_row(row) -> ZoneRow:  # noqa: ANN001 - a row of ``_zone_columns`` (more may follow)
    """(frozen copy of the zone, shared, attributes, masters) of one row of ``_zone_columns``."""
    shared, attributes, masters = row[_SHARED_AT:_SHARED_AT + 3]
    return (rows.frozen(Zone, row), bool(shared), dict(json_pairs.pairs(attributes)),
            [(host, int(port)) for host, port in json_pairs.pairs(masters)])


def visible_to(project):  # noqa: ANN001, ANN201 - a bound value or None; a condition
    """The condition "the zone (table ``zones``) is the project's own or shared with it", for
    prebuilt statements: ``project`` is a bound parameter, or None for a caller without a
    project ("tenant_id IS NULL", which a bound value cannot say)."""
    z, s = Zone.__table__, SharedZone.__table__
    return or_(z.c.tenant_id == project, z.c.id.in_(
        select(s.c.zone_id).where(s.c.target_project_id == project)))


def by_asker(statement: Callable[[ColumnElement], Select]) -> dict[str, Select]:
    """``statement``, given the condition on the zone, built once for each kind of caller:
    ``"any"`` (all tenants), ``"project"`` (own or shared, a bound ``project_id``) and
    ``"none"`` (no project: "tenant_id IS NULL", which a bound value cannot say)."""
    return {"any": statement(true()), "project": statement(visible_to(bindparam("project_id"))),
            "none": statement(visible_to(None))}


def asker(project_id: str | None, all_tenants: bool) -> tuple[str, dict[str, str]]:
    """Which of ``by_asker``'s statements fits the caller, with its project parameter."""
    if all_tenants:
        return "any", {}
    if project_id is not None:
        return "project", {"project_id": project_id}
    return "none", {}


def _hot_reads():  # noqa: ANN202 - prebuilt statements
    """The statements of ``GET /v2/zones/{id}``, and the zone row as another read's visible
    zone, built once per kind of caller (``by_asker``): per request only the values change.

    Built from the tables (not the mapped classes), they skip SQLAlchemy's per-call statement
    construction and ORM loading, which cost more than the queries on a warm database.
    """
    z = Zone.__table__
    live = (z.c.id == bindparam("zone_id"), z.c.deleted == LIVE)
    return (by_asker(lambda visible: select(*_zone_columns(z.c)).where(*live, visible)),
            by_asker(lambda visible: select(*rows.table_columns(Zone)).where(*live, visible)))


# ``GET /v2/zones/{id}``; the zone's own columns alone (a frozen copy), if the caller may see it
_GET, VISIBLE_ROW = _hot_reads()


async def get_visible(db: Database, zone_id: str, *, project_id: str | None, all_tenants: bool
                      ) -> ZoneRow | None:
    """(frozen copy of the zone, whether it has shares, its attributes, its masters), if the
    caller may see it: ``GET /v2/zones/{id}``, as one point read (``Database.point_reads``)."""
    who, params = asker(project_id, all_tenants)
    query = (_GET[who], {"zone_id": zone_id, **params})
    [found] = await db.point_reads([query])
    return _zone_row(found[0]) if found else None


def _row_reads() -> dict[tuple[bool, bool], object]:
    """``get``'s statements by (all tenants, for update), built once.

    Every write loads (and locks) its zone through ``get``; the statement is the one
    ``_visible`` builds, with the zone and project as bound values, so only the values change
    per request (building it cost about as much as running it on a warm database).
    """
    shared = select(SharedZone.zone_id).where(SharedZone.target_project_id == bindparam("project_id"))
    any_zone = select(Zone).where(Zone.id == bindparam("zone_id"), Zone.deleted == LIVE)
    visible = any_zone.where(or_(Zone.tenant_id == bindparam("project_id"), Zone.id.in_(shared)))
    return {(True, False): any_zone, (True, True): any_zone.with_for_update(),
            (False, False): visible, (False, True): visible.with_for_update()}


_ROW_READS = _row_reads()


def _write_path():  # noqa: ANN202 - prebuilt statements
    """A recordset create's zone read (locked) and zone update, built once from the table.

    The create is the hottest write: an ORM load of the zone and the flush of its changed
    attributes cost more CPU than both statements (bench/README.md, "Recordset writes under a
    stream"), and the create changes nothing else of the zone, so the row is read as a frozen
    copy and written by one UPDATE that does its own arithmetic.
    """
    z = Zone.__table__
    now = bindparam("now", type_=z.c.updated_at.type)
    pending = update(z).where(z.c.id == bindparam("zone_id")).values(
        action=bindparam("action"), status="PENDING", change_seq=z.c.change_seq + 1,
        version=z.c.version + 1, next_attempt_at=None, error_reason=None,
        pending_since=func.coalesce(z.c.pending_since, now), updated_at=now)
    # The same mark, made only if no write came between the read and it (``unchanged_params``,
    # ``recordsets.create_if_unchanged``); the zone's id comes back when it was made.
    unchanged = pending.where(z.c.change_seq == bindparam("read_change_seq"),
                              z.c.tenant_id == bindparam("read_tenant_id"),
                              z.c.deleted == LIVE).returning(z.c.id)
    return ({True: VISIBLE_ROW["any"].with_for_update(),
             False: VISIBLE_ROW["project"].with_for_update()},
            {False: bounded(pending), True: bounded(pending.values(increment_serial=True))},
            {False: unchanged, True: unchanged.values(increment_serial=True)})


_LOCKED_READS, MARK_PENDING, MARK_PENDING_IF_UNCHANGED = _write_path()


async def get_locked_copy(session: AsyncSession, zone_id: str, *, project_id: str | None,
                          all_tenants: bool) -> object | None:
    """A frozen copy of the zone if the caller may see it, its row locked (as ``get`` with
    ``for_update``) until the transaction ends. Writes to it go through ``mark_pending``."""
    if not all_tenants and project_id is None:
        zone = await get(session, zone_id, project_id=None, all_tenants=False, for_update=True)
        return None if zone is None else rows.snapshot(zone)
    params = {"zone_id": zone_id} if all_tenants else {"zone_id": zone_id, "project_id": project_id}
    found = await execute(session, _LOCKED_READS[all_tenants], params)
    return rows.frozen(Zone, found[0]) if found else None


async def mark_pending(session: AsyncSession, zone_id: str, action: str, bump_serial: bool) -> None:
    """``central.zones.mark_pending`` as one UPDATE, for a zone held as a frozen copy."""
    await execute(session, MARK_PENDING[bump_serial], pending_params(zone_id, action))


def pending_params(zone_id: str, action: str) -> dict[str, Any]:
    """The parameters of ``MARK_PENDING`` (also inside ``recordsets.insert_marking_pending``)."""
    return {"zone_id": zone_id, "action": action, "now": utcnow()}


def unchanged_params(zone: Any, action: str) -> dict[str, Any]:
    """The parameters of ``MARK_PENDING_IF_UNCHANGED``: those of ``MARK_PENDING``, and what
    the zone read found (``zone``, a frozen copy) that no write may have changed since.

    Every write that can change what a recordset create's rules read of its zone bumps
    ``change_seq`` (``central.zones.mark_pending``: the zone's recordsets and records, its
    own settings, its deletion); a transfer changes the owner, which is compared too."""
    return {**pending_params(zone.id, action), "read_change_seq": zone.change_seq,
            "read_tenant_id": zone.tenant_id}


async def get(session: AsyncSession, zone_id: str, *, project_id: str | None = None,
              all_tenants: bool = True, for_update: bool = False) -> Zone | None:
    if all_tenants or project_id is not None:
        query, params = _ROW_READS[(all_tenants, for_update)], {"zone_id": zone_id}
        if not all_tenants:
            params["project_id"] = project_id
        return (await session.execute(query, params)).scalar_one_or_none()
    # no project: "tenant_id IS NULL", which a bound value cannot say
    query = _visible(select(Zone).where(Zone.id == zone_id), project_id, all_tenants)
    if for_update:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def find(db: Database, page: Page, *, project_id: str | None, all_tenants: bool,
               hide_catalog: bool) -> tuple[list[ZoneRow], int]:
    """One page of (frozen copy of the zone, shared, attributes, masters), and the total count
    of matches.

    Without zones shared with the project (an indexed lookup, usually empty) the page is
    ``tenant_id = :project AND deleted = '0'``: PostgreSQL then walks
    ``ix_zones_tenant_deleted_created_id`` for the first page instead of sorting every zone of
    the project (0.2 ms instead of 47 ms with 100,000 zones; bench/scale.py), and a later page
    starts inside that index at the marker's (created_at, id) (filters.Keyset). In the default
    order that first page is a walk of at most ``limit`` index entries, so it is read as a
    point read (``Database.point_reads``; a count over a large project outruns their step
    budget and is read the usual way), in one statement with the count and the shares lookup
    (``_plain_list``).
    """
    plain = (not all_tenants and project_id is not None and not page.criteria
             and page.marker is None)
    if plain and page.sort_key in (None, "created_at") and page.limit is not None:
        assert project_id is not None
        found = await _plain_page(db.point_reads, page, project_id, hide_catalog)
        if found is not None:
            return found
    async with db.read() as session:
        return await _find_in(session, page, project_id, all_tenants, hide_catalog, plain)


Reads = Callable[[list[Query]], Awaitable[list[list]]]


async def _plain_page(read: Reads, page: Page, project_id: str, hide_catalog: bool
                      ) -> tuple[list[ZoneRow], int] | None:
    """``find`` of the project's own zones, or None when some zone is shared with the project.

    One statement as a rule: each row of the page carries the count and the shares lookup too;
    only an empty page asks for them on their own."""
    paged, header = _plain_list(page, hide_catalog)
    params = {"project_id": project_id, "limit": page.limit}
    [found] = await read([(paged, params)])
    if found:
        total, shares = found[0][_SHARED_AT + 3:_SHARED_AT + 5]
    else:
        [[(total, shares)]] = await read([(header, params)])
    if shares:
        return None
    return [_zone_row(row) for row in found], total


async def _find_in(session: AsyncSession, page: Page, project_id: str | None, all_tenants: bool,
                   hide_catalog: bool, plain: bool) -> tuple[list[ZoneRow], int]:
    """``find``'s page and count, in ``session``."""
    connection = await session.connection()
    if plain:
        assert project_id is not None

        async def read(queries: list[Query]) -> list[list]:
            return [list(await connection.execute(statement, params)) for statement, params in queries]

        found = await _plain_page(read, page, project_id, hide_catalog)
        if found is not None:  # the usual list: a project's own zones, first page, no filter
            return found
    columns = rows.table_columns(Zone)  # plain tuples, frozen by ``_zone_row``: no ORM loading
    if all_tenants:
        query = _visible(select(*columns), project_id, all_tenants)
    else:
        shared = list((await session.execute(select(SharedZone.zone_id).where(
            SharedZone.target_project_id == project_id))).scalars())
        own = Zone.tenant_id == project_id
        query = select(*columns).where(Zone.deleted == LIVE, or_(own, Zone.id.in_(shared)) if shared else own)
    if hide_catalog:
        query = query.where(Zone.type != "CATALOG")
    query = apply_criteria(query, Zone, page.criteria)
    total = (await session.execute(select(func.count()).select_from(query.subquery()))).scalar_one()
    paged = await paginate(session, query.with_only_columns(*_zone_columns(Zone)), Zone, page)
    return [_zone_row(row) for row in await session.execute(paged)], total


_SHARED_WITH = select(SharedZone.__table__.c.zone_id).where(
    SharedZone.__table__.c.target_project_id == bindparam("project_id"))
# (sort key, sort dir, limited, hide catalog) -> (page, header) statements, bound per request.
_PLAIN_LISTS: dict[tuple, tuple] = {}


def _plain_list(page: Page, hide_catalog: bool) -> tuple:
    """The page and header statements of ``find`` without filter or marker, built once per
    shape: the same SQL as the general path, with the project and limit as bound values.

    The header is (count of the project's zones, whether any zone is shared with the project);
    the page's rows are ``_zone_columns`` followed by the header's two columns. Each engine
    computes an uncorrelated subquery of the select list once per statement, not per row.
    """
    shape = (page.sort_key, page.sort_dir, page.limit is not None, hide_catalog)
    known = _PLAIN_LISTS.get(shape)
    if known is None:
        own = select(Zone.id).where(Zone.deleted == LIVE, Zone.tenant_id == bindparam("project_id"))
        if hide_catalog:
            own = own.where(Zone.type != "CATALOG")
        header = [select(func.count()).select_from(own.subquery()).scalar_subquery().label("total"),
                  exists(_SHARED_WITH).label("shares")]
        paged = ordered(own.with_only_columns(*_zone_columns(Zone), *header), Zone, page)
        if page.limit is not None:
            paged = paged.limit(bindparam("limit"))
        known = _PLAIN_LISTS[shape] = (paged, select(*header))
    return known


async def names(session: AsyncSession, zone_ids: set[str]) -> dict[str, str]:
    """Zone id → name, for rendering recordsets of several zones."""
    if not zone_ids:
        return {}
    rows = await session.execute(select(Zone.id, Zone.name).where(Zone.id.in_(zone_ids)))
    return dict(rows.all())


async def count_for_project(session: AsyncSession, project_id: str, limit: int) -> int:
    """The project's live zones, as far as a check against its quota ``limit`` can tell
    (``quotas.capped_at``)."""
    zones = select(literal(1)).select_from(Zone).where(Zone.tenant_id == project_id,
                                                      Zone.deleted == LIVE)
    return await quotas.count_capped(session, zones, limit)


def like_escaped(text: str) -> str:
    """``text`` as a literal inside a LIKE pattern: zone names may hold ``_`` (a LIKE wildcard).

    ``/`` escapes, not ``\\``, which MySQL string literals would need escaped once more.
    """
    return text.replace("/", "//").replace("%", "/%").replace("_", "/_")


async def children(session: AsyncSession, zone_id: str) -> list[Zone]:
    query = select(Zone).where(Zone.parent_zone_id == zone_id, Zone.deleted == LIVE)
    return list((await session.execute(query)).scalars())


def _extras():  # noqa: ANN202 - a prebuilt statement
    a, m = ZoneAttribute.__table__, ZoneMaster.__table__
    return union_all(
        select(literal("a"), a.c.zone_id, a.c.key, cast(a.c.value, String))
        .where(a.c.zone_id.in_(bindparam("zone_ids", expanding=True))),
        select(literal("m"), m.c.zone_id, m.c.host, cast(m.c.port, String))
        .where(m.c.zone_id.in_(bindparam("zone_ids", expanding=True))))


_EXTRAS = _extras()


async def extras(session: AsyncSession, zone_ids: list[str]
                 ) -> tuple[dict[str, dict[str, str]], dict[str, list[tuple[str, int]]]]:
    """Attributes and masters of several zones in one round trip (reads are latency-bound)."""
    if not zone_ids:
        return _split_extras([])
    connection = await session.connection()
    return _split_extras(await connection.execute(_EXTRAS, {"zone_ids": list(zone_ids)}))


def _split_extras(found: Iterable) -> tuple[dict[str, dict[str, str]],
                                             dict[str, list[tuple[str, int]]]]:
    """``_EXTRAS`` rows as attributes and masters by zone id (empty for a zone without)."""
    attrs: dict[str, dict[str, str]] = defaultdict(dict)
    hosts: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for kind, zone_id, first, second in found:
        if kind == "a":
            attrs[zone_id][first] = second
        else:
            hosts[zone_id].append((first, int(second)))
    return attrs, hosts


async def shared_ids(session: AsyncSession, zone_ids: list[str]) -> set[str]:
    if not zone_ids:
        return set()
    rows = await session.execute(select(SharedZone.zone_id).where(SharedZone.zone_id.in_(zone_ids))
                                 .distinct())
    return {row[0] for row in rows}


async def is_shared_with(session: AsyncSession, zone_id: str, project_id: str | None) -> bool:
    query = select(exists().where(SharedZone.zone_id == zone_id,
                                  SharedZone.target_project_id == project_id))
    return bool((await session.execute(query)).scalar())


async def replace_attributes(session: AsyncSession, zone_id: str, values: dict[str, str]) -> None:
    await session.execute(delete(ZoneAttribute).where(ZoneAttribute.zone_id == zone_id))
    add_attributes(session, zone_id, values)


def add_attributes(session: AsyncSession, zone_id: str, values: dict[str, str]) -> None:
    """Attributes of a zone inserted in this transaction (it has none to replace)."""
    session.add_all(ZoneAttribute(zone_id=zone_id, key=k, value=v) for k, v in values.items())


async def replace_masters(session: AsyncSession, zone_id: str,
                          hosts: list[tuple[str, int]]) -> None:
    await session.execute(delete(ZoneMaster).where(ZoneMaster.zone_id == zone_id))
    add_masters(session, zone_id, hosts)


def add_masters(session: AsyncSession, zone_id: str, hosts: list[tuple[str, int]]) -> None:
    """Masters of a zone inserted in this transaction (it has none to replace)."""
    session.add_all(ZoneMaster(zone_id=zone_id, host=h, port=p) for h, p in hosts)


def _mark_deleted_statements():  # noqa: ANN202 - prebuilt statements
    """A zone's soft delete, and the same only if no write came since (``b_seq``), built once
    and run as prebuilt statements (``database.execute``): the worker's completion of a delete
    runs in a plain transaction (``plain_session``)."""
    z, now = Zone.__table__, bindparam("b_now", type_=Timestamp)
    deleted = update(z).where(z.c.id == bindparam("b_zone_id"), z.c.deleted == LIVE).values(
        status="DELETED", action="NONE", deleted=bindparam("b_deleted"), deleted_at=now,
        lease_owner=None, lease_expires_at=None, updated_at=now)
    return bounded(deleted), bounded(deleted.where(z.c.change_seq == bindparam("b_seq")))


_MARK_DELETED, _MARK_DELETED_IF_UNCHANGED = _mark_deleted_statements()


async def mark_deleted(session: AsyncSession, zone_id: str, change_seq: int | None) -> bool:
    """Soft-delete: the zone disappears from the API; purge removes it later. ``change_seq``:
    only if the zone was not written since."""
    params = {"b_zone_id": zone_id, "b_deleted": zone_id.replace("-", ""), "b_now": utcnow()}
    if change_seq is None:
        return await execute_count(session, _MARK_DELETED, params) == 1
    return await execute_count(session, _MARK_DELETED_IF_UNCHANGED,
                               {**params, "b_seq": change_seq}) == 1


async def purge(session: AsyncSession, older_than: datetime, limit: int) -> int:
    ids = list((await session.execute(
        select(Zone.id).where(Zone.deleted != LIVE, Zone.deleted_at <= older_than).limit(limit)
    )).scalars())
    if ids:
        await session.execute(delete(Zone).where(Zone.id.in_(ids)))
    return len(ids)


async def delete_shares(session: AsyncSession, zone_id: str) -> None:
    await session.execute(delete(SharedZone).where(SharedZone.zone_id == zone_id))


async def in_error(session: AsyncSession) -> list[tuple[str, str, str, str]]:
    """(name, id, action, reason) of every live zone in ERROR, for operators."""
    rows = await session.execute(select(Zone.name, Zone.id, Zone.action, Zone.error_reason)
                                 .where(Zone.deleted == LIVE, Zone.status == "ERROR")
                                 .order_by(Zone.name))
    return [(n, i, a, r or "") for n, i, a, r in rows]


async def live_after(session: AsyncSession, after_id: str | None, limit: int) -> list[Zone]:
    """Up to ``limit`` live tenant zones with ids after ``after_id``, in id order.

    Walks every zone of the cluster in fixed-size pages along the primary key (the periodic
    ``exists`` audit), so no page costs more than the first, however many zones there are.
    """
    query = select(Zone).where(Zone.deleted == LIVE, Zone.type != "CATALOG")
    if after_id is not None:
        query = query.where(Zone.id > after_id)
    return list((await session.execute(query.order_by(Zone.id).limit(limit))).scalars())
