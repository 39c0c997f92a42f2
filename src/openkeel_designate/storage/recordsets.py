"""SQL for recordsets and their records."""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (Select, Update, and_, bindparam, delete, exists, func, literal, select,
                        true, union_all, update)
from sqlalchemy import insert as sql_insert
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain import errors, names
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import merged, quotas, rows
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import (BOUNDED, Database, bounded, execute,
                                                 execute_many)
from openkeel_designate.storage.keys import record_hash
from openkeel_designate.storage.filters import apply_criteria, criterion, ordered, paginate_union
from openkeel_designate.storage.models import (Quota, Record, RecordSet, SharedZone, Timestamp,
                                               Zone, new_id, utcnow)
from openkeel_designate.storage.zones import LIVE

# Filters that match individual records rather than the recordset row.
RECORD_FILTERS = {"data": Record.data, "status": Record.status}


def recordset_row(zone: Zone, name: str, rtype: str, ttl: int | None = None,
                  description: str | None = None, tenant_id: str | None = None) -> dict:
    """Every column of a new recordset of ``zone``: the shard and owner come with it."""
    return rows.complete(RecordSet, dict(
        id=new_id(), zone_id=zone.id, zone_shard=zone.shard, tenant_id=tenant_id or zone.tenant_id,
        zone_tenant_id=zone.tenant_id, name=name, name_key=names.key(name), type=rtype, ttl=ttl,
        description=description, reverse_name=name[::-1], version=1, created_at=utcnow()))


def record_row(zone: Zone, recordset_id: str, tenant_id: str | None, data: str, *,
               managed: bool = False, action: str = "CREATE") -> dict:
    """Every column of a PENDING record; the worker gives it a serial once it is pushed."""
    return rows.complete(Record, dict(
        id=new_id(), zone_id=zone.id, zone_shard=zone.shard, tenant_id=tenant_id,
        recordset_id=recordset_id, data=data, hash=record_hash(recordset_id, data),
        managed=managed, status="PENDING", action=action, serial=None, version=1,
        created_at=utcnow()))


def new_recordset(zone: Zone, name: str, rtype: str, ttl: int | None = None,
                  description: str | None = None, tenant_id: str | None = None) -> RecordSet:
    """``recordset_row`` as an ORM row (not yet in any session), for writes that go on to
    change it in the same transaction."""
    return RecordSet(**recordset_row(zone, name, rtype, ttl, description, tenant_id))


def new_record(zone: Zone, recordset: RecordSet, data: str, *, managed: bool = False,
               action: str = "CREATE") -> Record:
    """``record_row`` as an ORM row (not yet in any session)."""
    return Record(**record_row(zone, recordset.id, recordset.tenant_id, data, managed=managed,
                               action=action))


async def insert(session: AsyncSession, recordsets: Iterable[RecordSet]) -> None:
    """Recordset rows written at once: the records added next reference them."""
    session.add_all(recordsets)
    await session.flush()


def _write_path():  # noqa: ANN202 - prebuilt statements
    """The statements of a recordset POST, built once from the tables: per request only the
    values change.

    A POST used to run the rules' reads as four ORM queries and the rows as an ORM flush (unit
    of work). On SQLite each statement is a thread crossing, and building the statements,
    loading rows the rules only read one column of and the flush bookkeeping cost more CPU than
    the statements themselves (bench/README.md, "Recordset and zone writes"). So what the
    placement and quota rules need is one read (the project's quota overrides included), and
    the rows are two Core INSERTs. The read comes in two forms (``_FACTS``): counts read only
    as far as the quota can tell (``quotas.capped``) where the database takes a subquery as a
    LIMIT, whole counts elsewhere (MariaDB).
    """
    z, rs, r, q = Zone.__table__, RecordSet.__table__, Record.__table__, Quota.__table__
    zone_id = bindparam("zone_id")
    placement = (
        # (correlate(None): inside ``_ZONE_AND_FACTS`` this is not the zone read beside it)
        select(literal("child").label("kind"), z.c.name.label("text"), literal(0).label("number"))
        .where(z.c.parent_zone_id == zone_id, z.c.deleted == LIVE).correlate(None),
        select(literal("type"), rs.c.type, literal(0))
        .where(rs.c.zone_id == zone_id, rs.c.name_key == bindparam("name_key")),
        select(literal("quota"), q.c.resource, q.c.hard_limit)
        .where(q.c.tenant_id == bindparam("tenant_id")))
    counted = {"zone_recordsets": select(literal(1)).select_from(rs).where(rs.c.zone_id == zone_id),
               "zone_records": select(literal(1)).select_from(r)
               .where(r.c.zone_id == zone_id, r.c.managed.is_(False))}

    def counts(cap: bool) -> list[Select]:
        return [select(literal(resource), literal(""), func.count())
                .select_from((quotas.capped(resource, matching) if cap else matching).subquery())
                for resource, matching in counted.items()]
    facts = {cap: union_all(*placement, *counts(cap)) for cap in (True, False)}
    # A project's create in its own zone, unlocked (``read_for_create``): the zone's row
    # beside each row of the facts (capped: PostgreSQL only), one round trip.
    beside = facts[True].subquery().lateral("facts")
    zone_and_facts = zone_store.VISIBLE_ROW["project"].add_columns(
        beside.c.kind, beside.c.text, beside.c.number).outerjoin(beside, true())
    return facts, zone_and_facts, sql_insert(rs), sql_insert(r)


_FACTS, _ZONE_AND_FACTS, _INSERT_RECORDSET, _INSERT_RECORD = _write_path()
SMALL_INSERT = 100


@dataclass(frozen=True)
class PlacementFacts:
    """What the rules of a new recordset read of its zone, in one round trip. The counts are
    exact up to one past the limit they are checked against (``quotas.capped``)."""

    child_zones: list[str]  # names of the live child zones
    types_at_name: list[str]  # types of the recordsets at the new name (in any case)
    recordsets: int  # recordsets of the zone
    unmanaged_records: int  # records of the zone the tenant created (quota zone_records)
    quota_overrides: dict[str, int]  # the zone owner's stored quotas (storage.quotas.for_project)


async def placement_facts(session: AsyncSession, zone_id: str, name: str,
                          owner: str | None, caps: quotas.Caps) -> PlacementFacts:
    statement = quotas.form_for(_FACTS, session.bind)
    return _facts_of(await execute(session, statement, _facts_params(zone_id, name, owner, caps)))


def _facts_params(zone_id: str, name: str, owner: str | None, caps: quotas.Caps) -> dict:
    return {"zone_id": zone_id, "name_key": names.key(name), "tenant_id": owner,
            **caps.params(owner, "zone_recordsets", "zone_records")}


def _facts_of(found: list) -> PlacementFacts:
    """``PlacementFacts`` from the rows of ``_FACTS``."""
    facts = PlacementFacts([], [], 0, 0, {})
    counts = {}
    for kind, text, number in found:
        if kind == "child":
            facts.child_zones.append(text)
        elif kind == "type":
            facts.types_at_name.append(text)
        elif kind == "quota":
            facts.quota_overrides[text] = int(number)
        else:
            counts[kind] = int(number)
    return dataclasses.replace(facts, recordsets=counts.get("zone_recordsets", 0),
                               unmanaged_records=counts.get("zone_records", 0))


async def insert_rows(session: AsyncSession, recordsets: list[dict], records: list[dict]) -> None:
    """New recordsets and their records (``recordset_row``, ``record_row``) written at once by
    Core INSERTs, outside the session's unit of work: central renders their frozen copies
    (``rows.frozen_from``) and never changes them in the same transaction. A clash with a
    racing create raises IntegrityError here, as a flush would."""
    # A POST's few rows are vouched small (``database.bounded``); an import's many are not.
    small = BOUNDED if len(recordsets) + len(records) <= SMALL_INSERT else {}
    if recordsets:
        await execute_many(session, _INSERT_RECORDSET, recordsets, small)
    if records:
        await execute_many(session, _INSERT_RECORD, records, small)


async def insert_marking_pending(session: AsyncSession, recordset: dict, records: list[dict],
                                 action: str, bump_serial: bool) -> None:
    """``insert_rows`` of one recordset and its records, then ``zones.mark_pending`` of its
    zone: a recordset POST's three writes, one statement on PostgreSQL (``storage/merged``).
    Elsewhere (and for a recordset of many records), the three statements."""
    zone_id = recordset["zone_id"]
    assert session.bind is not None
    if session.bind.dialect.name != "postgresql" or not 0 < len(records) <= merged.MERGED_ROWS:
        await insert_rows(session, [recordset], records)
        if records:
            await zone_store.mark_pending(session, zone_id, action, bump_serial)
        return
    await execute(session, _merged_create(len(records), bump_serial), {
        **zone_store.pending_params(zone_id, action), **merged.params("s", [recordset]),
        **merged.params("r", records)})


@functools.lru_cache(maxsize=2 * merged.MERGED_ROWS)
def _merged_create(records: int, bump_serial: bool) -> Update:
    """The zone's pending mark (``zones.MARK_PENDING``) with the new recordset (parameters
    ``s0_<column>``) and its ``records`` records (``r<index>_<column>``) inserted by CTEs."""
    return zone_store.MARK_PENDING[bump_serial].add_cte(
        merged.inserted(RecordSet.__table__, "s", 1)).add_cte(
        merged.inserted(Record.__table__, "r", records))


async def read_for_create(db: Database, zone_id: str, project_id: str, name: str,
                          caps: quotas.Caps) -> tuple[Zone | None, PlacementFacts]:
    """What a recordset create of the project in its own zone reads, without a transaction:
    the zone (a frozen copy, None if the project does not own it or it is gone) and the
    placement facts, the project's quota overrides among them (``placement_facts``).

    One point read (``Database.point_reads``: the latest commit), ``_ZONE_AND_FACTS``: the
    zone's columns on each row, the facts' three last; ``create_if_unchanged`` then writes
    only if no write came between it and the write."""
    [found] = await db.point_reads([(_ZONE_AND_FACTS, {
        "project_id": project_id, **_facts_params(zone_id, name, project_id, caps)})])
    zone = rows.frozen(Zone, found[0]) if found else None
    if zone is None or zone.tenant_id != project_id:
        # none, or shared with the project: its owner's quotas, read the locked way
        return None, _facts_of([])
    return zone, _facts_of([row[-3:] for row in found])


async def create_if_unchanged(db: Database, zone: Zone, recordset: dict, records: list[dict],
                              action: str, bump_serial: bool) -> bool:
    """``insert_marking_pending`` as one statement that is its own transaction, made only if
    the zone is as ``read_for_create`` found it (``zones.MARK_PENDING_IF_UNCHANGED``); whether
    it was. PostgreSQL commits it before answering, so a True is as durable as a COMMIT.

    A write that came in between bumped ``change_seq``: the zone's UPDATE then matches no row
    (PostgreSQL checks the newest version of a row it had to wait for) and the inserts, which
    select from it, insert nothing. Not written (False), the caller runs the create again
    the locked way. A clash with a racing create raises ``errors.Duplicate``."""
    written = await db.write_alone(_create_if_unchanged(len(records), bump_serial, False), {
        **zone_store.unchanged_params(zone, action), **merged.params("s", [recordset]),
        **merged.params("r", records)})
    return bool(written)


async def create_if_assumed(db: Database, zone: Zone, assumed: PlacementFacts, recordset: dict,
                            records: list[dict], action: str, bump_serial: bool) -> bool | None:
    """``create_if_unchanged`` of a create judged on facts that were not read for it but are
    known from this process's last write to the zone (``central.known_zones``): ``assumed``,
    no child zone and no recordset at the new name among them.

    ``change_seq`` vouches for the zone's recordsets and counts; the statement also checks
    what it does not vouch for: no recordset at the new name (in any case), no live child
    zone, and the owner's stored quotas that a create checks as assumed (``_ASSUMED``).
    True: written. False: not, the zone changed (another writer). None: not, for another
    reason (the name is taken, or the database asked for the write to be run again)."""
    assert not assumed.child_zones and not assumed.types_at_name
    found = await db.write_alone(_create_if_unchanged(len(records), bump_serial, True), {
        **zone_store.unchanged_params(zone, action), **merged.params("s", [recordset]),
        **merged.params("r", records), "new_name_key": recordset["name_key"],
        **{f"assumed_{name}": assumed.quota_overrides.get(name) for name in ASSUMED_QUOTAS}})
    if not found:
        return None
    [(written, name_taken)] = found
    return True if written is not None else (None if name_taken else False)


def writes_alone(db: Database, records: list) -> bool:
    """Whether ``create_if_unchanged`` can write these records (on PostgreSQL, a few)."""
    return db.writes_alone and 0 < len(records) <= merged.MERGED_ROWS


# The quotas a recordset create checks: the owner's stored ones are assumed unchanged.
ASSUMED_QUOTAS = ("zone_recordsets", "zone_records", "recordset_records")


def _assumed() -> tuple[list, Any]:
    """The conditions of ``create_if_assumed`` (bound: ``zone_id``, ``read_tenant_id``,
    ``new_name_key``, ``assumed_<quota>``, None where none is stored), and whether a recordset
    holds the new name (how the statement tells why it wrote nothing)."""
    rs, q, child = RecordSet.__table__, Quota.__table__, Zone.__table__.alias("child")
    zone_id = bindparam("zone_id")
    stored = [select(q.c.hard_limit).where(q.c.tenant_id == bindparam("read_tenant_id"),
                                           q.c.resource == name).scalar_subquery()
              .is_not_distinct_from(bindparam(f"assumed_{name}", type_=q.c.hard_limit.type))
              for name in ASSUMED_QUOTAS]
    name_taken = exists().where(rs.c.zone_id == zone_id,
                                rs.c.name_key == bindparam("new_name_key"))
    return [~name_taken, ~exists().where(child.c.parent_zone_id == zone_id,
                                         child.c.deleted == LIVE), *stored], name_taken


_ASSUMED, _NAME_TAKEN = _assumed()


@functools.lru_cache(maxsize=4 * merged.MERGED_ROWS)
def _create_if_unchanged(records: int, bump_serial: bool, assumed: bool) -> Select:
    """``_merged_create``, with the zone's mark (``MARK_PENDING_IF_UNCHANGED``) a CTE that the
    inserts select from; the zone's id if written. ``assumed``: the mark also checks the
    ``_ASSUMED`` conditions, and the one row answered is (the zone's id or NULL, whether the
    new name was taken)."""
    mark = zone_store.MARK_PENDING_IF_UNCHANGED[bump_serial]
    marked = (mark.where(*_ASSUMED) if assumed else mark).cte("marked")
    answer = (select(select(marked.c.id).scalar_subquery(), _NAME_TAKEN) if assumed
              else select(marked.c.id))
    return answer.add_cte(
        merged.inserted_if(RecordSet.__table__, "s", 1, marked)).add_cte(
        merged.inserted_if(Record.__table__, "r", records, marked))


def add_records(session: AsyncSession, records: Iterable[Record]) -> list[Record]:
    """Records joined to the transaction; written with its next flush or its commit."""
    rows = list(records)
    session.add_all(rows)
    return rows


async def get(session: AsyncSession, recordset_id: str) -> RecordSet | None:
    return await session.get(RecordSet, recordset_id)


def _hot_reads():  # noqa: ANN202 - prebuilt statements
    """The statements of ``GET /v2/zones/{zone_id}/recordsets/{id}`` and of the first page of
    ``GET /v2/zones/{zone_id}/recordsets``, built once, by who asks: any project (all
    tenants), a project, no project ("tenant_id IS NULL", which a bound value cannot say).

    These are the reads clients poll: a recordset's status (Terraform, ExternalDNS, the CLI's
    ``--wait``) and a zone's recordsets (ExternalDNS, at every sync). As ORM reads in a
    session (the zone, the recordsets, their records, the count) each crossed to SQLite's
    thread, and the single GET served a fifth of a zone GET's rate. As point reads
    (``Database.point_reads``) they run on the loop's thread on SQLite and on asyncpg directly
    on PostgreSQL. The zone's visibility is a column, not a condition: an unknown recordset
    and an invisible zone answer differently.
    """
    rs, r, z = RecordSet.__table__, Record.__table__, Zone.__table__
    # one row per record (one with NULLs for none): the recordset, the zone, the visibility,
    # the record; one round trip where the records were a second read
    return zone_store.by_asker(lambda visible: select(
        *rows.table_columns(RecordSet), *rows.table_columns(Zone),
        and_(z.c.deleted == LIVE, visible).label("visible"), *rows.table_columns(Record))
        .join(z, z.c.id == rs.c.zone_id).outerjoin(r, r.c.recordset_id == rs.c.id)
        .where(rs.c.id == bindparam("recordset_id"), rs.c.zone_id == bindparam("zone_id")))


_GET_ONE = _hot_reads()
_RECORDSET_COLUMNS = len(rows.table_columns(RecordSet))
_VISIBLE_AT = _RECORDSET_COLUMNS + len(rows.table_columns(Zone))


@dataclass(frozen=True)
class RecordSetRead:
    """What ``get_visible`` found: the recordset is None when the zone holds no such one; the
    zone is None when the caller may not see it (or it is deleted)."""

    recordset: RecordSet | None
    records: list[Record]
    zone: Zone | None


async def get_visible(db: Database, zone_id: str, recordset_id: str, *,
                      project_id: str | None, all_tenants: bool) -> RecordSetRead:
    """A recordset of a zone with its records and the zone, as the zone GET sees zones
    (``zones.get_visible``): own, shared with the project, or any with all_tenants."""
    who, params = zone_store.asker(project_id, all_tenants)
    [found] = await db.point_reads([
        (_GET_ONE[who], {**params, "recordset_id": recordset_id, "zone_id": zone_id})])
    if not found:
        return RecordSetRead(None, [], None)
    row = found[0]
    zone = rows.frozen(Zone, row[_RECORDSET_COLUMNS:]) if row[_VISIBLE_AT] else None
    records = [rows.frozen(Record, each[_VISIBLE_AT + 1:]) for each in found
               if each[_VISIBLE_AT + 1] is not None]
    return RecordSetRead(rows.frozen(RecordSet, row), records, zone)


# (sort direction) -> (page, its records, count) statements of one zone's first page
_ZONE_PAGES: dict[str, tuple[Select, Select, Select]] = {}


def _zone_page_statements(page: Page) -> tuple[Select, Select, Select]:
    """One zone's recordsets in the default order (created_at, id), limited; the records of
    those recordsets; the zone's count. The same rows as ``find``'s general path, built once
    per direction with the zone and the limit as bound values."""
    known = _ZONE_PAGES.get(page.sort_dir)
    if known is None:
        rs, r = RecordSet.__table__, Record.__table__
        listed = ordered(select(*rows.table_columns(RecordSet)).where(
            rs.c.zone_id == bindparam("zone_id")), RecordSet, page).limit(bindparam("limit"))
        # a derived table, not IN (...): MariaDB takes no LIMIT inside an IN subquery
        ids = listed.with_only_columns(rs.c.id).subquery()
        records = select(*rows.table_columns(Record)).join(ids, r.c.recordset_id == ids.c.id)
        count = select(func.count()).select_from(rs).where(rs.c.zone_id == bindparam("zone_id"))
        known = _ZONE_PAGES[page.sort_dir] = (listed, records, count)
    return known


@dataclass(frozen=True)
class ZonePage:
    """What ``zone_page`` read: the zone (None when the caller may not see it), the page's
    recordsets in order, their records by recordset id, the zone's count (None if not asked)."""

    zone: Zone | None
    recordsets: list[RecordSet]
    records: dict[str, list[Record]]
    total: int | None


async def zone_page(db: Database, zone_id: str, page: Page, *, project_id: str | None,
                    all_tenants: bool, count: bool) -> ZonePage | None:
    """``find`` of one zone's first page without filters, in the default order, as one batch of
    point reads (``_hot_reads`` says why); None for any other page (``find`` reads it)."""
    if page.criteria or page.marker is not None or page.limit is None or \
            page.sort_key not in (None, "created_at") or page.sort_dir not in ("asc", "desc"):
        return None
    listed, records_of_page, counted = _zone_page_statements(page)
    who, params = zone_store.asker(project_id, all_tenants)
    paged = {"zone_id": zone_id, "limit": page.limit}
    reads = [(zone_store.VISIBLE_ROW[who], {**params, "zone_id": zone_id}), (listed, paged),
             (records_of_page, paged)]
    if count:
        reads.append((counted, {"zone_id": zone_id}))
    found = await db.point_reads(reads)
    if not found[0]:
        return ZonePage(None, [], {}, None)
    records: dict[str, list[Record]] = defaultdict(list)
    for row in found[2]:
        record = rows.frozen(Record, row)
        records[record.recordset_id].append(record)
    return ZonePage(rows.frozen(Zone, found[0][0]), [rows.frozen(RecordSet, row) for row in found[1]],
                    records, found[3][0][0] if count else None)


async def find_one(session: AsyncSession, zone_id: str, name: str, rtype: str) -> RecordSet | None:
    """The recordset of that owner name (in any case) and type in the zone."""
    query = select(RecordSet).where(RecordSet.zone_id == zone_id,
                                    RecordSet.name_key == names.key(name), RecordSet.type == rtype)
    return (await session.execute(query)).scalar_one_or_none()


async def names_in_zone(session: AsyncSession, zone_id: str, name: str) -> list[RecordSet]:
    """Every recordset of that owner name in the zone, whatever case each was written in."""
    query = select(RecordSet).where(RecordSet.zone_id == zone_id,
                                    RecordSet.name_key == names.key(name))
    return list((await session.execute(query)).scalars())


async def count_in_zone(session: AsyncSession, zone_id: str, limit: int) -> int:
    """The zone's recordsets, as far as a check against the quota ``limit`` can tell
    (``zone_recordsets``, ``api_export_size``; ``quotas.count_capped``)."""
    return await quotas.count_capped(session, select(literal(1)).select_from(RecordSet)
                        .where(RecordSet.zone_id == zone_id), limit)


async def find(session: AsyncSession, page: Page, *, zone_id: str | None, project_id: str | None,
               all_tenants: bool, count: bool = True) -> tuple[list[RecordSet], int | None]:
    """One page of recordsets (of one zone, or every visible zone) and the total count.

    ``count=False`` (OpenStack-DNS-Hide-Counts) skips the COUNT, which is the expensive part of
    a listing over a million recordsets.
    """
    query = _with_criteria(select(RecordSet), page.criteria)
    if zone_id is not None:
        branches = [query.where(RecordSet.zone_id == zone_id)]
    elif all_tenants:
        branches = [query.where(RecordSet.zone_id.in_(select(Zone.id).where(Zone.deleted == LIVE)))]
    else:
        branches = await _project_branches(session, query, project_id)
    total = None
    if count:
        total = 0
        for branch in branches:
            total += (await session.execute(select(func.count()).select_from(branch.subquery()))
                      ).scalar_one()
    paged = await paginate_union(session, branches, RecordSet, page)
    return list((await session.execute(paged)).scalars()), total


async def _project_branches(session: AsyncSession, query: Select,
                            project_id: str | None) -> list[Select]:
    """The recordsets of the live zones a project owns, and of those shared with it.

    Visibility follows the zone, not the recordset: a recordset that another project created
    in the project's zone is listed, and so is every recordset of a zone shared with it.
    ``recordsets.tenant_id`` (the creator) cannot express that, so the owner of the zone is
    kept on the recordset (``zone_tenant_id``, migration 0004), and the owned zones' recordsets
    are one walk of ``ix_recordsets_zone_tenant_created_id`` in (created_at, id) order, each
    row walked checked for a live zone by primary key. Reading them through the zones instead
    (``zone_id IN (zones of the project)``) joins every recordset of the project and sorts
    them: 450-650 ms for one page at 1.2M recordsets (bench/scale.py), against 0.2 ms.

    Zones shared with the project (live, owned by another project) are looked up first, as
    for the zone list; their recordsets are a second, disjoint branch (``paginate_union``).
    """
    live = select(Zone.id).where(Zone.deleted == LIVE)
    own = query.where(RecordSet.zone_tenant_id == project_id, RecordSet.zone_id.in_(live))
    guest_zones = await _zones_shared_with(session, project_id)
    if not guest_zones:
        return [own]
    return [own, query.where(RecordSet.zone_id.in_(guest_zones))]


async def _zones_shared_with(session: AsyncSession, project_id: str | None) -> list[str]:
    """Ids of the live zones shared with the project that it does not own itself."""
    shared = select(SharedZone.zone_id).where(SharedZone.target_project_id == project_id)
    rows = await session.execute(select(Zone.id, Zone.tenant_id).where(
        Zone.deleted == LIVE, Zone.id.in_(shared)))
    return [zone_id for zone_id, owner in rows if owner != project_id]


def _with_criteria(query: Select, criteria: dict[str, str]) -> Select:
    """Filters on the recordset's columns, and on its records' data and status."""
    plain = {k: v for k, v in criteria.items() if k not in RECORD_FILTERS}
    if "type" in plain:  # ``type=a`` finds A recordsets, as Designate's MariaDB collation does
        plain["type"] = str(plain["type"]).upper()
    query = apply_criteria(query, RecordSet, plain)
    for key, column in RECORD_FILTERS.items():
        if key in criteria:
            value = criteria[key]
            if key == "status":
                value = value.upper()
            matching = select(Record.recordset_id).where(criterion(column, value))
            query = query.where(RecordSet.id.in_(matching))
    return query


async def records_of(session: AsyncSession, recordset_ids: list[str]) -> dict[str, list[Record]]:
    result: dict[str, list[Record]] = defaultdict(list)
    if recordset_ids:
        query = select(Record).where(Record.recordset_id.in_(recordset_ids))
        for record in (await session.execute(query)).scalars():
            result[record.recordset_id].append(record)
    return result


# A deleted record leaves no row behind to say which name changed: its zone's next IXFR step
# compares the whole zone (``Zone.whole_step``). Every deletion of records goes through the two
# functions below, or a PUT's and a DELETE's ``replace_records`` and ``remove`` (a zone's own
# purge aside, which ends its history), so no caller can forget.
# (Core, not the ORM's: the zone object the caller holds needs no synchronizing.)
_WHOLE_STEP_OF_RECORDSET = update(Zone.__table__).where(Zone.__table__.c.id.in_(
    select(RecordSet.zone_id).where(RecordSet.id == bindparam("b_recordset_id")))
).values(whole_step=True)
_WHOLE_STEP_OF_RECORDS = update(Zone.__table__).where(Zone.__table__.c.id.in_(
    select(Record.zone_id).where(Record.id.in_(bindparam("b_record_ids", expanding=True))))
).values(whole_step=True)


async def delete_recordset(session: AsyncSession, recordset_id: str) -> None:
    await session.execute(_WHOLE_STEP_OF_RECORDSET, {"b_recordset_id": recordset_id})
    await session.execute(delete(Record).where(Record.recordset_id == recordset_id))
    await session.execute(delete(RecordSet).where(RecordSet.id == recordset_id))


async def delete_records(session: AsyncSession, record_ids: list[str], *,
                         recordset_pending: bool = False) -> None:
    """``recordset_pending``: the caller leaves other records of the same recordsets PENDING
    in this transaction (a recordset's records replaced): their owner names then stand for
    the change, and the zone needs no whole step."""
    if record_ids:
        if not recordset_pending:
            await session.execute(_WHOLE_STEP_OF_RECORDS, {"b_record_ids": record_ids})
        await session.execute(delete(Record).where(Record.id.in_(record_ids)))


def _others_of_zone(records: Any, zone_id: Any, recordset_id: Any) -> Select:
    """The zone's unmanaged records outside the recordset (``records``: the table or an
    alias): what a PUT's ``zone_records`` quota counts besides the recordset's own."""
    return select(literal(1)).select_from(records).where(
        records.c.zone_id == zone_id, records.c.managed.is_(False),
        records.c.recordset_id != recordset_id)


def _kept_values(now: Any) -> dict[str, Any]:
    """What a PUT sets on the records it keeps: PENDING again, no serial."""
    return {"status": "PENDING", "action": "UPDATE", "serial": None, "updated_at": now}


def _changed_values(now: Any) -> dict[str, Any]:
    """What a PUT sets on its recordset (``b_ttl``, ``b_description``)."""
    rs = RecordSet.__table__
    return {"version": rs.c.version + 1, "ttl": bindparam("b_ttl"),
            "description": bindparam("b_description"), "updated_at": now}


def _change_path():  # noqa: ANN202 - prebuilt statements
    """The statements of a recordset PUT and DELETE (``replace_records``, ``remove``), built
    once: per request only the values change.

    Through the ORM (the recordset and its records loaded, changed and flushed, the records
    of a delete marked before they went) a PUT cost 6.3 ms of CPU on SQLite and a DELETE 5.2,
    six times a POST (bench/README.md, "Issue 13, session of 2026-12-07"). Each of
    these runs on the driver (``database.execute``), in a plain transaction."""
    rs, r, z = RecordSet.__table__, Record.__table__, Zone.__table__
    recordset_id, zone_id = bindparam("b_recordset_id"), bindparam("b_zone_id")
    now = bindparam("b_now", type_=Timestamp)
    one = select(*rows.table_columns(RecordSet)).where(rs.c.id == recordset_id)
    its_records = select(*rows.table_columns(Record)).where(r.c.recordset_id == recordset_id)
    # ``count_unmanaged_records``: one past the limit at most (``quotas.capped_at``)
    others = _others_of_zone(r, zone_id, recordset_id).limit(bindparam("b_cap")).subquery()
    count_others = select(func.count()).select_from(others)
    # As ``_WHOLE_STEP_OF_RECORDS``: the zone's next IXFR step compares the whole zone.
    whole_step = update(z).where(z.c.id == zone_id).values(whole_step=True, updated_at=now)
    drop_record = delete(r).where(r.c.id == bindparam("b_record_id"))
    kept_record = update(r).where(r.c.id == bindparam("b_record_id")).values(_kept_values(now))
    changed = update(rs).where(rs.c.id == recordset_id).values(_changed_values(now))
    drop_records = delete(r).where(r.c.recordset_id == recordset_id)
    drop_recordset = delete(rs).where(rs.c.id == recordset_id)
    return (bounded(one), its_records, count_others, bounded(whole_step), bounded(drop_record),
            bounded(kept_record), bounded(changed), drop_records, bounded(drop_recordset))


(_ONE, _ITS_RECORDS, _COUNT_OTHERS, _WHOLE_STEP, _DROP_RECORD, _KEPT_RECORD, _CHANGED,
 _DROP_RECORDS, _DROP_RECORDSET) = _change_path()


async def read_for_change(session: AsyncSession, recordset_id: str) -> tuple[Any, list[Any]]:
    """The recordset (a frozen copy, None if there is none) and its records (frozen copies),
    read in the caller's transaction: a PUT's or DELETE's, under its zone's lock."""
    found = await execute(session, _ONE, {"b_recordset_id": recordset_id})
    if not found:
        return None, []
    records = await execute(session, _ITS_RECORDS, {"b_recordset_id": recordset_id})
    return rows.frozen(RecordSet, found[0]), [rows.frozen(Record, row) for row in records]


async def zone_of(session: AsyncSession, recordset_id: str) -> str | None:
    """The zone of the recordset, None if there is none (a DELETE's first read)."""
    found = await execute(session, _ONE, {"b_recordset_id": recordset_id})
    return found[0].zone_id if found else None


async def count_unmanaged_records(session: AsyncSession, zone_id: str, exclude_recordset: str,
                                  limit: int) -> int:
    """The records the tenant created in the zone outside ``exclude_recordset``, as far as a
    check against the quota ``limit`` (``zone_records``) can tell (``quotas.capped_at``)."""
    [(count,)] = await execute(session, _COUNT_OTHERS, {
        "b_zone_id": zone_id, "b_recordset_id": exclude_recordset, "b_cap": max(limit + 1, 0)})
    return int(count)


async def replace_records(session: AsyncSession, recordset: Any, dropped: list[str],
                          kept: list[str], added: list[dict], now: datetime) -> None:
    """A PUT's writes: the records ``dropped`` (ids) go, those ``kept`` (ids) are PENDING
    again, those ``added`` (``record_row``) are written, and the recordset takes the version,
    TTL and description of ``recordset`` (a frozen copy as it is to be). With no record left
    at its name, the zone's next step compares the whole zone (``delete_records``)."""
    if dropped and not kept and not added:
        await execute(session, _WHOLE_STEP, {"b_zone_id": recordset.zone_id, "b_now": now})
    small = BOUNDED if len(dropped) + len(kept) + len(added) <= SMALL_INSERT else {}
    if dropped:
        await execute_many(session, _DROP_RECORD, [{"b_record_id": i} for i in dropped], small)
    if kept:
        await execute_many(session, _KEPT_RECORD, [{"b_record_id": i, "b_now": now}
                                                   for i in kept], small)
    if added:
        await execute_many(session, _INSERT_RECORD, added, small)
    await execute(session, _CHANGED, {"b_recordset_id": recordset.id, "b_ttl": recordset.ttl,
                                      "b_description": recordset.description, "b_now": now})


async def remove(session: AsyncSession, zone_id: str, recordset_id: str, records: int) -> None:
    """A DELETE's writes: the recordset and its ``records`` records go, and the zone's next
    step compares the whole zone (``delete_recordset``)."""
    await execute(session, _WHOLE_STEP, {"b_zone_id": zone_id, "b_now": utcnow()})
    await execute(session, _DROP_RECORDS, {"b_recordset_id": recordset_id},
                  BOUNDED if records <= SMALL_INSERT else {})
    await execute(session, _DROP_RECORDSET, {"b_recordset_id": recordset_id})


async def managed_records(session: AsyncSession, zone_id: str | None, plugin_name: str,
                          plugin_type: str, resource_type: str, resource_id: str) -> list[Record]:
    """Records a notification handler created for one resource (instance, floating IP)."""
    query = select(Record).where(
        Record.managed.is_(True), Record.managed_plugin_name == plugin_name,
        Record.managed_plugin_type == plugin_type, Record.managed_resource_type == resource_type,
        Record.managed_resource_id == resource_id)
    if zone_id is not None:
        query = query.where(Record.zone_id == zone_id)
    return list((await session.execute(query)).scalars())


# --- a PUT or DELETE in the project's own zone without a transaction (PostgreSQL) -----------------
def _alone_path():  # noqa: ANN202 - prebuilt statements
    """The read of a PUT or DELETE that writes without a transaction (``read_for_change_alone``).

    Under the zone's lock a PUT on PostgreSQL was about twelve round trips (BEGIN, the lock,
    the recordset, its records, the quotas, the count, each write, COMMIT), and sequential PUTs
    reached 8.5-9.4x Designate's rate where POSTs, written this way, passed 10x (bench/README.md,
    "Issue 13, session of 2026-12-07 (03:47-)"). Read here in one round trip: the zone's
    columns (the project's own zone), the recordset's, one record's per row, then the records
    of the zone outside the recordset
    counted one past the owner's ``zone_records`` quota (``quotas.capped``) and the owner's two
    stored record quotas (NULL if none, or when quotas are not stored)."""
    z, rs, r, q = Zone.__table__, RecordSet.__table__, Record.__table__, Quota.__table__
    recordset_id = bindparam("b_recordset_id")
    others = _others_of_zone(r.alias("other"), bindparam("zone_id"), recordset_id)
    counted = select(func.count()).select_from(
        quotas.capped("zone_records", others).subquery()).scalar_subquery()

    def stored(resource: str):  # noqa: ANN202 - a scalar subquery
        return select(q.c.hard_limit).where(q.c.tenant_id == bindparam("cap_tenant_id"),
                                            q.c.resource == resource).scalar_subquery()
    base = zone_store.VISIBLE_ROW["project"].add_columns(
        *rows.table_columns(RecordSet), *rows.table_columns(Record)).select_from(
        z.join(rs, and_(rs.c.id == recordset_id, rs.c.zone_id == z.c.id))
        .outerjoin(r, r.c.recordset_id == rs.c.id))
    return {False: base, True: base.add_columns(counted, stored("zone_records"),
                                                stored("recordset_records"))}


_CHANGE_ALONE_READS = _alone_path()
_ZONE_COLUMNS = len(rows.table_columns(Zone))
_RECORD_COLUMNS = len(rows.table_columns(Record))


@dataclass(frozen=True)
class ChangeRead:
    """What ``read_for_change_alone`` found of a PUT's or DELETE's recordset and zone."""

    zone: Any  # a frozen copy
    recordset: Any  # a frozen copy
    records: list[Any]  # frozen copies
    others: int  # unmanaged records of the zone outside the recordset (capped; 0 unless counted)
    stored_quotas: dict[str, int]  # the owner's stored record quotas (none unless counted)


async def read_for_change_alone(db: Database, zone_id: str, recordset_id: str, project_id: str,
                                caps: quotas.Caps | None) -> ChangeRead | None:
    """A PUT's or DELETE's read without a transaction, one point read (the latest commit): the
    project's own zone, the recordset in it and its records, and with ``caps`` (a PUT) what
    its quota rule reads. None when the zone is not the project's own (shared, gone) or holds
    no such recordset, or the recordset has no record: the caller then goes the locked way.

    A write to the zone between this read and ``replace_if_unchanged`` or
    ``remove_if_unchanged`` bumps its ``change_seq``, which those compare. A recordset without
    records is left out: it may go (``remove``) with no mark, so no bump."""
    counted = caps is not None
    params = {"zone_id": zone_id, "project_id": project_id, "b_recordset_id": recordset_id}
    if caps is not None:
        params.update(caps.params(project_id, "zone_records"))
    [found] = await db.point_reads([(_CHANGE_ALONE_READS[counted], params)])
    if not found or found[0][_ZONE_COLUMNS + _RECORDSET_COLUMNS] is None:
        return None
    zone = rows.frozen(Zone, found[0])
    if zone.tenant_id != project_id:
        return None
    records_at = _ZONE_COLUMNS + _RECORDSET_COLUMNS
    recordset = rows.frozen(RecordSet, found[0][_ZONE_COLUMNS:])
    records = [rows.frozen(Record, row[records_at:]) for row in found]
    others, stored = 0, {}
    if counted:
        count, zone_records, recordset_records = found[0][records_at + _RECORD_COLUMNS:]
        others = int(count)
        stored = {name: int(limit) for name, limit in (
            ("zone_records", zone_records), ("recordset_records", recordset_records))
            if limit is not None}
    return ChangeRead(zone, recordset, records, others, stored)


def _when_marked(marked):  # noqa: ANN001, ANN202 - a CTE; a condition
    return select(marked.c.id).exists()


@functools.lru_cache(maxsize=4 * merged.MERGED_ROWS)
def _replace_if_unchanged(dropped: int, kept: int, added: int, bump_serial: bool) -> Select:
    """``replace_records`` and the zone's pending mark as one statement: the mark
    (``MARK_PENDING_IF_UNCHANGED``) a CTE, and each other write made only if it returned the
    zone (``_when_marked``). Ids bound one by one (``b_d<index>``, ``b_k<index>``)."""
    rs, r = RecordSet.__table__, Record.__table__
    now = bindparam("b_now", type_=Timestamp)
    marked = zone_store.MARK_PENDING_IF_UNCHANGED[bump_serial].cte("marked")
    made = _when_marked(marked)
    statement = select(marked.c.id)
    if dropped:
        statement = statement.add_cte(delete(r).where(
            r.c.id.in_([bindparam(f"b_d{i}") for i in range(dropped)]), made).cte("dropped"))
    if kept:
        statement = statement.add_cte(update(r).where(
            r.c.id.in_([bindparam(f"b_k{i}") for i in range(kept)]), made).values(
            _kept_values(now)).cte("kept"))
    if added:
        statement = statement.add_cte(merged.inserted_if(r, "r", added, marked))
    return statement.add_cte(update(rs).where(rs.c.id == bindparam("b_recordset_id"), made)
                             .values(_changed_values(now)).cte("changed"))


def writes_change_alone(db: Database, dropped: list, kept: list, added: list) -> bool:
    """Whether ``replace_if_unchanged`` can write this change (on PostgreSQL, a few records
    each way, at least one left)."""
    return (db.writes_alone and bool(kept or added)
            and max(len(dropped), len(kept), len(added)) <= merged.MERGED_ROWS)


async def replace_if_unchanged(db: Database, zone: Any, recordset: Any, dropped: list[str],
                               kept: list[str], added: list[dict], now: datetime,
                               bump_serial: bool) -> bool:
    """``replace_records`` (``recordset`` as it is to be) and the zone's pending mark as one
    statement that is its own transaction, made only if the zone is as
    ``read_for_change_alone`` found it; whether it was (as ``create_if_unchanged``)."""
    try:
        written = await db.write_alone(
            _replace_if_unchanged(len(dropped), len(kept), len(added), bump_serial), {
                **zone_store.unchanged_params(zone, "UPDATE"), **merged.params("r", added),
                **{f"b_d{i}": record_id for i, record_id in enumerate(dropped)},
                **{f"b_k{i}": record_id for i, record_id in enumerate(kept)},
                "b_recordset_id": recordset.id, "b_ttl": recordset.ttl,
                "b_description": recordset.description, "b_now": now})
    except errors.Duplicate:  # a foreign key gone with a write this one did not see
        return False
    return bool(written)


@functools.lru_cache(maxsize=2)
def _remove_if_unchanged(bump_serial: bool) -> Select:
    """``remove`` and the zone's pending mark as one statement, made as
    ``_replace_if_unchanged``."""
    rs, r = RecordSet.__table__, Record.__table__
    marked = zone_store.MARK_PENDING_IF_UNCHANGED[bump_serial].values(whole_step=True).cte("marked")
    made = _when_marked(marked)
    recordset_id = bindparam("b_recordset_id")
    return select(marked.c.id).add_cte(
        delete(r).where(r.c.recordset_id == recordset_id, made).cte("dropped")).add_cte(
        delete(rs).where(rs.c.id == recordset_id, made).cte("gone"))


async def remove_if_unchanged(db: Database, zone: Any, recordset_id: str,
                              bump_serial: bool) -> bool:
    """``remove`` and the zone's pending mark as one statement that is its own transaction,
    made only if the zone is as ``read_for_change_alone`` found it; whether it was."""
    written = await db.write_alone(_remove_if_unchanged(bump_serial), {
        **zone_store.unchanged_params(zone, "UPDATE"), "b_recordset_id": recordset_id})
    return bool(written)
