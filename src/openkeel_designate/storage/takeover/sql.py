"""The few SQL spellings that differ between MariaDB and PostgreSQL during a takeover.

Designate's tables are not dropped when ours are created: they are moved aside (MariaDB:
renamed with the prefix ``designate23_``; PostgreSQL: moved into the schema ``designate23``, so
that their index and constraint names, global per schema there, do not collide with ours).  They
stay until ``manage database forget-designate``, the source of a ``downgrade-to-designate``.
"""

from __future__ import annotations

from dataclasses import dataclass

ASIDE = "designate23"
# Written into the moved-aside alembic_version once every row is copied: a sync that finds
# Designate's tables aside without it was cut short, and copies again.
DONE_MARK = "openkeel-takeover-done"


@dataclass(frozen=True)
class Sql:
    dialect: str  # "mysql" or "postgresql"

    @property
    def mysql(self) -> bool:
        return self.dialect != "postgresql"

    def aside(self, table: str) -> str:
        return f"{ASIDE}_{table}" if self.mysql else f"{ASIDE}.{table}"

    def q(self, name: str) -> str:
        """A quoted column name (``key`` is reserved on MariaDB)."""
        return f"`{name}`" if self.mysql else f'"{name}"'

    def dashed(self, expr: str) -> str:
        """A Designate id as we store it: the 36-character text form of the uuid."""
        if self.mysql:
            parts = ", '-', ".join(f"SUBSTR({expr}, {start}, {length})" for start, length in
                                   ((1, 8), (9, 4), (13, 4), (17, 4), (21, 12)))
            return f"LOWER(CONCAT({parts}))"
        return f"CAST({expr} AS TEXT)"

    def hexid(self, expr: str) -> str:
        """Our id as Designate stores it (the reverse of ``dashed``)."""
        return f"REPLACE({expr}, '-', '')" if self.mysql else f"CAST({expr} AS UUID)"

    def text(self, expr: str) -> str:
        """An enum (or char) value as plain text."""
        return expr if self.mysql else f"CAST({expr} AS TEXT)"

    def to_enum(self, expr: str, pg_type: str | None) -> str:
        return expr if self.mysql or not pg_type else f"CAST({expr} AS public.{pg_type})"

    def true(self) -> str:
        return "1" if self.mysql else "TRUE"

    def false(self) -> str:
        return "0" if self.mysql else "FALSE"


def dialect_of(backend: str) -> Sql:
    return Sql("postgresql" if backend == "postgresql" else "mysql")
