#!/usr/bin/env python3
"""Do zone imports and exports stall the other tenants? Worst probe stall while they run.

Part 1 (``server``): starts our server (SQLite, built-in nameserver) and, while each workload
runs, three probe threads (tests/support/stall_probe.py) keep asking mdns (SOA), the built-in
nameserver (A) and the API (``GET /v2/zones``) every 20 ms. Printed per workload: the task's
result, how long it took (until the zone is ACTIVE), and the worst latency of each probe (the longest stall a tenant saw).
Workloads:

* ``generate``: ``$GENERATE 1-N`` (``--generate``, default 100,000) by a project whose recordset
  and record quotas are 500: must be refused, ideally without expanding the range;
* ``large``: a legal import of ``--records`` A records (default 9,000) with quotas of 10,000;
* ``export``: ``GET .../export`` of that large zone, ``--exports`` times.

Part 2 (``loop``): in this process, an asyncio loop ticking every 5 ms while the large zone file
is parsed ``inline`` (on the loop), in a ``thread`` (``asyncio.to_thread``) and in the ``process``
pool of ``offload.py``; printed: parse time and the loop's worst lag (how late a 5 ms
tick fired). This is the measurement behind the choice of a process pool.

    .venv/bin/python bench/import_isolation.py [--parts server,loop] [--generate N]
                                               [--records N] [--exports N]

Figures are printed, never asserted. Everything runs on 127.0.0.1; the server is stopped at the
end (also on Ctrl-C / SIGTERM).
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from support.server import ServerProcess  # noqa: E402
from support.stall_probe import StallProbes  # noqa: E402

QUOTAS = {"quota_zones": 1000, "quota_zone_recordsets": 10000, "quota_zone_records": 10000,
          "quota_api_export_size": 100000}
SMALL_QUOTA = {"zone_recordsets": 500, "zone_records": 500}
PROBE_ZONE = "probe.isolation.example."
HEAD = ("$ORIGIN {zone}\n$TTL 300\n"
        "@ IN SOA ns1.example.org. hostmaster.example.org. 1 3600 600 86400 300\n"
        "@ IN NS ns1.example.org.\n")


def generate_file(zone: str, count: int) -> str:
    return HEAD.format(zone=zone) + f"$GENERATE 1-{count} host$ IN A 192.0.2.1\n"


def large_file(zone: str, count: int) -> str:
    lines = [f"h{i} IN A 10.{i // 65536}.{i // 256 % 256}.{i % 256}" for i in range(count)]
    return HEAD.format(zone=zone) + "\n".join(lines) + "\n"


def wait_task(client: httpx.Client, url: str, timeout: float = 300.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get(url).json()
        if task["status"] != "PENDING":
            return task
        time.sleep(0.05)
    raise RuntimeError(f"{url} still PENDING after {timeout} s")


def probe_zone(client: httpx.Client) -> None:
    zone = client.post("/v2/zones", json={"name": PROBE_ZONE, "email": "h@example.org"}).json()
    client.post(f"/v2/zones/{zone['id']}/recordsets",
                json={"name": f"www.{PROBE_ZONE}", "type": "A", "records": ["192.0.2.7"]})
    wait_task(client, f"/v2/zones/{zone['id']}")  # status leaves PENDING once served
    time.sleep(0.5)


def run_import(server: ServerProcess, text: str, project: str) -> tuple[dict, float, StallProbes]:
    headers = {**server.headers(project), "Content-Type": "text/dns"}
    with httpx.Client(base_url=server.api_url, headers=headers, timeout=300) as client, \
            StallProbes(server, PROBE_ZONE, f"www.{PROBE_ZONE}") as probes:
        time.sleep(0.2)
        started = time.monotonic()
        response = client.post("/v2/zones/tasks/imports", content=text.encode())
        task = wait_task(client, response.json()["links"]["self"])
        if task["status"] == "COMPLETE":  # and until the nameserver serves it (AXFR included)
            wait_task(client, f"/v2/zones/{task['zone_id']}")
        elapsed = time.monotonic() - started
        time.sleep(0.2)
    return task, elapsed, probes


def report(label: str, task: dict | None, elapsed: float, probes: StallProbes) -> None:
    result = f"{task['status']} {task['message']!r}" if task else ""
    print(f"\n{label}: {elapsed:.2f} s {result}")
    for line in probes.lines():
        print("   ", line)
    print(f"    worst stall {probes.worst() * 1000:.1f} ms")


def server_part(args: argparse.Namespace) -> None:
    options = {"DEFAULT": dict(QUOTAS), "oslo_middleware": {"max_request_body_size": 4 << 20}}
    with ServerProcess(options=options, project="iso-bench", wait_dns=True,
                       start_timeout=120) as server:
        with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=60) as admin:
            probe_zone(admin)
            admin.patch("/v2/quotas/iso-small", json=SMALL_QUOTA,
                        headers={"X-Auth-All-Projects": "true"})
        print(f"server part: probes every 20 ms against mdns {server.mdns_port}, nameserver "
              f"{server.ns_port}, API {server.api_port}")
        task, elapsed, probes = run_import(
            server, generate_file("gen.isolation.example.", args.generate), "iso-small")
        report(f"$GENERATE 1-{args.generate} (quota 500)", task, elapsed, probes)
        task, elapsed, probes = run_import(
            server, large_file("large.isolation.example.", args.records), "iso-bench")
        report(f"legal import of {args.records} records", task, elapsed, probes)
        if task["status"] == "COMPLETE" and args.exports:
            export_part(server, task["zone_id"], args.exports)


def export_part(server: ServerProcess, zone_id: str, count: int) -> None:
    with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=300) as client:
        export = client.post(f"/v2/zones/{zone_id}/tasks/export").json()
        url = wait_task(client, f"/v2/zones/tasks/exports/{export['id']}")["links"]["self"]
        with StallProbes(server, PROBE_ZONE, f"www.{PROBE_ZONE}") as probes:
            time.sleep(0.2)
            started = time.monotonic()
            size = 0
            for _ in range(count):
                size = len(client.get(url + "/export", headers={"Accept": "text/dns"}).content)
            elapsed = time.monotonic() - started
            time.sleep(0.2)
    report(f"{count} exports of {size} bytes", None, elapsed, probes)


async def _measure_lag(work, interval: float = 0.005) -> tuple[float, float]:
    """(worst tick lateness, seconds the work took) while ``work()`` runs."""
    worst = 0.0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal worst
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(interval)
            worst = max(worst, time.perf_counter() - before - interval)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    await work()
    elapsed = time.perf_counter() - started
    done.set()
    await tick
    return worst, elapsed


def loop_part(args: argparse.Namespace) -> None:
    from openkeel_designate import offload
    from openkeel_designate.central import zonefile_import

    text = large_file("loop.isolation.example.", args.records)
    limits = zonefile_import.Limits(zone_records=args.records + 10, zone_recordsets=args.records + 10)
    rules = zonefile_import.Rules(min_ttl=0, supported_types=("A", "NS", "SOA"), limits=limits)
    parse = (zonefile_import.parse, text, rules)

    async def inline() -> None:
        parse[0](*parse[1:])

    async def thread() -> None:
        await asyncio.to_thread(*parse)

    async def process() -> None:
        await offload.run(*parse)

    async def main() -> None:
        await offload.run(len, "warm the pool up")
        print(f"\nloop part: parse {args.records} records while a 5 ms ticker runs")
        for name, work in (("inline", inline), ("thread", thread), ("process", process)):
            lag, elapsed = await _measure_lag(work)
            print(f"    {name:<8} parse {elapsed * 1000:8.1f} ms   worst loop lag "
                  f"{lag * 1000:8.1f} ms")

    asyncio.run(main())
    offload.shutdown()


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="server,loop")
    ap.add_argument("--generate", type=int, default=100_000)
    ap.add_argument("--records", type=int, default=9_000)
    ap.add_argument("--exports", type=int, default=5)
    return ap.parse_args()


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks
    args = parse_args()
    parts = args.parts.split(",")
    if "server" in parts:
        server_part(args)
    if "loop" in parts:
        loop_part(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
