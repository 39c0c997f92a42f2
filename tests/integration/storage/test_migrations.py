"""Alembic migrations on SQLite, PostgreSQL and MariaDB: models in sync, 0004 up, down and up.

The models docstring promises that ``storage/models.py`` matches the migrations; alembic's
``compare_metadata`` checks it (columns, types, indexes, unique constraints). Migration 0004
copies the zone owner onto existing recordsets, so it runs over rows written at 0003.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, pool, text
from sqlalchemy.engine import Engine

from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import sync_url
from openkeel_designate.storage.models import Base
from support.databases import empty_database_url

ZONES = {"z-a": "proj-a", "z-b": "proj-b"}
NEW_INDEXES = {
    "zones": {"ix_zones_tenant_deleted_created_id": ["tenant_id", "deleted", "created_at", "id"]},
    "recordsets": {"ix_recordsets_zone_created_id": ["zone_id", "created_at", "id"],
                   "ix_recordsets_zone_tenant_created_id": ["zone_tenant_id", "created_at", "id"]},
}
OLD_INDEXES = {
    "zones": {"ix_zones_tenant_deleted_created": ["tenant_id", "deleted", "created_at"]},
    "recordsets": {"ix_recordsets_zone_created": ["zone_id", "created_at"]},
}


@pytest.fixture(params=("sqlite", "postgresql", "mysql"))
def url(request) -> Iterator[str]:
    with empty_database_url(request.param, prefix="okd-migrate-") as database_url:
        yield database_url


@pytest.fixture
def engine(url) -> Iterator[Engine]:
    engine = create_engine(sync_url(url), poolclass=pool.NullPool)
    yield engine
    engine.dispose()


def differences(engine: Engine) -> list:
    with engine.connect() as connection:
        return compare_metadata(MigrationContext.configure(connection), Base.metadata)


def indexes(engine: Engine, table: str) -> dict[str, list[str]]:
    return {ix["name"]: ix["column_names"] for ix in inspect(engine).get_indexes(table)}


def columns(engine: Engine, table: str) -> set[str]:
    return {column["name"] for column in inspect(engine).get_columns(table)}


def seed_at_0003(engine: Engine) -> None:
    """Two zones of two projects, each with a recordset, written as the 0003 schema stands."""
    zone = text(
        "INSERT INTO zones (id, version, deleted, shard, tenant_id, name, email, ttl, refresh, "
        "retry, expire, minimum, serial, status, action, pool_id, reverse_name, type, "
        "delayed_notify, increment_serial, change_seq, hard_delete, attempts, created_at) VALUES "
        "(:id, 1, '0', 1, :tenant, :name, 'h@x.test', 3600, 1, 1, 1, 1, 1, 'ACTIVE', 'NONE', "
        "'pool', 'x', 'PRIMARY', :no, :no, 1, :no, 0, '2026-01-01 00:00:00')")
    recordset = text(
        "INSERT INTO recordsets (id, version, zone_shard, tenant_id, zone_id, name, type, "
        "reverse_name, created_at) VALUES (:id, 1, 1, :tenant, :zone, :name, 'A', 'x', "
        "'2026-01-01 00:00:00')")
    with engine.begin() as connection:
        for zone_id, tenant in ZONES.items():
            connection.execute(zone, {"id": zone_id, "tenant": tenant, "name": f"{zone_id}.test.",
                                      "no": False})
            # the recordset of z-a was created by proj-b (as in a shared zone)
            connection.execute(recordset, {"id": f"rs-{zone_id}", "tenant": "proj-b",
                                           "zone": zone_id, "name": f"www.{zone_id}.test."})


def test_models_match_the_migrations(url, engine):
    migrate.upgrade(url)
    assert differences(engine) == []


def test_0004_fills_the_zone_owner_and_downgrades(url, engine):
    config = migrate.alembic_config(url)
    command.upgrade(config, "0003")
    seed_at_0003(engine)
    command.upgrade(config, "0004")
    with engine.connect() as connection:
        owners = dict(connection.execute(text("SELECT id, zone_tenant_id FROM recordsets")).all())
    assert owners == {"rs-z-a": "proj-a", "rs-z-b": "proj-b"}
    for table, expected in NEW_INDEXES.items():
        assert expected.items() <= indexes(engine, table).items()
        assert not OLD_INDEXES[table].keys() & indexes(engine, table).keys()

    command.downgrade(config, "0003")
    assert "zone_tenant_id" not in columns(engine, "recordsets")
    for table, expected in OLD_INDEXES.items():
        assert expected.items() <= indexes(engine, table).items()
        assert not NEW_INDEXES[table].keys() & indexes(engine, table).keys()
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM recordsets")).scalar_one() == 2

    command.upgrade(config, "head")
    assert differences(engine) == []
