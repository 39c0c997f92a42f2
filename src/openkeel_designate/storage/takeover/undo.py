"""After a takeover: drop Designate's moved-aside tables once ours have proven themselves.

Kept apart from ``procedure`` because it is the one irreversible step of the takeover, run by
the operator when the way back is no longer wanted (the backup remains the other way back).
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import pool
from sqlalchemy.engine import make_url

from openkeel_designate.storage.database import sync_url
from openkeel_designate.storage.takeover import detect, shape
from openkeel_designate.storage.takeover.procedure import Refused, our_revisions
from openkeel_designate.storage.takeover.sql import ASIDE, dialect_of

# Designate's enum types on PostgreSQL that live in the public schema, beside our tables.
_PG_TYPES = sorted({pg for _, pg in shape.ENUMS.values()} | {"key"})


def forget(url: str) -> list[str]:
    """Drop the aside tables of a finished takeover; returns what was dropped."""
    sql = dialect_of(make_url(url).get_backend_name())
    engine = sa.create_engine(sync_url(url), poolclass=pool.NullPool)
    try:
        with engine.begin() as connection:
            finding = detect.inspect(connection, sql, our_revisions(url))
            if not finding.aside:
                raise Refused("no Designate tables are left in this database")
            if not finding.taken_over:
                raise Refused("Designate's tables are aside but the takeover did not finish: "
                              "run database sync first")
            if sql.mysql:
                names = ", ".join(f"`{sql.aside(t)}`" for t in finding.aside)
                connection.execute(sa.text(f"DROP TABLE {names}"))
                return [sql.aside(t) for t in finding.aside]
            connection.execute(sa.text(f"DROP SCHEMA {ASIDE} CASCADE"))
            for name in _PG_TYPES:
                connection.execute(sa.text(f'DROP TYPE IF EXISTS public."{name}"'))
            return [f"schema {ASIDE}"] + [f"type {t}" for t in _PG_TYPES]
    finally:
        engine.dispose()
