#!/usr/bin/env python3
"""CPU of the worker's database steps per change, in process: no network, no load generator.

A change on its way to ACTIVE costs the API request that makes it, then the worker's claim
(new serial, SOA, IXFR history), its completion, and the write of what the push saw of each
server (``worker/observations.py``). On the embedded default they share one process with the
API, so on a 2-core machine their CPU is taken from the API's. This measures each step alone
(``time.process_time``: every thread of this process, the SQLite driver's included), so a change
can be judged on a busy machine. The pushes themselves (NOTIFY, transfers, SOA polls) are left
out: ``bench/propagation.py`` measures them end to end.

    .venv/bin/python bench/worker_inprocess.py [--changes 300] [--database sqlite]

Figures, per change, after 30 warm-up changes: a recordset create through the API (ASGI, no
HTTP), ``workqueue.claim``, ``workqueue.complete_many`` and ``observations.save``, for
recordset creates into one zone and for new zones, and the statements each step sent to the
database (``inprocess.StatementCount``: counted by the driver, BEGIN and COMMIT included).
Printed, never asserted.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Awaitable, Callable

import httpx

from inprocess import DATABASES, HEADERS, Clock, StatementCount, run_on, serve_pending, wired
from openkeel_designate.dnswire.client import SoaResult, SoaStatus
from openkeel_designate.storage import workqueue
from openkeel_designate.storage.database import Database
from openkeel_designate.worker import observations

OWNER = "bench-worker"
STEPS = ("API POST", "claim", "complete", "observations")


async def one_change(db: Database, post: Callable[[], Awaitable[httpx.Response]],
                     clock: Clock) -> None:
    """One change the way the worker takes it: made, claimed, served, completed, observed."""
    response = await clock.time("API POST", post)
    assert response.status_code == 202, response.text
    claimed = await clock.time("claim", lambda: workqueue.claim(db, OWNER, 30, 10))
    assert len(claimed) == 1, claimed
    zone = claimed[0]
    await clock.time("complete", lambda: workqueue.complete_many(db, [(zone, zone.serial)], OWNER))
    seen = observations.PushObservations(zone)
    seen.soa("127.0.0.1", 5300, SoaResult(SoaStatus.SUCCESS, zone.serial))
    await clock.time("observations", lambda: observations.save(db, [seen]))


async def series(db: Database, label: str, changes: int,
                 post: Callable[[int], Callable[[], Awaitable[httpx.Response]]],
                 statements: StatementCount) -> None:
    for index in range(30):
        await one_change(db, post(-1 - index), Clock(STEPS))
    clock = Clock(STEPS, statements)
    for index in range(changes):
        await one_change(db, post(index), clock)
    steps = "  ".join(f"{step} {spent / changes:6.2f}" for step, spent in clock.spent.items())
    total = sum(clock.spent.values()) / changes
    print(f"{label:18s} ms CPU per change: {steps}  (all {total:6.2f})", flush=True)
    ran = "  ".join(f"{step} {count / changes:4.1f}" for step, count in clock.ran.items())
    print(f"{'':18s} statements per change: {ran}", flush=True)


async def measure(url: str, state_dir: str, changes: int) -> None:
    statements = StatementCount.install(url)  # before the database is opened
    async with wired(url, state_dir, quota_zones=changes + 100,
                     quota_zone_recordsets=changes + 100) as (services, app):
        db = services.db
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://api.bench", headers=HEADERS) as client:
            def new_zone(index: int) -> Callable[[], Awaitable[httpx.Response]]:
                return lambda: client.post("/v2/zones", json={
                    "name": f"z{index + 100}.bench.example.", "email": "hostmaster@bench.example"})

            made = await new_zone(-100)()
            zone_id = made.json()["id"]
            await serve_pending(db, OWNER)  # the zone the records go in

            def new_recordset(index: int) -> Callable[[], Awaitable[httpx.Response]]:
                return lambda: client.post(f"/v2/zones/{zone_id}/recordsets", json={
                    "name": f"r{index + 100}.z0.bench.example.", "type": "A",
                    "records": ["192.0.2.1"]})

            await series(db, "recordset create", changes, new_recordset, statements)
            await series(db, "zone create", changes, new_zone, statements)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--changes", type=int, default=300)
    ap.add_argument("--database", default="sqlite", choices=DATABASES)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=open(os.devnull, "w"))
    print(f"load average {os.getloadavg()[0]:.1f}, {args.database}, {args.changes} changes each")
    run_on(args.database, lambda url, state_dir: measure(url, state_dir, args.changes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
