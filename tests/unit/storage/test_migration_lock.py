"""The MariaDB migration lock is per database, as PostgreSQL's advisory lock already is."""

from __future__ import annotations

from openkeel_designate.storage.migrate import mysql_lock_name


def test_each_database_has_its_own_lock_name() -> None:
    names = {mysql_lock_name(db) for db in ("designate", "okd-a", "okd-b", "x" * 64)}
    assert len(names) == 4
    assert all(len(name) <= 64 for name in names)  # GET_LOCK refuses longer names
    assert mysql_lock_name("designate") == mysql_lock_name("designate")
