#!/usr/bin/env python3
"""CPU of a recordset POST in a large zone, by the quota its counts are checked against.

A new recordset is checked against the zone's ``zone_recordsets`` and ``zone_records``
quotas, so its POST counts the zone's recordsets and records. Counted whole, that read grows
with the zone (33 ms of CPU per POST on SQLite at 100,000 records, 2026-12-05); counted only
one row past the limit (``storage.recordsets._capped_count``), an unlimited quota reads no row
and a limit of 500 at most 501. In process (ASGI, no HTTP server, no worker), on a fresh SQLite
file or ``--database postgresql``; the zone's ``--records`` A recordsets are written straight
into the tables (set-up, untimed), then ``--posts`` recordsets are POSTed under each quota:

* ``unlimited``: ``zone_records = zone_recordsets = -1`` (the project's stored quota);
* ``500``: Designate's default;
* ``above the zone``: more than the zone will hold, so every row is counted, as before the cap.

With ``--project-zones N`` the same for a zone create instead (quota ``zones``): the project
is given N zones, copied in SQL from one made by the API, then zones are POSTed with its zone
quota unlimited and above N.

Printed (this process's CPU, which on PostgreSQL leaves out the server's own, and the median
time to the answer), never asserted. The whole count ("above") is what every quota cost before
the cap.

    PYTHONPATH=src .venv/bin/python bench/quota_counts.py [--records 100000] [--posts 200]
        [--project-zones N] [--database sqlite|postgresql|mysql]   # --project-zones: not mysql
"""

from __future__ import annotations

import argparse
import itertools
import logging
import os
import statistics
import sys
import time

import httpx
from sqlalchemy import text

from api_inprocess import asgi_post
from inprocess import DATABASES, HEADERS, run_on, wired
from openkeel_designate.storage import quotas as quota_store
from openkeel_designate.storage import recordsets as rs_store
from openkeel_designate.storage import zones as zone_store

PROJECT = HEADERS["X-Auth-Project-ID"]
CHUNK = 5_000  # rows per set-up transaction


async def fill(services, zone_id: str, records: int) -> None:
    """``records`` A recordsets of one record each, written as the API would leave them."""
    async def chunk(start: int, stop: int) -> None:
        async def work(session) -> None:  # noqa: ANN001
            zone = await zone_store.get(session, zone_id, project_id=None, all_tenants=True)
            made = [rs_store.recordset_row(zone, f"f{i}.{zone.name}", "A") for i in range(start, stop)]
            rows = [rs_store.record_row(zone, rs["id"], rs["tenant_id"], "192.0.2.1") for rs in made]
            await rs_store.insert_rows(session, made, rows)
        await services.db.transaction(work)
    for start in range(0, records, CHUNK):
        await chunk(start, min(records, start + CHUNK))


async def set_limits(services, project: str, limit: int,
                     resources: tuple[str, ...] = ("zone_records", "zone_recordsets")) -> None:
    async def work(session) -> None:  # noqa: ANN001
        for resource in resources:
            await quota_store.set_limit(session, project, resource, limit)
    await services.db.transaction(work)


async def copy_zones(services, url: str, template_id: str, count: int) -> None:
    """``count`` copies of the zone ``template_id`` (same project, names c<n>.example.), in SQL."""
    sqlite = url.startswith("sqlite")

    async def work(session) -> None:  # noqa: ANN001
        connection = await session.connection()
        columns = list((await connection.execute(text("SELECT * FROM zones WHERE 1 = 0"))).keys())
        # the number goes in as text: SQLite's || and PostgreSQL's concatenate it alike
        made = {"id": "'c' || n || substr(id, 9)", "name": "'c' || n || '.example.'",
                "name_key": "'c' || n || '.example.'",
                "reverse_key": "'.elpmaxe.' || reverse('c' || n)" if not sqlite
                else "'.elpmaxe.' || n || 'c'"}
        series = ("WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < :n) "
                  if sqlite else "")
        source = "s" if sqlite else "generate_series(1, :n) AS s(n)"
        await connection.execute(text(
            f"{series}INSERT INTO zones ({', '.join(columns)}) "
            f"SELECT {', '.join(made.get(c, c) for c in columns)} FROM zones, {source} "
            "WHERE zones.id = :t"), {"n": count, "t": template_id})
    await services.db.transaction(work)


async def measure_zones(url: str, state_dir: str, zones: int, posts: int) -> None:
    async with wired(url, state_dir) as (services, app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://api.bench", headers=HEADERS) as client:
            made = await client.post("/v2/zones", json={"name": "template.bench.example.",
                                                        "email": "hostmaster@bench.example"})
        started = time.perf_counter()
        await copy_zones(services, url, made.json()["id"], zones)
        print(f"project of {zones} zones written in {time.perf_counter() - started:.1f} s", flush=True)
        serial = itertools.count()
        for label, limit in (("unlimited", -1), ("above the project", 2 * zones + 2 * posts)):
            await set_limits(services, PROJECT, limit, ("zones",))
            spent, walls = 0.0, []
            for _ in range(posts):
                body = {"name": f"p{next(serial)}.new.bench.example.",
                        "email": "hostmaster@bench.example"}
                started, wall = time.process_time(), time.perf_counter()
                await asgi_post(app, "/v2/zones", body)
                spent += time.process_time() - started
                walls.append(time.perf_counter() - wall)
            print(f"zones quota {label:17s} {1000 * spent / posts:7.2f} ms CPU per zone POST, "
                  f"{1000 * statistics.median(walls):7.2f} ms answered (median)", flush=True)


async def measure(url: str, state_dir: str, records: int, posts: int) -> None:
    async with wired(url, state_dir, quota_zones=-1) as (services, app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://api.bench", headers=HEADERS) as client:
            created = await client.post("/v2/zones", json={"name": "big.bench.example.",
                                                           "email": "hostmaster@bench.example"})
            zone_id = created.json()["id"]
        started = time.perf_counter()
        await fill(services, zone_id, records)
        print(f"zone of {records} records written in {time.perf_counter() - started:.1f} s", flush=True)
        serial = itertools.count()
        for label, limit in (("unlimited", -1), ("500", 500), ("above the zone", 2 * records + 2 * posts * 4)):
            await set_limits(services, PROJECT, limit)
            spent = 0.0
            answered = []
            walls = []
            for _ in range(posts):
                n = next(serial)
                started, wall = time.process_time(), time.perf_counter()
                status = await asgi_call_status(app, zone_id, n)
                spent += time.process_time() - started
                walls.append(time.perf_counter() - wall)
                answered.append(status)
            codes = {code: answered.count(code) for code in sorted(set(answered))}
            print(f"quota {label:15s} {1000 * spent / posts:7.2f} ms CPU per POST, "
                  f"{1000 * statistics.median(walls):7.2f} ms answered (median)  (answers {codes})",
                  flush=True)


async def asgi_call_status(app, zone_id: str, n: int) -> int:  # noqa: ANN001
    """One recordset POST; 202, or 413 when the quota of 500 refuses it."""
    try:
        return await asgi_post(app, f"/v2/zones/{zone_id}/recordsets",
                               {"name": f"p{n}.big.bench.example.", "type": "A",
                                "records": ["192.0.2.2"]})
    except SystemExit as refused:  # asgi_post exits on anything but 202
        return int(str(refused).rsplit(" ", 1)[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--posts", type=int, default=200)
    ap.add_argument("--project-zones", type=int, default=0,
                    help="measure zone creates in a project of this many zones instead")
    ap.add_argument("--database", default="sqlite", choices=DATABASES)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"))
    print(f"load average {os.getloadavg()[0]:.1f}, {args.database}")
    if args.project_zones and args.database == "mysql":
        ap.error("--project-zones copies zones with SQL for SQLite and PostgreSQL only; MariaDB "
                 "counts whole either way")
    if args.project_zones:
        run_on(args.database, lambda url, state_dir: measure_zones(
            url, state_dir, args.project_zones, args.posts))
    else:
        run_on(args.database, lambda url, state_dir: measure(url, state_dir, args.records, args.posts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
