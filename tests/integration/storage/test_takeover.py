"""A Designate 23.0.0-shaped database taken over by ``database sync``, on MariaDB and PostgreSQL.

Built from ``storage/takeover/shape.py`` with one row of every kind (``support/designate_db``), so
it runs without Designate installed; ``tests/integration/test_takeover_reference.py`` does the
same against a database the real Designate filled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import Database, sync_url
from openkeel_designate.storage.takeover import procedure, shape, undo
from openkeel_designate.storage.takeover.sql import dialect_of
from openkeel_designate.storage.zonesource import SqlZoneSource
from support import designate_db
from support.databases import empty_database_url

IDS = designate_db.IDS


@pytest.fixture(params=("postgresql", "mysql"))
def url(request) -> Iterator[str]:
    with empty_database_url(request.param, prefix="okd-takeover-") as database_url:
        yield database_url


def _rows(url: str, query: str) -> list[sa.Row]:
    engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            return list(connection.execute(sa.text(query)))
    finally:
        engine.dispose()


def _quiet(_: str) -> None:
    pass


def test_every_row_and_id_is_kept(url: str) -> None:
    designate_db.build(url)
    result = procedure.sync(url, no_backup=True, say=_quiet)
    assert result.took_over
    assert migrate.is_current(url)
    counts = {t: _rows(url, f"SELECT COUNT(*) FROM {t}")[0][0] for t in result.rows}
    assert counts == result.rows
    assert counts["zones"] == 9  # the catalog zone became the pool's catalog settings
    assert counts["recordsets"] == 10 and counts["records"] == 10  # 2 were being deleted
    for table, key in (("pools", "pool"), ("pool_attributes", "attr"), ("pool_ns_records", "ns"),
                       ("pool_nameservers", "nameserver"), ("pool_targets", "target"),
                       ("pool_target_options", "option"), ("pool_target_masters", "tmaster"),
                       ("pool_also_notifies", "notify"), ("quotas", "quota"), ("tlds", "tld"),
                       ("blacklists", "blacklist"), ("tsigkeys", "tsig"),
                       ("zone_attributes", "zattr"), ("zone_masters", "zmaster"),
                       ("shared_zones", "share"), ("zone_tasks", "task_export"),
                       ("zone_transfer_requests", "request"),
                       ("zone_transfer_accepts", "accept"), ("service_statuses", "service")):
        assert _rows(url, f"SELECT id FROM {table} WHERE id = '{IDS[key]}'"), table
    _check_zones(url)
    _check_records(url)
    assert _rows(url, "SELECT version, provisioner FROM pools")[0] == (3, "UNMANAGED")
    assert _rows(url, "SELECT zone_id, tenant_id FROM zone_transfer_accepts")[0] == (
        IDS["pending_update"], "proj-b")
    assert _rows(url, "SELECT fqdn, tsig_key, serial FROM pool_catalog_zones")[0] == (
        "catalog.example.org.", "Y2F0", 1700000000)
    assert not procedure.sync(url, say=_quiet).took_over  # a second sync finds ours


def _check_zones(url: str) -> None:
    zones = {r.name: r for r in _rows(url, "SELECT * FROM zones")}
    state = {name: (z.status, z.action) for name, z in zones.items()}
    assert state["create.example.org."] == ("PENDING", "CREATE")
    assert state["delete.example.org."] == ("PENDING", "DELETE")
    assert state["error.example.org."] == ("ERROR", "UPDATE")
    assert state["delayed.example.org."] == ("PENDING", "UPDATE")  # the NOTIFY is still owed
    assert state["active.example.org."] == ("PENDING", "UPDATE")  # it has a PENDING record
    assert state["secondary.example.org."] == ("ACTIVE", "NONE")
    gone = zones["gone.example.org."]
    assert (gone.status, gone.deleted, gone.deleted_at is not None) == (
        "DELETED", IDS["deleted"].replace("-", ""), True)
    assert zones["update.example.org."].increment_serial
    assert zones["sub.active.example.org."].parent_zone_id == IDS["active"]
    assert {z.serial for z in zones.values()} == {1700000000}
    assert zones["active.example.org."].id == IDS["active"]
    # the subzone lookup of a zone create finds the zones taken over (migration 0012)
    assert all(z.reverse_key == z.name_key[::-1] for z in zones.values())


def _check_records(url: str) -> None:
    rows = _rows(url, "SELECT r.data, r.status, r.serial, s.zone_tenant_id, s.name_key "
                      "FROM records r JOIN recordsets s ON s.id = r.recordset_id")
    assert {r.zone_tenant_id for r in rows} == {"proj-a"}
    assert {(r.status, r.serial) for r in rows if r.data == "192.0.2.2"} == {("PENDING", None)}
    assert {r.serial for r in rows if r.status == "ACTIVE"} == {1700000000}
    assert not [r for r in rows if r.data == '"bye"']
    served = asyncio.run(_served(url, IDS["secondary"]))
    assert served == []
    assert {(r.type, r.data) for r in asyncio.run(_served(url, IDS["active"]))} >= {
        ("A", "192.0.2.1"), ("A", "192.0.2.2"), ("MX", "10 mx.example.org.")}


async def _served(url: str, zone_id: str):
    db = Database(url)
    try:
        return await SqlZoneSource(db).zone_records(zone_id)
    finally:
        await db.dispose()


def test_backup_comes_first(url: str) -> None:
    designate_db.build(url)
    tool = "pg_dump" if url.startswith("postgresql") else "mysqldump"
    with pytest.raises(procedure.Refused, match=tool):
        procedure.sync(url, say=_quiet)
    assert _rows(url, "SELECT version_num FROM alembic_version")[0][0] == shape.HEAD


def test_backup_file_is_taken(url: str, tmp_path) -> None:
    designate_db.build(url)
    path = tmp_path / "designate.sql"
    try:
        procedure.sync(url, backup_file=str(path), say=_quiet)
    except RuntimeError as exc:
        pytest.skip(f"no dump tool: {exc}")
    text = path.read_text()
    assert "active.example.org." in text and "zone_transfer_requests" in text


def test_a_cut_short_takeover_runs_again(url: str) -> None:
    designate_db.build(url)
    engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    procedure._move_aside(engine, dialect_of(engine.dialect.name))  # cut right after the move
    engine.dispose()
    assert procedure.sync(url, say=_quiet).took_over  # no backup asked: nothing left to back up
    assert _rows(url, "SELECT COUNT(*) FROM zones")[0][0] == 9


def test_forget_designate_drops_the_leftovers(url: str) -> None:
    designate_db.build(url)
    procedure.sync(url, no_backup=True, say=_quiet)
    assert undo.forget(url)
    with pytest.raises(procedure.Refused, match="no Designate tables"):
        undo.forget(url)
    assert _rows(url, "SELECT COUNT(*) FROM zones")[0][0] == 9


@pytest.mark.parametrize("case", ("stranger", "old-designate", "missing-column"))
def test_neither_ours_nor_designate_is_refused(url: str, case: str) -> None:
    engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    with engine.begin() as connection:
        if case == "stranger":
            connection.execute(sa.text("CREATE TABLE accounts (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    if case == "old-designate":
        designate_db.build(url, revision="d9a1883e93e9")
    elif case == "missing-column":
        designate_db.build(url)
        engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
        with engine.begin() as connection:
            connection.execute(sa.text("ALTER TABLE zones DROP COLUMN increment_serial"))
        engine.dispose()
    reason = {"stranger": "no alembic_version", "old-designate": "upgrade it to 23.0.0",
              "missing-column": "zones.increment_serial"}[case]
    with pytest.raises(procedure.Refused, match=reason):
        procedure.sync(url, no_backup=True, say=_quiet)


def test_syncs_started_together_take_turns(url: str) -> None:
    """Every replica's init step runs ``database sync``: on an empty database they must neither
    mistake a half-created schema of ours for a stranger nor trip over each other."""
    import subprocess
    import sys

    code = ("import sys; from openkeel_designate.storage.takeover import procedure; "
            "procedure.sync(sys.argv[1])")
    procs = [subprocess.Popen([sys.executable, "-c", code, url], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT) for _ in range(3)]
    outputs = [proc.communicate(timeout=120)[0].decode(errors="replace") for proc in procs]
    failed = [out for proc, out in zip(procs, outputs) if proc.returncode != 0]
    assert not failed, failed[0][-3000:]
    assert migrate.is_current(url)


def test_downgrade_to_designate_writes_our_rows_back(url: str) -> None:
    from openkeel_designate.storage.takeover import downgrade

    designate_db.build(url)
    procedure.sync(url, no_backup=True, say=_quiet)
    new_tld = "0b9ad0c4-6c1c-4c57-9f43-1c2f5e1a0001"
    engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE zones SET description = 'changed', status = 'ACTIVE',"
                                   " action = 'NONE' WHERE name = 'active.example.org.'"))
        connection.execute(sa.text(f"DELETE FROM tlds WHERE id = '{IDS['tld']}'"))
        connection.execute(sa.text("INSERT INTO tlds (id, version, name) "
                                   f"VALUES ('{new_tld}', 1, 'net')"))
    engine.dispose()
    downgrade.downgrade(url)
    assert _rows(url, "SELECT version_num FROM alembic_version")[0][0] == shape.HEAD
    tlds = {(str(r.id).replace("-", ""), r.name) for r in _rows(url, "SELECT id, name FROM tlds")}
    assert tlds == {(new_tld.replace("-", ""), "net")}
    zone = _rows(url, "SELECT description, status FROM zones WHERE name = 'active.example.org.'")
    assert [tuple(z) for z in zone] == [("changed", "ACTIVE")]
    assert _rows(url, "SELECT version FROM pools")[0][0] == 3
    assert _rows(url, "SELECT COUNT(*) FROM zones")[0][0] == 10  # the catalog zone is back too
    assert _rows(url, "SELECT COUNT(*) FROM records")[0][0] == 10
    assert procedure.sync(url, no_backup=True, say=_quiet).took_over  # and over again
