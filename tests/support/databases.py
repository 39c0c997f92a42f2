"""Fresh, throw-away PostgreSQL and MariaDB databases for one server or one test.

Why one database per use: the server's migrations, leases and row locks must be exercised on a
clean schema, and parallel test runs must not see each other's zones. Each database is named
``okd_<random>``, created through the Python drivers of the venv (psycopg2, pymysql) on the
machine's loopback services, and dropped by ``drop()`` (or at interpreter exit).

Server URLs follow the forms operators write in ``designate.conf``:
``postgresql://127.0.0.1:5432/okd_x?user=postgres`` and ``mysql+pymysql://root@127.0.0.1:3306/okd_x``.
Host, port and user come from ``OKD_PG_HOST``/``OKD_PG_PORT``/``OKD_PG_USER`` and
``OKD_MYSQL_HOST``/``OKD_MYSQL_PORT``/``OKD_MYSQL_USER`` (defaults: the CI machine's services).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

_LIVE: set["TestDatabase"] = set()


def _pg_params() -> tuple[str, int, str]:
    return (os.environ.get("OKD_PG_HOST", "127.0.0.1"), int(os.environ.get("OKD_PG_PORT", "5432")),
            os.environ.get("OKD_PG_USER", "postgres"))


def _mysql_params() -> tuple[str, int, str]:
    return (os.environ.get("OKD_MYSQL_HOST", "127.0.0.1"), int(os.environ.get("OKD_MYSQL_PORT", "3306")),
            os.environ.get("OKD_MYSQL_USER", "root"))


@dataclass(eq=False)
class TestDatabase:
    """A database and its URL; ``drop()`` is idempotent. ``kind="url"`` is never dropped here."""

    __test__ = False  # not a pytest test class despite the name

    kind: str
    name: str
    url: str
    dropped: bool = field(default=False)

    def drop(self) -> None:
        if self.dropped or self.kind == "url":
            return
        self.dropped = True
        _LIVE.discard(self)
        if self.kind == "postgresql":
            _pg_execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        elif self.kind == "mysql":
            _mysql_execute(f"DROP DATABASE IF EXISTS `{self.name}`")


def _pg_execute(sql: str) -> None:
    import psycopg2  # local import: only PostgreSQL users need the driver

    host, port, user = _pg_params()
    conn = psycopg2.connect(host=host, port=port, user=user, dbname="postgres", connect_timeout=10)
    try:
        conn.autocommit = True  # CREATE/DROP DATABASE cannot run inside a transaction
        with conn.cursor() as cur:
            cur.execute(sql)
    finally:
        conn.close()


def _mysql_execute(sql: str) -> None:
    import pymysql  # local import: only MariaDB users need the driver

    host, port, user = _mysql_params()
    conn = pymysql.connect(host=host, port=port, user=user, connect_timeout=10, autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
    finally:
        conn.close()


def make_database(kind: str) -> TestDatabase:
    """Create ``okd_<random>`` on PostgreSQL (``"postgresql"``) or MariaDB (``"mysql"``/``"mariadb"``)."""
    name = f"okd_{secrets.token_hex(5)}"
    if kind in ("postgresql", "postgres", "pg"):
        host, port, user = _pg_params()
        _pg_execute(f'CREATE DATABASE "{name}"')
        db = TestDatabase("postgresql", name, f"postgresql://{host}:{port}/{name}?user={user}")
    elif kind in ("mysql", "mariadb"):
        host, port, user = _mysql_params()
        _mysql_execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
        db = TestDatabase("mysql", name, f"mysql+pymysql://{user}@{host}:{port}/{name}")
    else:
        raise ValueError(f"unknown database kind {kind!r} (postgresql, mysql or sqlite)")
    _LIVE.add(db)
    return db


@contextlib.contextmanager
def empty_database_url(kind: str, prefix: str = "okd-") -> Iterator[str]:
    """The URL of a new empty database of ``kind`` (sqlite, postgresql, mysql), dropped after
    (SQLite's: its folder removed; a suite left ~460 of them in /tmp, 200 MB, per run)."""
    if kind == "sqlite":
        folder = tempfile.mkdtemp(prefix=prefix)
        try:
            yield f"sqlite:///{folder}/designate.sqlite"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    db = make_database(kind)
    try:
        yield db.url
    finally:
        db.drop()


@contextlib.contextmanager
def migrated_database_url(kind: str, prefix: str = "okd-") -> Iterator[str]:
    """``empty_database_url`` with the schema made (every migration applied)."""
    from openkeel_designate.storage import migrate

    with empty_database_url(kind, prefix) as made:
        migrate.upgrade(made)
        yield made


def database_exists(db: TestDatabase) -> bool:
    """Whether ``db`` is still on its server (for tests of the cleanup itself)."""
    if db.kind == "postgresql":
        import psycopg2

        host, port, user = _pg_params()
        conn = psycopg2.connect(host=host, port=port, user=user, dbname="postgres", connect_timeout=10)
        query, args = "SELECT 1 FROM pg_database WHERE datname = %s", (db.name,)
    elif db.kind == "mysql":
        import pymysql

        host, port, user = _mysql_params()
        conn = pymysql.connect(host=host, port=port, user=user, connect_timeout=10)
        query, args = "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s", (db.name,)
    else:
        raise ValueError(f"cannot inspect a {db.kind!r} database")
    try:
        with conn.cursor() as cur:
            cur.execute(query, args)
            return cur.fetchone() is not None
    finally:
        conn.close()


@atexit.register
def _drop_all() -> None:
    """Drop what a crashed or forgetful caller left behind."""
    for db in list(_LIVE):
        try:
            db.drop()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass
