#!/usr/bin/env python3
"""Where a change's way to ACTIVE goes, step by step, on the embedded default.

Starts ``openkeel-designate serve`` (SQLite, built-in nameserver) with ``timeline_hooks`` loaded,
which marks the start and end of each step in a file; then creates ``--samples`` zones one at a
time (each polled until ACTIVE, then a pause) and as many recordsets, and prints, per step, the
median time from the POST it follows ("completion end": ACTIVE committed). Printed, never
asserted.

    .venv/bin/python bench/push_timeline.py [--samples 30] [--poll-ms 2] [--server-src /tmp/base/src]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from targets import BENCH_QUOTAS, ServerProcess  # noqa: E402

HEADERS = {"X-Auth-Project-Id": "bench"}


async def until_active(client: httpx.AsyncClient, path: str, poll: float) -> None:
    while (await client.get(path)).json()["status"] != "ACTIVE":
        await asyncio.sleep(poll)


async def samples(api_url: str, count: int, poll: float) -> dict[str, list[tuple[float, float, float]]]:
    """(POST sent, 202 received, ACTIVE seen) per sample, wall clock, zones then recordsets."""
    taken: dict[str, list[tuple[float, float, float]]] = {"zone create": [], "recordset create": []}
    async with httpx.AsyncClient(base_url=api_url, headers=HEADERS, timeout=30) as client:
        for index in range(count + 3):  # the first three warm the server up
            sent = time.time()
            zone = (await client.post("/v2/zones", json={
                "name": f"t{index}.timeline.example.", "email": "a@timeline.example"})).json()
            answered = time.time()
            await until_active(client, f"/v2/zones/{zone['id']}", poll)
            if index >= 3:
                taken["zone create"].append((sent, answered, time.time()))
            await asyncio.sleep(0.2)
            sent = time.time()
            made = (await client.post(f"/v2/zones/{zone['id']}/recordsets", json={
                "name": f"www.t{index}.timeline.example.", "type": "A",
                "records": ["192.0.2.1"]})).json()
            answered = time.time()
            await until_active(client, f"/v2/zones/{zone['id']}/recordsets/{made['id']}", poll)
            if index >= 3:
                taken["recordset create"].append((sent, answered, time.time()))
            await asyncio.sleep(0.2)
    return taken


def report(kind: str, taken: list[tuple[float, float, float]], marks: list[tuple[float, str]],
           poll: float) -> None:
    """Median ms from the POST to each mark's first occurrence before ACTIVE was seen."""
    seen = f"ACTIVE seen (polled every {1000 * poll:g} ms)"
    offsets: dict[str, list[float]] = {"202 received": [], seen: []}
    for sent, answered, active in taken:
        offsets["202 received"].append(answered - sent)
        offsets[seen].append(active - sent)
        first: dict[str, float] = {}
        for when, label in marks:
            if sent <= when <= active and label not in first:
                first[label] = when - sent
        for label, offset in first.items():
            offsets.setdefault(label, []).append(offset)
    print(f"{kind}, {len(taken)} samples: median ms after the POST was sent (in how many)")
    for label, values in sorted(offsets.items(), key=lambda item: statistics.median(item[1])):
        print(f"  {1000 * statistics.median(values):7.2f}  {label} ({len(values)})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--poll-ms", type=float, default=2.0,
                    help="the client's GET polls until ACTIVE: each one is CPU of the server's "
                         "loop, so frequent polls slow the steps they time; the marks stay exact")
    ap.add_argument("--server-src", type=Path, default=None,
                    help="serve this source tree instead (e.g. an older commit's, from git archive)")
    args = ap.parse_args()
    poll = args.poll_ms / 1000
    path = [str(BENCH / "timeline_hooks")] + ([str(args.server_src)] if args.server_src else [])
    with tempfile.TemporaryDirectory(prefix="okd-timeline-") as scratch:
        trace = Path(scratch) / "marks.txt"
        server = ServerProcess(options={"DEFAULT": dict(BENCH_QUOTAS)}, project="bench",
                               wait_dns=True, start_timeout=120,
                               env={"PYTHONPATH": ":".join(path),
                                    "OKD_TIMELINE": str(trace)})
        server.start()
        try:
            taken = asyncio.run(samples(server.api_url, args.samples, poll))
        finally:
            server.stop()
        marks = [(float(when), label) for when, label in
                 (line.rstrip("\n").split(" ", 1) for line in trace.read_text().splitlines())]
    for kind, values in taken.items():
        report(kind, values, marks, poll)
    return 0


if __name__ == "__main__":
    sys.exit(main())
