"""A write of several tables' rows as one PostgreSQL statement: data-modifying CTEs.

A recordset POST writes a recordset, its records and the zone's pending mark; a zone POST the
zone, its attributes, masters and managed recordsets and records. Each statement is a round
trip to the server (~48 µs of CPU and ~90 µs of clock over 127.0.0.1; bench/README.md, "fewer
round trips to PostgreSQL per write"), so the rows go as ``INSERT`` CTEs of one statement,
built once per row count. The foreign keys between them hold: PostgreSQL checks them at the
end of the statement. A unique violation fails the whole statement, so nothing is written.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import CTE, Table, bindparam, insert, select, union_all
from sqlalchemy.sql.elements import BindParameter

MERGED_ROWS = 8  # rows of one table at most in a merged write; more go as statements of their own


def row_values(table: Table, prefix: str, index: int = 0) -> dict[str, BindParameter]:
    """Every column of ``table`` as the parameter ``<prefix><index>_<column>``."""
    return {c.key: bindparam(f"{prefix}{index}_{c.key}", type_=c.type) for c in table.columns}


def inserted(table: Table, prefix: str, count: int) -> CTE:
    """``count`` rows of ``table`` inserted by a CTE (``row_values`` for each index)."""
    return insert(table).values([row_values(table, prefix, index)
                                 for index in range(count)]).cte(f"new_{table.name}")


def inserted_if(table: Table, prefix: str, count: int, condition: CTE) -> CTE:
    """``inserted``, but only if the CTE ``condition`` returns a row (one: each row is
    selected from it): a write made only if another part of the statement was."""
    columns = list(table.columns)
    chosen = [select(*row_values(table, prefix, index).values()).select_from(condition)
              for index in range(count)]
    return insert(table).from_select(
        [c.key for c in columns], chosen[0] if count == 1 else union_all(*chosen)
    ).cte(f"new_{table.name}")


def params(prefix: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The parameters of ``rows`` (every column, ``rows.complete``) for ``row_values``."""
    return {f"{prefix}{index}_{key}": value
            for index, row in enumerate(rows) for key, value in row.items()}
