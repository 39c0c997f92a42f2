#!/usr/bin/env python3
"""Statements per write (issue 13): SQL statements of one zone create, one recordset POST and
the worker's claim + complete of the change, as the database received them
(``inprocess.StatementCount``: counted by the driver, BEGIN and COMMIT included; it counted
SQLAlchemy's ``before_cursor_execute`` before, which showed 0 once the writes ran on the
drivers themselves).

In-process (ASGI, no HTTP server, no nameserver: the push itself is not run, only the database
side of the worker), on a fresh SQLite file or ``--database postgresql|mysql``. Prints counts and
in-process CPU per operation; ``--show`` prints the statements of the last operation of each kind.

    PYTHONPATH=src .venv/bin/python bench/write_statements.py [--database sqlite] [--n 50] [--show]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from inprocess import StatementCount  # noqa: E402
from openkeel_designate import config  # noqa: E402
from openkeel_designate.api.app import create_app  # noqa: E402
from openkeel_designate.central import pools  # noqa: E402
from openkeel_designate.central.policy import Policy  # noqa: E402
from openkeel_designate.central.services import Services  # noqa: E402
from openkeel_designate.storage import migrate, workqueue  # noqa: E402
from openkeel_designate.storage.database import Database  # noqa: E402

HEADERS = {"X-Auth-Project-ID": "bench", "X-Roles": "member,reader"}


def kinds(statements: list[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in Counter(s.split()[0] for s in statements).items())


async def run(url: str, n: int, show: bool) -> None:
    counted = StatementCount.install(url)  # before the database is opened
    migrate.upgrade(url)
    conf = config.load([])
    conf.set_override("state_path", tempfile.mkdtemp())
    conf.set_override("quota_zones", 100000)
    conf.set_override("quota_zone_recordsets", 100000)
    conf.set_override("quota_zone_records", 100000)
    db = Database(url)
    svc = Services(conf=conf, db=db, policy=Policy(conf))
    await pools.ensure_default_pool(svc)
    figures: dict[str, list] = {"zone create": [], "recordset POST": [], "claim (1 zone)": [],
                                "complete": []}
    last: dict[str, list[str]] = {}

    async def worker_round() -> None:
        counted.take()
        claimed = await workqueue.claim(db, "bench", 30, 1)
        figures["claim (1 zone)"].append(len(counted.recent))
        last["claim (1 zone)"] = counted.take()
        for c in claimed:
            await workqueue.complete(db, c, "bench", c.serial)
        figures["complete"].append(len(counted.recent))
        last["complete"] = counted.take()

    transport = httpx.ASGITransport(app=create_app(svc))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        cpu = {"zone create": 0.0, "recordset POST": 0.0}
        zone_id = None
        for i in range(n):
            counted.take()
            t = time.process_time()
            r = await http.post("/v2/zones", headers=HEADERS,
                                json={"name": f"z{i}.example.org.", "email": "a@example.org"})
            cpu["zone create"] += time.process_time() - t
            assert r.status_code == 202, r.text
            figures["zone create"].append(len(counted.recent))
            last["zone create"] = counted.take()
            zone_id = zone_id or r.json()["id"]
            await worker_round()
        for i in range(n):
            counted.take()
            t = time.process_time()
            r = await http.post(f"/v2/zones/{zone_id}/recordsets", headers=HEADERS,
                                json={"name": f"r{i}.z0.example.org.", "type": "A",
                                      "records": [f"192.0.2.{i % 250 + 1}"]})
            cpu["recordset POST"] += time.process_time() - t
            assert r.status_code == 202, r.text
            figures["recordset POST"].append(len(counted.recent))
            last["recordset POST"] = counted.take()
            await worker_round()
    for name, values in figures.items():
        extra = f", {cpu[name] / n * 1000:.1f} ms CPU each" if name in cpu else ""
        print(f"{name:16s} statements: min {min(values)} max {max(values)} "
              f"({kinds(last[name])}){extra}")
        if show:
            for s in last[name]:
                print("    " + s[:160])
    await db.dispose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--database", default="sqlite", choices=("sqlite", "postgresql", "mysql"))
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args()
    if args.database == "sqlite":
        url = f"sqlite:///{tempfile.mkdtemp()}/bench.db"
        asyncio.run(run(url, args.n, args.show))
        return
    from support.databases import empty_database_url
    with empty_database_url(args.database, prefix="okd-stmts-") as url:
        asyncio.run(run(url, args.n, args.show))


if __name__ == "__main__":
    main()
