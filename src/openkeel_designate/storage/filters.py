"""Designate's list filters and pagination, translated to SQL in one place.

A filter value may carry an operator prefix (``!x``, ``<x``, ``<=x``, ``>x``, ``>=x``,
``BETWEEN a,b``) and ``*`` wildcards (SQL ``LIKE``); otherwise it matches exactly.
Pagination is keyset-friendly: the marker row's sort values bound the next page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, and_, false, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from openkeel_designate.domain import errors


@dataclass
class Page:
    """What a list call asks for: criteria are already column-name → raw string."""

    criteria: dict[str, str] = field(default_factory=dict)
    limit: int | None = None
    marker: str | None = None
    sort_key: str | None = None
    sort_dir: str = "asc"


def criterion(column: Any, raw: str) -> ColumnElement[bool]:
    """One filter value with Designate's operator and wildcard syntax.

    A value that cannot match the column's type (``ttl=abc``) matches nothing, as in Designate,
    instead of letting a strict database raise.
    """
    value = str(raw)
    if value.startswith("BETWEEN "):
        low, _, high = value[len("BETWEEN "):].partition(",")
        low_v, high_v = _typed(column, low.strip()), _typed(column, high.strip())
        if low_v is _NO_MATCH or high_v is _NO_MATCH:
            return false()
        return column.between(low_v, high_v)
    for prefix, build in (("!", lambda c, v: c != v), ("<=", lambda c, v: c <= v),
                          (">=", lambda c, v: c >= v), ("<", lambda c, v: c < v),
                          (">", lambda c, v: c > v)):
        if value.startswith(prefix):
            operand = _typed(column, value[len(prefix):])
            return false() if operand is _NO_MATCH else build(column, operand)
    if "*" in value:
        return column.like(value.replace("*", "%"))
    operand = _typed(column, value)
    return false() if operand is _NO_MATCH else column == operand


_NO_MATCH = object()


def _typed(column: Any, value: str) -> Any:
    """The value as the column's Python type, or _NO_MATCH when it cannot be one."""
    try:
        python_type = column.type.python_type
    except (AttributeError, NotImplementedError):
        return value
    if python_type is int:
        try:
            return int(value)
        except ValueError:
            return _NO_MATCH
    return value


def apply_criteria(query: Select, model: Any, criteria: dict[str, str]) -> Select:
    for name, raw in criteria.items():
        query = query.where(criterion(getattr(model, name), raw))
    return query


async def paginate(session: AsyncSession, query: Select, model: Any, page: Page,
                   default_sort: tuple[str, ...] = ("created_at", "id")) -> Select:
    """Order ``query`` and bound it after ``page.marker`` (400 when the marker is unknown)."""
    keys = [page.sort_key] if page.sort_key else []
    for key in default_sort:
        if key not in keys:
            keys.append(key)
    if "id" not in keys:
        keys.append("id")
    columns = [_sort_expression(model, key) for key in keys]
    descending = page.sort_dir == "desc"
    query = query.order_by(*[c.desc() if descending else c.asc() for c in columns])
    if page.marker is not None:
        marker_values = await _marker_values(session, model, columns, page.marker)
        query = query.where(_after(columns, marker_values, descending))
    if page.limit is not None:
        query = query.limit(page.limit)
    return query


def _sort_expression(model: Any, key: str) -> Any:
    """Names sort case-insensitively on every engine (as on Designate's MariaDB collation)."""
    column = getattr(model, key)
    return func.lower(column) if key in ("name", "email") else column


async def _marker_values(session: AsyncSession, model: Any, columns: list, marker: str) -> tuple:
    try:
        row = (await session.execute(select(*columns).where(model.id == marker))).first()
    except Exception as exc:  # a marker the database cannot even compare
        raise errors.InvalidMarker() from exc
    if row is None:
        raise errors.MarkerNotFound("Marker None could not be found")
    return tuple(row)


def _after(columns: list, values: tuple, descending: bool) -> ColumnElement[bool]:
    """Rows strictly after the marker in (c1, c2, ...) order, NULLs sorted first."""
    clauses = []
    for index, column in enumerate(columns):
        equal_prefix = [_equal(columns[i], values[i]) for i in range(index)]
        clauses.append(and_(*equal_prefix, _beyond(column, values[index], descending)))
    return or_(*clauses)


def _equal(column: Any, value: Any) -> ColumnElement[bool]:
    return column.is_(None) if value is None else column == value


def _beyond(column: Any, value: Any, descending: bool) -> ColumnElement[bool]:
    if value is None:  # NULLs sort first ascending (SQLite, MariaDB); nothing precedes them
        return column.is_not(None) if not descending else false()
    return column < value if descending else column > value
