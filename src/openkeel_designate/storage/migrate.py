"""Schema migrations with alembic, driven from code (``manage database sync``, ``serve``).

Several processes may migrate one database at the same instant: every ``serve`` on one SQLite
file at boot, or ``database sync`` in the init step of each replica of a rollout. Alembic reads
the current revision and then creates tables, so two of them would both create the first table
and one would crash; ``upgrade`` therefore holds a lock for the whole run, and whoever comes
second finds the schema current and does nothing.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, pool, text
from sqlalchemy.engine import make_url

from openkeel_designate.storage.database import sync_url

_HERE = os.path.dirname(os.path.abspath(__file__))
# The lock taken on MariaDB (GET_LOCK, followed by the database name: its locks are server-wide,
# and a long migration of one database must not hold up another's); PostgreSQL's advisory
# locks are per database already.
LOCK_NAME = "openkeel_designate.migrate"
_PG_LOCK_KEY = 0x6F6B645F6D6967  # "okd_mig": any fixed 63-bit number
LOCK_TIMEOUT_SECONDS = 600


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", os.path.join(_HERE, "migrations"))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    return config


def is_current(url: str) -> bool:
    """Whether the database at ``url`` is at the latest revision."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    engine = create_engine(sync_url(url), poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision() == head
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision``; safe to run again, and at the same time
    from several processes (they take turns)."""
    with migration_lock(url):
        upgrade_holding_lock(url, revision)


def upgrade_holding_lock(url: str, revision: str = "head") -> None:
    """``upgrade`` for a caller that already holds ``migration_lock`` (the takeover decides
    what the database is and migrates it under one lock, so a racing sync never sees half)."""
    command.upgrade(alembic_config(url), revision)


def mysql_lock_name(database: str) -> str:
    """MariaDB's ``GET_LOCK`` names are server-wide (PostgreSQL's advisory locks are per
    database): the database's name goes into the lock, so a long migration of one database
    never holds up another's. Names are capped at 64 characters, hence the digest."""
    digest = hashlib.sha1(database.encode()).hexdigest()[:16]
    return f"{LOCK_NAME}.{digest}"


@contextmanager
def migration_lock(url: str) -> Iterator[None]:
    """Hold the database's migration lock: a file lock beside a SQLite file (SQLite is local to
    one host), a session-level advisory lock on PostgreSQL, ``GET_LOCK`` on MariaDB/MySQL."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        path = parsed.database
        if not path or path == ":memory:" or path.startswith("file:"):
            yield  # one connection, one process: nobody to race with
            return
        with open(path + ".migrate-lock", "a") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)
        return
    engine = create_engine(sync_url(url), poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            if backend == "postgresql":
                connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _PG_LOCK_KEY})
                release = text("SELECT pg_advisory_unlock(:k)"), {"k": _PG_LOCK_KEY}
            else:
                name = mysql_lock_name(parsed.database or "")
                got = connection.execute(text("SELECT GET_LOCK(:n, :t)"),
                                         {"n": name, "t": LOCK_TIMEOUT_SECONDS}).scalar()
                if got != 1:
                    raise RuntimeError(f"another process kept the migration lock {name!r} "
                                       f"for {LOCK_TIMEOUT_SECONDS} s")
                release = text("SELECT RELEASE_LOCK(:n)"), {"n": name}
            connection.commit()  # hold the lock outside any transaction while alembic runs
            try:
                yield
            finally:
                connection.execute(*release)
                connection.commit()
    finally:
        engine.dispose()
