"""A list as one parameter: many rows as one parameter per column (PostgreSQL statements that
write a batch at once), and a list of values to match (``member``).

Each column's values go as one array, and ``unnest`` of the arrays side by side yields them back
as rows (PostgreSQL runs the set-returning functions of one select list in step). A batch of any
size is then one prepared statement and one round trip, where a statement per row cost a round
trip each (~48 µs of CPU and ~90 µs of clock over 127.0.0.1; bench/README.md, "fewer round
trips per zone").
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sqlalchemy import ARRAY, CTE, ColumnElement, String, any_, bindparam, func, select
from sqlalchemy.types import TypeEngine


def unnested(name: str, columns: dict[str, TypeEngine]) -> CTE:
    """A CTE called ``name`` with a column per entry of ``columns``, whose values are the
    parameter ``b_<column>``: a list, one item per row, all of the same length."""
    return select(*(func.unnest(bindparam(f"b_{column}", type_=ARRAY(kind))).label(column)
                    for column, kind in columns.items())).cte(name)


def any_of(column: ColumnElement, name: str) -> ColumnElement[bool]:
    """``column`` equal to an item of the PostgreSQL array parameter ``name`` (``= ANY``)."""
    return column == any_(bindparam(name, type_=ARRAY(column.type)))


def member(column: ColumnElement[str], name: str) -> dict[str, ColumnElement[bool]]:
    """``column`` among the strings of the parameter ``name`` (its value: ``listed``), as a
    form per dialect name. An array with ``= ANY`` on PostgreSQL and a JSON text unpacked by
    ``json_each`` on SQLite keep the statement of one form, prepared once and run by the driver
    itself (``database.execute``); a list SQLAlchemy expands at each execution went through its
    whole execution path instead, on every zone create and every claim while pushes ran. On
    MariaDB (``mysql``) it still is such a list."""
    unpacked = func.json_each(bindparam(name, type_=String)).table_valued("value")
    return {"postgresql": any_of(column, name),
            "sqlite": column.in_(select(unpacked.c.value)),
            "mysql": column.in_(bindparam(name, expanding=True))}


def listed(dialect: str, values: Sequence[str]) -> list[str] | str:
    """The value of a ``member`` parameter for a database of this dialect name."""
    return json.dumps(list(values)) if dialect == "sqlite" else list(values)
