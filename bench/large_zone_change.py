#!/usr/bin/env python3
"""What one change costs in a large zone, on the embedded default (built-in nameserver).

Imports a zone of ``--records`` records (``import_big.zone_file``), waits until it is ACTIVE,
then creates ``--changes`` recordsets in it one after the other, each awaited ACTIVE, and prints
the serving process's CPU per change (user + system, from /proc) and the median time to ACTIVE;
meanwhile another project GETs its zones every 20 ms and, from a second client, POSTs a
recordset into a small zone of its own every 200 ms; the median and worst round trips of each
are printed: the stall a change to a large zone causes its neighbours.
``--server-src`` serves another source tree (e.g. an older commit's, from git archive), so the
two can be run back to back. Printed, never asserted.

    .venv/bin/python bench/large_zone_change.py [--records 10000] [--changes 15] [--server-src DIR]
        [--profile FILE]   # py-spy (on PATH) raw samples of the server during the changes
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from import_big import import_once, zone_file  # noqa: E402
from stats import cpu_seconds  # noqa: E402
from targets import BENCH_QUOTAS, ServerProcess  # noqa: E402

ZONE = "large.bench.example."
PROJECT = "bench"


async def neighbour(server: ServerProcess, stop: asyncio.Event) -> tuple[list[float], list[float]]:
    """Round trips of another project until ``stop``, from two clients of its own: one GETs its
    zones every 20 ms, the other POSTs a recordset into a small zone every 200 ms. What a
    tenant with nothing to do with the large zone sees of the server meanwhile."""
    async with httpx.AsyncClient(base_url=server.api_url, headers={"X-Auth-Project-Id": "neighbour"},
                                 timeout=120) as client:
        made = await client.post("/v2/zones", json={"name": "neighbour.bench.example.",
                                                    "email": "n@neighbour.bench.example"})
        assert made.status_code == 202, made.text
        zone_id = made.json()["id"]

        async def every(pause: float, call) -> list[float]:  # noqa: ANN001
            took = []
            for index in itertools.count():
                if stop.is_set():
                    return took
                started = time.perf_counter()
                resp = await call(index)
                assert resp.status_code in (200, 202), resp.text
                took.append(time.perf_counter() - started)
                await asyncio.sleep(pause)
            return took

        def read(_index: int):  # noqa: ANN202
            return client.get("/v2/zones")

        def write(index: int):  # noqa: ANN202
            return client.post(f"/v2/zones/{zone_id}/recordsets", json={
                "name": f"n{index}.neighbour.bench.example.", "type": "A", "records": ["192.0.2.2"]})

        reads, writes = await asyncio.gather(every(0.02, read), every(0.2, write))
    return reads, writes


async def changes_beside_neighbour(
        server: ServerProcess, count: int) -> tuple[list[float], list[float], tuple[list[float], list[float]]]:
    stop = asyncio.Event()
    probe = asyncio.create_task(neighbour(server, stop))
    try:
        cpu, took = await changes(server, count)
    finally:
        stop.set()
    return cpu, took, await probe


async def changes(server: ServerProcess, count: int) -> tuple[list[float], list[float]]:
    """CPU seconds of the server and seconds to ACTIVE, per recordset create."""
    pid = server.pid
    assert pid is not None
    cpu, took = [], []
    async with httpx.AsyncClient(base_url=server.api_url, headers={"X-Auth-Project-Id": PROJECT},
                                 timeout=120) as client:
        zone = (await client.get("/v2/zones", params={"name": ZONE})).json()["zones"][0]
        for index in range(count):
            before, started = cpu_seconds([pid]), time.perf_counter()
            made = (await client.post(f"/v2/zones/{zone['id']}/recordsets", json={
                "name": f"change{index}.{ZONE}", "type": "A", "records": ["192.0.2.1"]})).json()
            path = f"/v2/zones/{zone['id']}/recordsets/{made['id']}"
            while (await client.get(path)).json()["status"] != "ACTIVE":
                await asyncio.sleep(0.01)
            took.append(time.perf_counter() - started)
            await asyncio.sleep(0.3)  # the push's epilogue (observations, the nameserver's file)
            cpu.append(cpu_seconds([pid]) - before)
    return cpu, took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--changes", type=int, default=15)
    ap.add_argument("--server-src", type=Path, default=None)
    ap.add_argument("--profile", type=Path, default=None,
                    help="py-spy raw profile of the server during the changes, into this file")
    args = ap.parse_args()
    env = {"PYTHONPATH": str(args.server_src)} if args.server_src else {}
    quotas = dict(BENCH_QUOTAS, quota_zone_records=args.records * 2,
                  quota_zone_recordsets=args.records * 2)
    body = len(zone_file(ZONE, args.records)) * 2
    server = ServerProcess(options={"DEFAULT": quotas,
                                    "oslo_middleware": {"max_request_body_size": body}},
                           project=PROJECT, wait_dns=True,
                           start_timeout=120, env=env)
    server.start()
    try:
        imported = asyncio.run(import_once(server.api_url, PROJECT, server.ns_port, ZONE,
                                           zone_file(ZONE, args.records), timeout=600))
        if "error" in imported:
            print(f"import failed: {imported['error']}")
            return 1
        spy = None if args.profile is None else subprocess.Popen(
            ["py-spy", "record", "--pid", str(server.pid), "--rate", "250", "--format", "raw",
             "--output", str(args.profile), "--nonblocking"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu, took, seen = asyncio.run(changes_beside_neighbour(server, args.changes))
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(30)
    finally:
        server.stop()
    print(f"{args.records} records, {args.changes} recordset creates one after the other"
          f"{', server ' + str(args.server_src) if args.server_src else ''}: server CPU per "
          f"change median {1000 * statistics.median(cpu):.0f} ms (min {1000 * min(cpu):.0f}); "
          f"POST -> ACTIVE median {1000 * statistics.median(took):.0f} ms")
    for label, times in zip(("GET /v2/zones", "recordset POST"), seen):
        print(f"  another project's {label} meanwhile ({len(times)}): median "
              f"{1000 * statistics.median(times):.1f} ms, worst {1000 * max(times):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
