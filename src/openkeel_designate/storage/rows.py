"""SQL shared by the administrative resources that are plain rows (TLDs, TSIG keys, blacklists).

Each of them is one table with a unique column, listed with the common filters and paging; one
set of queries serves all three instead of three copies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import func, inspect, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain import names
from openkeel_designate.domain.paging import Page
from openkeel_designate.storage.filters import apply_criteria, paginate
from openkeel_designate.storage.models import utcnow


async def get(session: AsyncSession, model: type, row_id: str) -> Any | None:
    return await session.get(model, row_id)


async def insert(session: AsyncSession, model: type, values: dict[str, Any],
                 conflict: Exception) -> Any:
    """A new row of ``model``, written at once so that a clash raises ``conflict`` here."""
    row = model(**values, created_at=utcnow())
    session.add(row)
    await _flush(session, conflict)
    return row


async def update(session: AsyncSession, row: Any, values: dict[str, Any],
                 conflict: Exception) -> Any:
    """``values`` written onto ``row``, its version and update time moved on."""
    for key, value in values.items():
        setattr(row, key, value)
    row.version = (row.version or 0) + 1
    row.updated_at = utcnow()
    await _flush(session, conflict)
    return row


async def delete(session: AsyncSession, row: Any) -> None:
    await session.delete(row)


async def _flush(session: AsyncSession, conflict: Exception) -> None:
    """A concurrent insert (or a case-insensitive collation) surfaces here as ``conflict``."""
    try:
        await session.flush()
    except IntegrityError as exc:
        raise conflict from exc


async def find(session: AsyncSession, model: type, page: Page) -> list[Any]:
    query = apply_criteria(select(model), model, page.criteria)
    return list((await session.execute(await paginate(session, query, model, page))).scalars())


async def taken(session: AsyncSession, model: type, column: str, value: Any,
                exclude_id: str | None = None) -> bool:
    """True when another row already holds ``value`` in the unique ``column``, in any case.

    TLD names, TSIG key names and blacklist patterns are unique without regard to case, as on
    Designate's MariaDB collation (``COM`` after ``com`` is 409 ``duplicate_tld``).
    """
    held = getattr(model, column)
    if isinstance(value, str):
        query = select(model.id).where(func.lower(held) == names.key(value))
    else:
        query = select(model.id).where(held == value)
    if exclude_id is not None:
        query = query.where(model.id != exclude_id)
    return (await session.execute(query.limit(1))).first() is not None


def columns(row: Any) -> dict[str, Any]:
    """A row's stored fields by column name: what a notification carries, read without SQL."""
    return {column.key: getattr(row, column.key) for column in inspect(row).mapper.column_attrs}


_SNAPSHOTS: dict[type, tuple[type, tuple[str, ...], Callable[[Iterable[Any]], Any]]] = {}
_KINDS: set[type] = set()
_TABLE_COLUMNS: dict[type, list[Any]] = {}


def _snapshot_kind(model: type) -> tuple[type, tuple[str, ...], Callable[[Iterable[Any]], Any]]:
    """The model's frozen copy class, its field names, and the function that makes one from the
    values in field order (``_builder``)."""
    known = _SNAPSHOTS.get(model)
    if known is None:
        keys = tuple(column.key for column in inspect(model).column_attrs)
        kind = dataclasses.make_dataclass(f"{model.__name__}Data", keys, frozen=True, slots=True)
        known = _SNAPSHOTS[model] = (kind, keys, _builder(kind, keys))
        _KINDS.add(kind)
    return known


def _builder(kind: type, keys: tuple[str, ...]) -> Callable[[Iterable[Any]], Any]:
    """A frozen copy made from its values without the frozen ``__init__``, which sets each
    field by ``object.__setattr__`` looked up anew: 3.7-5.1 µs for a zone's 37 columns,
    against 2.5-2.7 µs through the slots' own setters, taken once here (bench/README.md, "Issue 13,
    session of 2026-12-07 (06:16-)"). The same object: ``dataclasses.replace``, equality and
    hashing see no difference. Every field must be given, as ``__init__`` would insist."""
    setters = tuple(getattr(kind, key).__set__ for key in keys)
    new = object.__new__

    def build(values: Iterable[Any]) -> Any:
        copy = new(kind)
        for put, value in zip(setters, values, strict=True):
            put(copy, value)
        return copy
    return build


def snapshot(row: Any) -> Any:
    """A frozen copy of the row's columns, under the same names.

    What central hands to the API instead of the row: it reads like the row, but cannot load
    lazily, be written to, or be flushed by a session it outlives. A copy is returned as it is.
    """
    if type(row) in _KINDS:
        return row
    _, keys, build = _snapshot_kind(type(row))
    return build([getattr(row, key) for key in keys])


def table_columns(model: type) -> list[Any]:
    """The model's table columns in snapshot order, labelled with the attribute names.

    A Core ``select`` of these gives plain tuples that ``frozen`` turns into the same frozen copy
    ``snapshot`` makes of an ORM row, without the ORM's loading and identity map (hot reads).
    """
    known = _TABLE_COLUMNS.get(model)
    if known is None:
        _, keys, _ = _snapshot_kind(model)
        mapper = inspect(model)
        known = _TABLE_COLUMNS[model] = [mapper.column_attrs[key].columns[0].label(key) for key in keys]
    return known


def frozen(model: type, values: Any) -> Any:
    """The frozen copy of one row selected with ``table_columns(model)`` (first columns)."""
    _, keys, build = _snapshot_kind(model)
    return build(values[:len(keys)])


_COMPLETIONS: dict[type, tuple[tuple[str, Any, bool], ...]] = {}


def complete(model: type, values: dict[str, Any]) -> dict[str, Any]:
    """Every column of the model's table for a Core INSERT: the value given, else the column's
    constant default, else None. A column whose default is computed (ids, ``name_key``, times)
    must be given: the rows of one ``executemany`` need the same keys, and the row as written is
    also the frozen copy the caller renders (``frozen_from``)."""
    plan = _COMPLETIONS.get(model)
    if plan is None:  # (column, constant default, whether the default is computed), once
        plan = _COMPLETIONS[model] = tuple(
            (c.key, c.default.arg if c.default is not None and c.default.is_scalar else None,
             c.default is not None and not c.default.is_scalar)
            for c in model.__table__.columns)
    row = {}
    for key, default, computed in plan:
        if key in values:
            row[key] = values[key]
        elif computed:
            raise ValueError(f"{model.__name__}.{key} has a computed default: give it")
        else:
            row[key] = default
    return row


def frozen_from(model: type, values: dict[str, Any]) -> Any:
    """The frozen copy of a row written from ``values`` (every column, ``complete``)."""
    _, keys, build = _snapshot_kind(model)
    return build([values[key] for key in keys])


def is_snapshot(value: Any) -> bool:
    """Whether ``value`` is a frozen copy made by ``snapshot`` (a notification reads it as a row)."""
    return type(value) in _KINDS
