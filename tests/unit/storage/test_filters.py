"""``storage/filters.py``: Designate's filter syntax, the sort order and keyset paging.

What is under test is SQL, so it runs: on an in-memory SQLite database (no file, no server).
The keyset bound also follows the NULL placement of PostgreSQL and MariaDB; those orders are
spelt out on SQLite (``NULLS LAST`` / ``NULLS FIRST``) so that every engine's bound is checked
against its own order, and the form each engine gets is checked on the compiled SQL.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy import insert, select
from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine
from sqlalchemy.pool import StaticPool

from openkeel_designate.domain import errors
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage import filters
from openkeel_designate.storage.filters import Keyset
from openkeel_designate.storage.models import Base, RecordSet, Tld

T0 = datetime(2026, 1, 1)
# id, name, type, ttl, description, created_at offset in seconds (two rows tie on it)
ROWS = [
    ("id-1", "www.example.org.", "A", 300, "web", 1),
    ("id-2", "WWW.Example.org.", "AAAA", None, None, 2),
    ("id-3", "_sip._tcp.example.org.", "SRV", 3600, "sip", 3),
    ("id-4", "mail.example.org.", "MX", 300, "Mail", 4),
    ("id-6", "a.example.org.", "A", None, "web", 5),
    ("id-5", "b.example.org.", "TXT", 60, None, 5),
]
NAMES = {row[0]: row[1] for row in ROWS}


@pytest.fixture(scope="module")
async def session() -> AsyncIterator[AsyncSession]:
    engine = create_async_engine("sqlite+aiosqlite://", poolclass=StaticPool)
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
        await conn.execute(insert(RecordSet), [
            {"id": rid, "name": name, "type": rtype, "ttl": ttl, "description": description,
             "created_at": T0 + timedelta(seconds=offset), "zone_id": "zone", "zone_shard": 0,
             "zone_tenant_id": "p", "reverse_name": name[::-1]}
            for rid, name, rtype, ttl, description, offset in ROWS])
        await conn.execute(insert(Tld), [{"id": "tld-1", "name": "com"},
                                         {"id": "tld-2", "name": "Net"}])
    async with AsyncSession(engine) as opened:
        yield opened
    await engine.dispose()


async def ids(session: AsyncSession, query) -> list[str]:
    return list((await session.execute(query)).scalars())


async def matching(session: AsyncSession, column, raw: str) -> set[str]:
    return set(await ids(session, select(RecordSet.id).where(filters.criterion(column, raw))))


# --- one filter value --------------------------------------------------------------------------
@pytest.mark.parametrize(("raw", "expected"), [
    ("300", {"id-1", "id-4"}),
    ("!300", {"id-3", "id-5"}),          # NULL is never "not 300" in SQL, nor in Designate
    ("<300", {"id-5"}),
    ("<=300", {"id-1", "id-4", "id-5"}),
    (">300", {"id-3"}),
    (">=300", {"id-1", "id-3", "id-4"}),
    ("BETWEEN 60,300", {"id-1", "id-4", "id-5"}),
    ("BETWEEN 61, 3600", {"id-1", "id-3", "id-4"}),
])
async def test_operators_on_an_integer_column(session, raw, expected):
    assert await matching(session, RecordSet.ttl, raw) == expected


@pytest.mark.parametrize("raw", ["abc", "!abc", "<abc", ">=1.5", "BETWEEN a,300", "BETWEEN 60,b"])
async def test_a_value_that_cannot_be_an_integer_matches_nothing(session, raw):
    assert await matching(session, RecordSet.ttl, raw) == set()


async def test_text_matches_exactly_unless_it_holds_a_wildcard(session):
    assert await matching(session, RecordSet.type, "A") == {"id-1", "id-6"}
    assert await matching(session, RecordSet.type, "!A") == {"id-2", "id-3", "id-4", "id-5"}
    assert await matching(session, RecordSet.description, "*ip") == {"id-3"}
    assert await matching(session, RecordSet.description, "w*b") == {"id-1", "id-6"}
    assert await matching(session, RecordSet.name, "*.org.") == set(NAMES)


def test_wildcards_become_like_and_a_bad_number_becomes_false():
    like = filters.criterion(RecordSet.name, "w*.example.*")
    assert str(like.compile(compile_kwargs={"literal_binds": True})) == \
        "recordsets.name LIKE 'w%.example.%'"
    nothing = filters.criterion(RecordSet.ttl, "x")
    assert str(nothing.compile(dialect=postgresql.dialect())) == "false"


# --- a whole filter set ------------------------------------------------------------------------
async def query_ids(session, criteria: dict[str, str]) -> set[str]:
    return set(await ids(session, filters.apply_criteria(select(RecordSet.id), RecordSet,
                                                         criteria)))


async def test_recordset_names_match_in_any_case(session):
    assert await query_ids(session, {"name": "WWW.EXAMPLE.ORG."}) == {"id-1", "id-2"}
    assert await query_ids(session, {"name": "www.example.org.", "type": "AAAA"}) == {"id-2"}
    assert await query_ids(session, {"name": "*.EXAMPLE.ORG."}) == set(NAMES)


async def test_other_columns_keep_their_case(session):
    assert await query_ids(session, {"description": "mail"}) == set()
    assert await query_ids(session, {"description": "Mail"}) == {"id-4"}


async def test_tld_names_match_in_any_case(session):
    query = filters.apply_criteria(select(Tld.name), Tld, {"name": "NET"})
    assert await ids(session, query) == ["Net"]


# --- sort keys ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("sort_key", "default", "keys"), [
    (None, ("created_at", "id"), ["created_at", "id"]),
    ("name", ("created_at", "id"), ["name", "created_at", "id"]),
    ("id", ("created_at", "id"), ["id", "created_at"]),
    ("created_at", ("created_at", "id"), ["created_at", "id"]),
    (None, ("name",), ["name", "id"]),
])
def test_sort_keys_end_in_a_total_order(sort_key, default, keys):
    assert filters.sort_keys(Page(sort_key=sort_key), default) == keys


# --- pages -------------------------------------------------------------------------------------
async def page_ids(session, page: Page, branches=None) -> list[str]:
    if branches is None:
        query = await filters.paginate(session, select(RecordSet), RecordSet, page)
    else:
        query = await filters.paginate_union(session, branches, RecordSet, page)
    return [row.id for row in (await session.execute(query)).scalars()]


async def test_default_order_is_created_at_then_id(session):
    assert await page_ids(session, Page()) == ["id-1", "id-2", "id-3", "id-4", "id-5", "id-6"]
    assert await page_ids(session, Page(sort_dir="desc")) == [
        "id-6", "id-5", "id-4", "id-3", "id-2", "id-1"]


async def test_names_sort_folded_to_upper_case(session):
    """As on Designate's MariaDB: ``_sip`` after ``www`` (``_`` sorts after ``Z``), and the
    two spellings of www side by side, in creation order."""
    order = await page_ids(session, Page(sort_key="name"))
    assert [NAMES[i] for i in order] == [
        "a.example.org.", "b.example.org.", "mail.example.org.", "www.example.org.",
        "WWW.Example.org.", "_sip._tcp.example.org."]


@pytest.mark.parametrize("sort_key", [None, "name", "ttl", "description", "type", "id"])
@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
@pytest.mark.parametrize("limit", [1, 2, 4])
async def test_walking_the_pages_gives_every_row_once_in_order(session, sort_key, sort_dir,
                                                               limit):
    """Nullable sort keys (ttl, description) included: the NULL rows are neither skipped
    nor repeated, and ties on the sort key are broken the same way on every page."""
    everything = await page_ids(session, Page(sort_key=sort_key, sort_dir=sort_dir))
    walked: list[str] = []
    marker = None
    while True:
        page = await page_ids(session, Page(sort_key=sort_key, sort_dir=sort_dir, limit=limit,
                                            marker=marker))
        walked += page
        if len(page) < limit:
            break
        marker = page[-1]
    assert walked == everything
    assert sorted(everything) == sorted(NAMES)


async def test_union_of_branches_pages_like_one_query(session):
    branches = [select(RecordSet).where(RecordSet.type == "A"),
                select(RecordSet).where(RecordSet.type != "A")]
    for page in (Page(sort_key="name", limit=3), Page(sort_key="ttl", limit=2, marker="id-4"),
                 Page(sort_dir="desc", limit=4, marker="id-5")):
        assert await page_ids(session, page, branches) == await page_ids(session, page)


async def test_unknown_marker_is_designates_400(session):
    with pytest.raises(errors.MarkerNotFound) as caught:
        await page_ids(session, Page(marker="no-such-id"))
    assert caught.value.message == "Marker None could not be found"


# --- the keyset bound for every engine's NULL placement ----------------------------------------
def engine_order(column, descending: bool, nulls_largest: bool):
    """ORDER BY as ``column`` sorts on an engine where NULL is the largest or the smallest."""
    ordered = column.desc() if descending else column.asc()
    nulls_last = descending != nulls_largest
    return ordered.nulls_last() if nulls_last else ordered.nulls_first()


@pytest.mark.parametrize(("dialect", "nulls_largest"), [
    ("postgresql", True), ("mysql", False), ("sqlite", False)])
@pytest.mark.parametrize("descending", [False, True])
async def test_keyset_follows_the_engines_null_order(session, dialect, nulls_largest, descending):
    columns = [RecordSet.ttl, RecordSet.id]
    order = [engine_order(c, descending, nulls_largest) for c in columns]
    everything = await ids(session, select(RecordSet.id).order_by(*order))
    keyset = Keyset(columns, [False, True], dialect)
    for index, marker in enumerate(everything):
        values = (await session.execute(select(*columns).where(RecordSet.id == marker))).one()
        after = select(RecordSet.id).where(keyset.after(tuple(values), descending))
        assert await ids(session, after.order_by(*order)) == everything[index + 1:], marker


@pytest.mark.parametrize(("dialect", "row_value"), [
    (postgresql.dialect(), True), (sqlite.dialect(), True), (mysql.dialect(), False)])
def test_row_value_bound_only_where_the_planner_uses_it(dialect, row_value):
    """PostgreSQL and SQLite walk one index range for ``(a, b) > (x, y)``; MariaDB does not,
    so it gets the OR form (figures in filters.py)."""
    keyset = Keyset([RecordSet.created_at, RecordSet.id], [True, True], dialect.name)
    sql = str(keyset.after((T0, "id-1"), False).compile(dialect=dialect))
    assert ("(recordsets.created_at, recordsets.id) >" in sql) is row_value
    assert (" OR " in sql) is not row_value


def test_a_nullable_column_or_a_null_marker_value_needs_the_expanded_form():
    columns = [RecordSet.ttl, RecordSet.id]
    for never_null, values in (([False, True], (300, "id-1")), ([True, True], (None, "id-2"))):
        sql = str(Keyset(columns, never_null, "postgresql").after(values, False).compile(
            dialect=postgresql.dialect()))
        assert " OR " in sql and "(recordsets.ttl, recordsets.id) >" not in sql
