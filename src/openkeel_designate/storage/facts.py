"""Several small reads of one write as one statement: a ``UNION ALL`` of uniformly shaped rows.

On SQLite each statement is a crossing to the driver's thread and back, and on PostgreSQL and
MariaDB a round trip; a create's rules read half a dozen small things (counts, quota overrides,
TLDs, pools), so they are read as branches of one statement. Every branch yields
``(kind, text1 … text5, number)``: the kind says which read a row belongs to, unused texts are
NULL.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, String, cast, literal, null

WIDTH = 5  # text columns after the kind


def row(kind: str, *texts: Any, number: Any = None) -> list[Any]:
    """The columns of one branch: ``texts`` (columns, cast to text when they are not) and
    ``number`` (a column or count; 0 when None)."""
    columns = [t if isinstance(t.type, String) else cast(t, String) for t in texts]
    columns += [null()] * (WIDTH - len(texts))
    return [literal(kind), *columns, literal(0, Integer) if number is None else number]
