#!/usr/bin/env python3
"""A burst of zone creates: how long until all are ACTIVE, and how many NOTIFYs the pool gets.

Starts our server (embedded default: SQLite, built-in nameserver) whose default pool also
NOTIFYs a counter socket of this script (``also_notifies``), then ``--clients`` clients create
``--zones`` zones in all, as fast as the API answers, and the script polls the zone list until
every zone is ACTIVE (or ``--timeout``). Printed: the POST phase (time, rate, p50/p99), the
time until all are ACTIVE, and the NOTIFYs received by the counter (per zone, and the busiest
second): a pool that gets one NOTIFY per change, spread over the burst, is not stormed.
Figures are printed, never asserted.

    .venv/bin/python bench/burst.py [--zones 1000] [--clients 20] [--server-src DIR]
        [--database sqlite|postgresql|mysql] [--api-workers 2] [--profile FILE.svg] [--out FILE]

``--profile`` records the serving process with py-spy (beside the venv's python) during the
burst: POSTs and the wait until all are ACTIVE.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import dns.message
import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from stats import cpu_seconds, summarize  # noqa: E402
from targets import BENCH_QUOTAS, ServerProcess  # noqa: E402
from support.server import builtin_pool  # noqa: E402


class NotifyCounter:
    """A UDP socket that answers and counts every NOTIFY, by zone and by second."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.per_zone: collections.Counter[str] = collections.Counter()
        self.per_second: collections.Counter[int] = collections.Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                wire, peer = self.sock.recvfrom(65535)
            except OSError:
                continue
            try:
                message = dns.message.from_wire(wire)
            except Exception:  # noqa: BLE001 - not a NOTIFY: not counted
                continue
            self.per_zone[message.question[0].name.to_text()] += 1
            self.per_second[int(time.monotonic())] += 1
            self.sock.sendto(dns.message.make_response(message).to_wire(), peer)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def pools_with_counter(counter: NotifyCounter):  # noqa: ANN201
    def pools(server: ServerProcess) -> str:
        return builtin_pool(server) + f"""  also_notifies:
    - host: 127.0.0.1
      port: {counter.port}
"""
    return pools


async def burst(api_url: str, zones: int, clients: int, timeout: float,
                cpu: Callable[[], float] = lambda: 0.0) -> dict:
    headers = {"X-Auth-Project-ID": "burst", "Content-Type": "application/json"}
    tag = uuid.uuid4().hex[:6]
    names = [f"b{i}-{tag}.burst.test." for i in range(zones)]
    latencies: list[float] = []
    failures: list[str] = []
    async with httpx.AsyncClient(base_url=api_url, headers=headers, timeout=60,
                                 limits=httpx.Limits(max_connections=clients)) as http:
        queue = list(reversed(names))

        async def client() -> None:
            while queue:
                name = queue.pop()
                t0 = time.perf_counter()
                resp = await http.post("/v2/zones", json={"name": name, "email": "b@burst.test"})
                latencies.append(time.perf_counter() - t0)
                if resp.status_code != 202:
                    failures.append(f"{resp.status_code} {resp.text[:120]}")
        t0, cpu0 = time.perf_counter(), cpu()
        await asyncio.gather(*(client() for _ in range(clients)))
        posted, cpu_posted = time.perf_counter() - t0, cpu()
        active_at, cpu_active = None, 0.0
        while time.perf_counter() - t0 < timeout:
            listing = (await http.get("/v2/zones", params={"limit": 1, "status": "ACTIVE"})).json()
            if listing["metadata"]["total_count"] >= zones - len(failures):
                active_at, cpu_active = time.perf_counter() - t0, cpu()
                break
            await asyncio.sleep(0.1)
    cpu_active = cpu_active if active_at else cpu()  # timed out: what it used so far
    return {"posted_s": posted, "all_active_s": active_at,
            "cpu_posts_s": cpu_posted - cpu0, "cpu_after_s": cpu_active - cpu_posted,
            "after_last_post_s": active_at and active_at - posted, "latency": summarize(latencies),
            "failures": failures[:5], "failed": len(failures)}


def _profile(pid: int, out: Path) -> subprocess.Popen:
    """py-spy on the server and its children (API workers) until SIGINT: a flame graph for
    ``.svg``, else collapsed stacks (a line per stack and its count, to grep and sum). Only
    samples holding the GIL: a thread waiting for it would show the stack it waits in."""
    spy = Path(sys.executable).parent / "py-spy"
    form = "flamegraph" if out.suffix == ".svg" else "raw"
    return subprocess.Popen([str(spy), "record", "--subprocesses", "--gil", "--rate", "200",
                             "--nonblocking", "--format", form, "-o", str(out), "--pid", str(pid)],
                            stdout=subprocess.DEVNULL)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zones", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--server-src", type=Path, default=None)
    ap.add_argument("--database", default="sqlite", choices=("sqlite", "postgresql", "mysql"))
    ap.add_argument("--api-workers", type=int, default=None, help="[service:api] workers")
    ap.add_argument("--profile", type=Path, default=None, help="py-spy flame graph to write")
    ap.add_argument("--option", action="append", default=[], metavar="SECTION.KEY=VALUE",
                    help="an extra server option, e.g. storage:sqlalchemy.max_pool_size=20")
    ap.add_argument("--out", type=Path, default=None, help="also write the figures here (JSON)")
    args = ap.parse_args()
    counter = NotifyCounter()
    env = {"PYTHONPATH": str(args.server_src.resolve())} if args.server_src else None
    options: dict = {"DEFAULT": dict(BENCH_QUOTAS)}
    if args.api_workers:
        options["service:api"] = {"workers": args.api_workers}
    for option in args.option:
        name, value = option.split("=", 1)
        section, key = name.rsplit(".", 1)
        options.setdefault(section, {})[key] = value
    try:
        with ServerProcess(options=options, project="burst", wait_dns=True, database=args.database,
                           start_timeout=120, pools=pools_with_counter(counter), env=env) as server:
            load = os.getloadavg()[0]
            spy = _profile(server.pid, args.profile) if args.profile else None
            result = asyncio.run(burst(server.api_url, args.zones, args.clients, args.timeout,
                                       lambda: cpu_seconds([server.pid])))
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                spy.wait(60)
            time.sleep(2)  # late re-NOTIFYs still count
    finally:
        counter.close()
    lat = result["latency"]
    per_zone = list(counter.per_zone.values())
    print(f"{args.zones} zones by {args.clients} clients (load {load:.1f} -> {os.getloadavg()[0]:.1f}): "
          f"POSTs done in {result['posted_s']:.1f} s ({args.zones / result['posted_s']:.0f}/s, "
          f"p50 {lat.get('p50', 0) * 1000:.0f} ms, p99 {lat.get('p99', 0) * 1000:.0f} ms, "
          f"{result['failed']} failed {result['failures']}); all ACTIVE after "
          f"{result['all_active_s'] and round(result['all_active_s'], 1)} s "
          f"({result['after_last_post_s'] and round(result['after_last_post_s'], 2)} s after the "
          f"last POST; {args.database}, api workers {args.api_workers or 1})")
    cpu = result["cpu_posts_s"] + result["cpu_after_s"]
    print(f"server CPU: {result['cpu_posts_s']:.1f} s during the POSTs + {result['cpu_after_s']:.1f} s "
          f"after = {cpu / args.zones * 1000:.1f} ms per zone")
    print(f"NOTIFYs to the also-notify counter: {sum(per_zone)} for {len(per_zone)} zones "
          f"(max {max(per_zone, default=0)} per zone), busiest second "
          f"{max(counter.per_second.values(), default=0)}")
    if args.out:
        args.out.write_text(json.dumps({
            "zones": args.zones, "clients": args.clients, "database": args.database,
            "api_workers": args.api_workers or 1, "load": [load, os.getloadavg()[0]],
            **{key: value for key, value in result.items() if key != "latency"},
            "latency_p50_s": lat.get("p50"), "latency_p99_s": lat.get("p99"),
            "cpu_per_zone_s": cpu / args.zones, "notifies": sum(per_zone),
            "notified_zones": len(per_zone), "notifies_max_per_zone": max(per_zone, default=0),
            "notifies_busiest_second": max(counter.per_second.values(), default=0)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
