#!/usr/bin/env python3
"""How long ``database sync`` takes to take over a large Designate 23.0.0 database.

Builds a Designate-shaped database (``storage/takeover/shape.py``: the tables, ids and enums
Designate 23.0.0's own ``database sync`` creates) on a fresh MariaDB and/or PostgreSQL database,
fills it with ``--zones`` zones of ``--per-zone`` recordsets each (an SOA, an NS and A
recordsets of one record each, as Designate's API writes them; 1 zone in 100 still PENDING, 1 in
100 soft-deleted), then times the takeover (``procedure.sync``, no backup: the dump is the
operator's tool's time, printed separately with ``--dump``). The fill bypasses the API on
purpose: 200,000 recordsets through Designate's API would take hours here.

    .venv/bin/python bench/takeover.py [--zones 10000] [--per-zone 20] [--database mysql,postgresql]
                                       [--dump] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/support

from openkeel_designate.storage.database import sync_url  # noqa: E402
from openkeel_designate.storage.takeover import backup, procedure, shape  # noqa: E402
from support.databases import make_database  # noqa: E402

T0 = datetime(2026, 11, 30, 12, 0, 0)
BATCH = 5000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zones", type=int, default=10000)
    parser.add_argument("--per-zone", type=int, default=20)
    parser.add_argument("--database", default="mysql,postgresql")
    parser.add_argument("--dump", action="store_true", help="also time the backup dump")
    parser.add_argument("--quick", action="store_true", help="100 zones of 20 recordsets")
    args = parser.parse_args()
    if args.quick:
        args.zones = 100
    for kind in args.database.split(","):
        run(kind.strip(), args.zones, args.per_zone, args.dump)


def run(kind: str, zones: int, per_zone: int, dump: bool) -> None:
    db = make_database(kind)
    try:
        started = time.monotonic()
        rows = fill(db.url, zones, per_zone)
        print(f"{kind}: filled a Designate-shaped database with {rows['zones']} zones, "
              f"{rows['recordsets']} recordsets, {rows['records']} records in "
              f"{time.monotonic() - started:.1f} s")
        if dump:
            path = os.path.join(tempfile.mkdtemp(prefix="okd-takeover-"), "dump.sql")
            started = time.monotonic()
            backup.take(db.url, path)
            print(f"{kind}: backup ({backup.command(db.url, path)[0][0]}) "
                  f"{os.path.getsize(path) / 1e6:.0f} MB in {time.monotonic() - started:.1f} s")
            os.unlink(path)
        started = time.monotonic()
        result = procedure.sync(db.url, no_backup=True, say=lambda _: None)
        total = time.monotonic() - started
        print(f"{kind}: takeover {total:.1f} s (copy transaction {result.seconds:.1f} s; "
              f"zones {result.rows['zones']}, recordsets {result.rows['recordsets']}, "
              f"records {result.rows['records']})")
    finally:
        db.drop()


def fill(url: str, zones: int, per_zone: int) -> dict[str, int]:
    engine = sa.create_engine(sync_url(url), poolclass=sa.pool.NullPool)
    dialect = "postgresql" if engine.dialect.name == "postgresql" else "mysql"
    meta = shape.metadata(dialect)
    meta.create_all(engine)
    t = meta.tables
    fmt = (lambda u: str(u)) if dialect == "postgresql" else (lambda u: u.hex)
    pool_id = uuid.uuid4()
    counts = {"zones": 0, "recordsets": 0, "records": 0}
    with engine.begin() as connection:
        connection.execute(t["alembic_version"].insert(), {"version_num": shape.HEAD})
        connection.execute(t["pools"].insert(), dict(
            id=fmt(pool_id), version=1, name="default", provisioner="UNMANAGED", created_at=T0))
        batch: dict[str, list[dict]] = {"zones": [], "recordsets": [], "records": []}
        for n in range(zones):
            _zone(n, per_zone, fmt, fmt(pool_id), batch)
            if len(batch["records"]) >= BATCH or n == zones - 1:
                for table in ("zones", "recordsets", "records"):
                    if batch[table]:
                        connection.execute(t[table].insert(), batch[table])
                        counts[table] += len(batch[table])
                        batch[table] = []
    engine.dispose()
    return counts


def _zone(n: int, per_zone: int, fmt, pool_id: str, batch: dict[str, list[dict]]) -> None:
    zone_id = uuid.uuid4()
    name = f"zone{n}.example.org."
    status, action, deleted = "ACTIVE", "NONE", "0"
    if n % 100 == 1:
        status, action = "PENDING", "UPDATE"
    elif n % 100 == 2:
        status, deleted = "DELETED", zone_id.hex
    serial = 1700000000 + n
    batch["zones"].append(dict(
        id=fmt(zone_id), version=1, tenant_id=f"project-{n % 100}", name=name,
        email="admin@example.org", ttl=3600, refresh=3500, retry=600, expire=86400, minimum=3600,
        serial=serial, deleted=deleted, status=status, action=action, pool_id=pool_id,
        reverse_name=name[::-1], type="PRIMARY", shard=n % 4096, delayed_notify=False,
        increment_serial=False, created_at=T0))
    sets = [(name, "SOA", f"ns1.example.net. admin.example.org. {serial} 3500 600 86400 3600"),
            (name, "NS", "ns1.example.net.")]
    sets += [(f"host{i}.{name}", "A", f"10.{i // 256}.{i % 256}.{n % 250 + 1}")
             for i in range(per_zone - 2)]
    for rs_name, rtype, data in sets:
        rs_id, record_id = uuid.uuid4(), uuid.uuid4()
        batch["recordsets"].append(dict(
            id=fmt(rs_id), version=1, zone_shard=n % 4096, tenant_id=f"project-{n % 100}",
            zone_id=fmt(zone_id), name=rs_name, type=rtype, ttl=None,
            reverse_name=rs_name[::-1], created_at=T0))
        batch["records"].append(dict(
            id=fmt(record_id), version=1, data=data, zone_id=fmt(zone_id), managed=False,
            hash=record_id.hex, status="ACTIVE", tenant_id=f"project-{n % 100}",
            recordset_id=fmt(rs_id), action="NONE", serial=serial, zone_shard=n % 4096,
            created_at=T0))


if __name__ == "__main__":
    main()
