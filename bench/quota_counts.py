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

Printed (this process's CPU, which on PostgreSQL leaves out the server's own, and the median
time to the answer), never asserted. The third row is the whole count, as every row was
before the cap.

    PYTHONPATH=src .venv/bin/python bench/quota_counts.py [--records 100000] [--posts 200]
        [--database sqlite|postgresql]
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


async def set_limits(services, project: str, limit: int) -> None:
    async def work(session) -> None:  # noqa: ANN001
        for resource in ("zone_records", "zone_recordsets"):
            await quota_store.set_limit(session, project, resource, limit)
    await services.db.transaction(work)


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
    ap.add_argument("--database", default="sqlite", choices=DATABASES)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"))
    print(f"load average {os.getloadavg()[0]:.1f}, {args.database}")
    run_on(args.database, lambda url, state_dir: measure(url, state_dir, args.records, args.posts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
