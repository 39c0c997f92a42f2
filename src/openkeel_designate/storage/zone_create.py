"""SQL of a zone create: one read of everything its rules look at, and its rows as Core INSERTs.

A create used to read with ten statements (the project's zone count, its quota overrides, the
TLDs, the blacklists, the zones related by name, every pool, their attributes, the chosen pool
again, its NS records, the zones to re-parent) and to write through the ORM's unit of work, then
read back the attributes it had just written. On SQLite every statement is a crossing to the
driver's thread, and building the statements, loading ORM rows and the flush cost more CPU than
the statements (bench/README.md, "Zone and recordset POSTs: CPU of the API"). The reads are one
prebuilt ``UNION ALL`` (``storage/facts.py``), the rows prebuilt INSERTs of every column, and the
new zone a frozen copy of the row as written.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sqlalchemy import (ColumnElement, Insert, and_, bindparam, func, insert, literal,
                        or_, select, union_all, update)
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain import names
from openkeel_designate.storage import arrays, facts, merged, quotas, rows
from openkeel_designate.storage import recordsets as recordset_store
from openkeel_designate.storage.database import Database, bounded, execute, execute_many
from openkeel_designate.storage.models import (
    Blacklist,
    Quota,
    Record,
    RecordSet,
    Tld,
    Zone,
    ZoneAttribute,
    ZoneMaster,
    new_id,
    utcnow,
)
from openkeel_designate.storage.pools import PLACEMENT_PARTS, Placement, placement_of
from openkeel_designate.storage.zones import LIVE


@dataclass(frozen=True)
class RelatedZone:
    """A live zone equal to, above or below the new name (any case, any pool)."""

    id: str
    name: str
    tenant_id: str | None
    pool_id: str
    parent_zone_id: str | None


@dataclass(frozen=True)
class CreateFacts:
    """What the rules of a new zone read, in one round trip."""

    zones_of_project: int  # live zones the project has, up to one past its quota (``quotas.capped``)
    quota_overrides: dict[str, int]  # the project's stored quotas (storage.quotas.for_project)
    tlds: list[str]
    blacklists: list[str]  # patterns
    related: list[RelatedZone]
    pools: Placement


def _statements():  # noqa: ANN202 - prebuilt statements
    """The read in a form per dialect name (``_FACTS``): the project's zones counted only as
    far as its quota can tell (``quotas.capped``) where a LIMIT takes a subquery, else whole
    (MariaDB); the name's ancestors as one parameter (``arrays.member``)."""
    z, q, t, b = Zone.__table__, Quota.__table__, Tld.__table__, Blacklist.__table__
    project = bindparam("project_id")
    zones = select(literal(1)).select_from(z).where(z.c.tenant_id == project, z.c.deleted == LIVE)

    def read(cap: bool, ancestors: ColumnElement[bool]):  # noqa: ANN202
        return union_all(
            select(*facts.row("zones", number=func.count()))
            .select_from((quotas.capped("zones", zones) if cap else zones).subquery()),
            select(*facts.row("quota", q.c.resource, number=q.c.hard_limit))
            .where(q.c.tenant_id == project),
            select(*facts.row("tld", t.c.name)),
            select(*facts.row("blacklist", b.c.pattern)),
            select(*facts.row("zone", z.c.id, z.c.name, z.c.tenant_id, z.c.pool_id,
                              z.c.parent_zone_id))
            .where(z.c.deleted == LIVE, or_(
                z.c.name_key == bindparam("name_key"),
                ancestors,
                # below: ``reverse_key`` starts with the name backwards and a dot (migration 0012)
                and_(z.c.reverse_key > bindparam("below_from"),
                     z.c.reverse_key < bindparam("below_to")))),
            *PLACEMENT_PARTS)

    forms = {dialect: read(dialect in quotas.CAPPED_DIALECTS, ancestors)
             for dialect, ancestors in arrays.member(z.c.name_key, "ancestors").items()}
    adopt = update(z).where(z.c.id.in_(bindparam("ids", expanding=True))).values(
        parent_zone_id=bindparam("parent_id"), updated_at=bindparam("now"))
    # The new zone's rows (a handful: ``bounded``, on SQLite no thread crossing).
    return (forms, bounded(insert(z)), bounded(insert(ZoneAttribute.__table__)),
            bounded(insert(ZoneMaster.__table__)), adopt,
            select(z.c.id, z.c.name).where(z.c.id.in_(bindparam("ids", expanding=True))))


(_FACTS, _INSERT_ZONE, _INSERT_ATTRIBUTES, _INSERT_MASTERS, _ADOPT,
 _NAMES) = _statements()


async def read_facts(session: AsyncSession, project_id: str | None, name: str,
                     caps: quotas.Caps) -> CreateFacts:
    dialect = session.bind.dialect.name
    return _facts_of(await execute(session, _FACTS[dialect],
                                   _facts_params(dialect, project_id, name, caps)))


async def read_facts_alone(db: Database, project_id: str | None, name: str,
                           caps: quotas.Caps) -> CreateFacts:
    """``read_facts`` outside any transaction (a point read, ``Database.point_reads``)."""
    dialect = db.engine.dialect.name
    [found] = await db.point_reads([(_FACTS[dialect],
                                     _facts_params(dialect, project_id, name, caps))])
    return _facts_of(found)


def _facts_params(dialect: str, project_id: str | None, name: str, caps: quotas.Caps) -> dict:
    folded = names.key(name)
    labels = folded.split(".")
    return {"project_id": project_id, "name_key": folded,
            "ancestors": arrays.listed(dialect, [".".join(labels[i:])
                                                 for i in range(1, len(labels) - 1)]),
            "below_from": folded[::-1] + ".", "below_to": folded[::-1] + "/",
            **caps.params(project_id, "zones")}


def _facts_of(found: list) -> CreateFacts:
    """``CreateFacts`` from the rows of ``_FACTS``."""
    count, overrides, tlds, blacklists, related = 0, {}, [], [], []
    for kind, first, second, third, fourth, fifth, number in found:
        if kind == "zones":
            count = int(number)
        elif kind == "quota":
            overrides[first] = int(number)
        elif kind == "tld":
            tlds.append(first)
        elif kind == "blacklist":
            blacklists.append(first)
        elif kind == "zone":
            related.append(RelatedZone(first, second, third, fourth, fifth))
    return CreateFacts(count, overrides, tlds, blacklists, related, placement_of(found))


def new_zone(values: dict) -> tuple[dict, object]:
    """The new zone's row (every column but the computed ones from ``values``) and its frozen
    copy, before anything is written: its managed recordsets are made from the copy and
    written with it (``insert_zone``)."""
    key = names.key(values["name"])
    row = rows.complete(Zone, {**values, "name_key": key, "reverse_key": key[::-1],
                               "created_at": utcnow()})
    return row, rows.frozen_from(Zone, row)


async def insert_zone(session: AsyncSession, row: dict, attributes: dict[str, str],
                      masters: list[tuple[str, int]], recordsets: list[dict],
                      records: list[dict]) -> None:
    """The new zone's row (``new_zone``) with its attributes, masters and managed recordsets
    and records (``recordsets.recordset_row``, ``record_row``): one statement on PostgreSQL
    while each part has at most ``merged.MERGED_ROWS`` rows (``storage/merged``), else a
    statement per part."""
    attribute_rows, master_rows = _part_rows(row, attributes, masters)
    parts = (attribute_rows, master_rows, recordsets, records)
    assert session.bind is not None
    if session.bind.dialect.name == "postgresql" and _mergeable(parts):
        await execute(session, *_merged(row, parts))
        return
    await execute_many(session, _INSERT_ZONE, [row])
    if attribute_rows:
        await execute_many(session, _INSERT_ATTRIBUTES, attribute_rows)
    if master_rows:
        await execute_many(session, _INSERT_MASTERS, master_rows)
    await recordset_store.insert_rows(session, recordsets, records)


async def insert_zone_alone(db: Database, row: dict, attributes: dict[str, str],
                            masters: list[tuple[str, int]], recordsets: list[dict],
                            records: list[dict]) -> bool:
    """``insert_zone`` as one statement that is its own transaction (``Database.write_alone``,
    PostgreSQL), committed before it answers; False, with nothing written, when its parts are
    too many rows for one statement or PostgreSQL asked for it to be run again (the caller
    then writes in a transaction). A clash with a racing create raises ``errors.Duplicate``."""
    parts = (*_part_rows(row, attributes, masters), recordsets, records)
    if not _mergeable(parts):
        return False
    return await db.write_alone(*_merged(row, parts)) is not None


def _part_rows(row: dict, attributes: dict[str, str], masters: list[tuple[str, int]]
               ) -> tuple[list[dict], list[dict]]:
    """The rows of the new zone's attributes and masters."""
    now = row["created_at"]
    return ([rows.complete(ZoneAttribute, dict(id=new_id(), zone_id=row["id"], key=key,
                                               value=value, created_at=now))
             for key, value in attributes.items()],
            [rows.complete(ZoneMaster, dict(id=new_id(), zone_id=row["id"], host=host,
                                            port=port, created_at=now))
             for host, port in masters])


def _mergeable(parts: tuple[list[dict], ...]) -> bool:
    return all(len(part) <= merged.MERGED_ROWS for part in parts)


def _merged(row: dict, parts: tuple[list[dict], ...]) -> tuple[Insert, dict]:
    """``_merged_insert`` of these parts, with its parameters."""
    values = merged.params("z", [row])
    for (prefix, _), part in zip(_PARTS, parts):
        values.update(merged.params(prefix, part))
    return _merged_insert(*map(len, parts)), values


# (parameter prefix, table) of each part after the zone, in ``insert_zone``'s order
_PARTS = (("a", ZoneAttribute.__table__), ("m", ZoneMaster.__table__),
          ("s", RecordSet.__table__), ("r", Record.__table__))


@functools.lru_cache(maxsize=32)
def _merged_insert(*counts: int) -> Insert:
    """The zone's INSERT (parameters ``z0_<column>``) with each other part's rows inserted
    by a CTE; ``counts``: the rows of each of ``_PARTS``."""
    z = Zone.__table__
    statement = insert(z).values(merged.row_values(z, "z"))
    for (prefix, table), count in zip(_PARTS, counts):
        if count:
            statement = statement.add_cte(merged.inserted(table, prefix, count))
    return statement


async def names_of(session: AsyncSession, zone_ids: list[str]) -> dict[str, str]:
    """Zone id → name, in whatever state (the rare parent that ``read_facts`` did not see)."""
    if not zone_ids:
        return {}
    connection = await session.connection()
    return dict((await connection.execute(_NAMES, {"ids": zone_ids})).all())


async def adopt(session: AsyncSession, parent_id: str, zone_ids: list[str]) -> None:
    """The zones hang on ``parent_id`` from now on (their update time moves, as any update's)."""
    if zone_ids:
        connection = await session.connection()
        await connection.execute(_ADOPT, {"ids": zone_ids, "parent_id": parent_id,
                                          "now": utcnow()})
