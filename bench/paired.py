#!/usr/bin/env python3
"""Two source trees side by side: propagation latency measured in the same minutes.

The shared 2-core machine changes speed by 1.5x within minutes (bench/README.md, "Statements on
the loop's thread"), so a run of one tree after a run of the other compares the minutes as much
as the trees. Here both trees serve at once, each an ``openkeel-designate serve`` with its
built-in nameserver (SQLite), and one client alternates between them sample by sample: a zone
POST, polled until ACTIVE; then a recordset POST into it, polled until ACTIVE (every 2 ms, or
``--poll-ms``: ``propagation.py`` polls every 10 ms, and each GET is CPU of the loop it times). Only
one tree is busy at a time; which goes first alternates. Figures (p50 per tree, and the
per-sample difference) are printed, never asserted.

    git archive <commit> src | tar -x -C /tmp/base
    .venv/bin/python bench/paired.py /tmp/base/src src [--samples 40] [--rounds 2] [--poll-ms 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from targets import BENCH_QUOTAS, ServerProcess  # noqa: E402

FIGURES = ("zone POST answered", "zone POST -> ACTIVE", "recordset POST -> ACTIVE")


def _until_active(client: httpx.Client, path: str, headers: dict[str, str], poll: float) -> None:
    deadline = time.monotonic() + 30
    while client.get(path, headers=headers).json()["status"] != "ACTIVE":
        if time.monotonic() > deadline:
            raise SystemExit(f"{path} not ACTIVE after 30 s")
        time.sleep(poll)


def sample(client: httpx.Client, headers: dict[str, str], name: str,
           poll: float) -> tuple[float, ...]:
    """Seconds: the zone POST's answer, the zone ACTIVE, a recordset in it ACTIVE."""
    started = time.monotonic()
    made = client.post("/v2/zones", headers=headers, json={"name": name, "email": f"h@{name[:-1]}"})
    answered = time.monotonic()
    if made.status_code != 202:
        raise SystemExit(f"zone POST answered {made.status_code}: {made.text}")
    zone_id = made.json()["id"]
    _until_active(client, f"/v2/zones/{zone_id}", headers, poll)
    zone_active = time.monotonic()
    time.sleep(0.03)
    rs_started = time.monotonic()
    added = client.post(f"/v2/zones/{zone_id}/recordsets", headers=headers,
                        json={"name": f"www.{name}", "type": "A", "records": ["192.0.2.1"]})
    if added.status_code != 202:
        raise SystemExit(f"recordset POST answered {added.status_code}: {added.text}")
    _until_active(client, f"/v2/zones/{zone_id}/recordsets/{added.json()['id']}", headers, poll)
    return answered - started, zone_active - started, time.monotonic() - rs_started


def run_round(trees: list[Path], samples: int, poll: float,
              warmup: int = 3) -> list[dict[str, list[float]]]:
    options = {"DEFAULT": dict(BENCH_QUOTAS)}
    servers = [ServerProcess(project="paired", wait_dns=True, start_timeout=120, options=options,
                             env={"PYTHONPATH": str(tree.resolve())}) for tree in trees]
    figures: list[dict[str, list[float]]] = [{f: [] for f in FIGURES} for _ in trees]
    try:
        for server in servers:
            server.start()
        clients = [httpx.Client(base_url=s.api_url) for s in servers]
        stamp = int(time.time())
        for i in range(warmup + samples):
            order = range(len(trees)) if i % 2 == 0 else reversed(range(len(trees)))
            for index in order:
                time.sleep(0.03)
                taken = sample(clients[index], servers[index].headers("paired"),
                               f"p{i}-{stamp}.paired.example.", poll)
                if i >= warmup:
                    for figure, seconds in zip(FIGURES, taken):
                        figures[index][figure].append(seconds)
    finally:
        for server in servers:
            server.stop()
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", type=Path, nargs=2, help="two source trees (the src directories)")
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--poll-ms", type=float, default=2.0, help="the client's polls until ACTIVE")
    args = ap.parse_args()
    for number in range(1, args.rounds + 1):
        figures = run_round(args.trees, args.samples, args.poll_ms / 1000)
        print(f"round {number}:")
        for figure in FIGURES:
            a, b = (figures[i][figure] for i in range(2))
            diff = statistics.median(y - x for x, y in zip(a, b))
            print(f"  {figure:26s} p50 {1000 * statistics.median(a):6.1f} ms | "
                  f"{1000 * statistics.median(b):6.1f} ms  (second - first, per sample: "
                  f"{1000 * diff:+.1f} ms)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
