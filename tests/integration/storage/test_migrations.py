"""Alembic migrations on SQLite, PostgreSQL and MariaDB: models in sync, 0004, 0005 and 0012 up,
down, up.

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
from sqlalchemy.exc import IntegrityError
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


def seed_collisions_at_0004(engine: Engine) -> None:
    """Zone z-a (ACTIVE) holds ``Www`` A {1, 2} (older) and ``wWW`` A {2, 3}, and ``mail`` A."""
    seed_at_0003(engine)
    recordset = text(
        "INSERT INTO recordsets (id, version, zone_shard, tenant_id, zone_id, zone_tenant_id, "
        "name, type, reverse_name, created_at) VALUES (:id, 1, 1, 'proj-a', 'z-a', 'proj-a', "
        ":name, 'A', 'x', :at)")
    record = text(
        "INSERT INTO records (id, version, zone_shard, zone_id, recordset_id, data, hash, "
        "managed, status, action, serial, created_at) VALUES (:id, 1, 1, 'z-a', :rs, :data, "
        ":hash, :no, 'ACTIVE', 'NONE', 1, '2026-01-01 00:00:00')")
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM recordsets"))
        for rs_id, name, at in (("rs-old", "Www.z-a.test.", "2026-01-01 00:00:00"),
                                ("rs-new", "wWW.z-a.test.", "2026-01-02 00:00:00"),
                                ("rs-mail", "mail.z-a.test.", "2026-01-01 00:00:00")):
            connection.execute(recordset, {"id": rs_id, "name": name, "at": at})
        for rs_id, data in (("rs-old", "192.0.2.1"), ("rs-old", "192.0.2.2"),
                            ("rs-new", "192.0.2.2"), ("rs-new", "192.0.2.3"),
                            ("rs-mail", "192.0.2.9")):
            connection.execute(record, {"id": f"{rs_id}-{data}", "rs": rs_id, "data": data,
                                        "hash": f"{rs_id}-{data}", "no": False})


def skip_on_mariadb(engine: Engine) -> None:
    if engine.dialect.name == "mysql":
        pytest.skip("MariaDB's case-insensitive collation refuses names differing only in case "
                    "before 0005 already: no such rows can exist there")


def test_0005_fills_name_keys_downgrades_and_upgrades(url, engine):
    config = migrate.alembic_config(url)
    command.upgrade(config, "0004")
    seed_at_0003(engine)
    command.upgrade(config, "0005")
    with engine.connect() as connection:
        keys = connection.execute(text("SELECT name, name_key FROM zones ORDER BY name")).all()
    assert [tuple(row) for row in keys] == [("z-a.test.", "z-a.test."), ("z-b.test.", "z-b.test.")]
    assert {"uq_zones_name_key_pool_deleted"} <= {
        c["name"] for c in inspect(engine).get_unique_constraints("zones")}
    command.downgrade(config, "0004")
    assert "name_key" not in columns(engine, "recordsets") | columns(engine, "zones")
    assert {"uq_recordsets_zone_name_type"} <= {
        c["name"] for c in inspect(engine).get_unique_constraints("recordsets")}
    command.upgrade(config, "head")
    assert differences(engine) == []


def test_0005_merges_recordsets_differing_in_case(url, engine):
    skip_on_mariadb(engine)
    config = migrate.alembic_config(url)
    command.upgrade(config, "0004")
    seed_collisions_at_0004(engine)
    command.upgrade(config, "0005")
    with engine.connect() as connection:
        sets = connection.execute(text(
            "SELECT id, name, name_key FROM recordsets ORDER BY id")).all()
        data = connection.execute(text(
            "SELECT recordset_id, data FROM records ORDER BY recordset_id, data")).all()
        zone = connection.execute(text(
            "SELECT status, action, change_seq, increment_serial FROM zones WHERE id = 'z-a'")).one()
        other = connection.execute(text("SELECT status FROM zones WHERE id = 'z-b'")).scalar_one()
    assert [tuple(row) for row in sets] == [("rs-mail", "mail.z-a.test.", "mail.z-a.test."),
                                            ("rs-old", "Www.z-a.test.", "www.z-a.test.")]
    assert [tuple(row) for row in data] == [("rs-mail", "192.0.2.9"), ("rs-old", "192.0.2.1"),
                                            ("rs-old", "192.0.2.2"), ("rs-old", "192.0.2.3")]
    assert (zone[0], zone[1], zone[2], bool(zone[3])) == ("PENDING", "UPDATE", 2, True)
    assert other == "ACTIVE"
    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO recordsets (id, version, zone_shard, zone_id, name, name_key, type, "
            "reverse_name) VALUES ('rs-x', 1, 1, 'z-a', 'WWW.z-a.test.', 'www.z-a.test.', 'A', "
            "'x')"))


def test_0005_stops_on_zones_differing_only_in_case(url, engine):
    skip_on_mariadb(engine)
    config = migrate.alembic_config(url)
    command.upgrade(config, "0004")
    seed_at_0003(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE zones SET name = 'Z-A.test.' WHERE id = 'z-b'"))
    with pytest.raises(RuntimeError, match="differ only in case"):
        command.upgrade(config, "0005")


def test_0012_fills_the_reverse_key_and_downgrades(url, engine):
    """Zones made before 0012 are found by the range of the names below theirs."""
    config = migrate.alembic_config(url)
    command.upgrade(config, "0003")
    seed_at_0003(engine)
    with engine.begin() as connection:
        connection.execute(text("UPDATE zones SET name = 'Z-A.Test.' WHERE id = 'z-a'"))
    command.upgrade(config, "0012")
    with engine.connect() as connection:
        keys = dict(connection.execute(text("SELECT id, reverse_key FROM zones")).all())
        below = connection.execute(text(
            "SELECT id FROM zones WHERE reverse_key > '.tset.' AND reverse_key < '.tset/'")).all()
    assert keys == {"z-a": ".tset.a-z", "z-b": ".tset.b-z"}
    assert sorted(row.id for row in below) == ["z-a", "z-b"]
    assert "ix_zones_reverse_key" in indexes(engine, "zones")

    command.downgrade(config, "0011")
    assert "reverse_key" not in columns(engine, "zones")
    command.upgrade(config, "head")
    assert differences(engine) == []
