"""Rows of a child table folded into one column of their parent's row, as JSON text.

A zone's attributes and masters are a handful of rows at most, most often none. Read in a
statement of their own they cost a round trip and an execution per request, more than the rows
themselves (bench/README.md, "Zone reads in one statement"). As a correlated subquery in the
zone's own SELECT they come back in the same row: ``[[first, second], ...]`` as text, or NULL
(SQLite: ``[]``) when there are none. Every engine builds the array itself; only the name of
the aggregate differs.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Text, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement


class _PairsAggregate(FunctionElement):
    """``[[first, second], ...]`` over the rows aggregated, as text (rendered per engine)."""

    type = Text()
    inherit_cache = True
    name = "json_pairs"


@compiles(_PairsAggregate, "postgresql")
def _postgresql(element: _PairsAggregate, compiler: Any, **kw: Any) -> str:
    # As text: the json type would reach us through whatever codec the connection has set
    # (SQLAlchemy's asyncpg dialect decodes it), and the other engines give text.
    return f"CAST(json_agg(json_build_array({compiler.process(element.clauses, **kw)})) AS TEXT)"


@compiles(_PairsAggregate, "mysql")
@compiles(_PairsAggregate, "mariadb")
def _mysql(element: _PairsAggregate, compiler: Any, **kw: Any) -> str:
    return f"JSON_ARRAYAGG(JSON_ARRAY({compiler.process(element.clauses, **kw)}))"


@compiles(_PairsAggregate, "sqlite")
def _sqlite(element: _PairsAggregate, compiler: Any, **kw: Any) -> str:
    return f"json_group_array(json_array({compiler.process(element.clauses, **kw)}))"


def column(first: ColumnElement, second: ColumnElement, where: ColumnElement[bool],
           label: str) -> Any:
    """A correlated scalar subquery: the pairs of the child rows matching ``where``."""
    return select(_PairsAggregate(first, second)).where(where).scalar_subquery().label(label)


def pairs(text: str | None) -> list[list[Any]]:
    """The pairs of one ``column`` value (none for NULL)."""
    return json.loads(text) if text else []
