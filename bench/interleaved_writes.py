#!/usr/bin/env python3
"""Sequential writes by the Python client, ours and the real Designate's in alternating slices.

``api_throughput.py`` measures our side, then the reference's, minutes apart; on this shared
host a minute can be 1.5× slower than the next, and a write ratio moves with it. Here both
run at once and the client alternates between them: a slice of ``--seconds`` of sequential
recordset POSTs (each sent when the last answered, httpx as in ``api_throughput.py``) into a
zone of ours, then one into a zone of the reference, for ``--rounds`` rounds, which side goes
first alternating. Each slice writes into a new zone, made ACTIVE before the slice starts:
our rate falls as a zone grows (a push's step reads the zone's served set, O(zone)), and
``api_throughput.py`` writes 200 recordsets per zone. After each slice the script waits until
that zone is ACTIVE again, so that neither side's propagation runs in the other's slice. Printed: each round's rates and
ratio, and the median ratio; a JSON with ``--out``. Never asserted.

    .venv/bin/python bench/interleaved_writes.py --ref-dir /tmp/refperf [--database postgresql]
        [--workers 2] [--rounds 6] [--seconds 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from api_throughput import start_ours, wait_active  # noqa: E402
from measure import Api, ready_zone  # noqa: E402
from stats import cpu_seconds  # noqa: E402
from targets import Ref, ref_ports  # noqa: E402


async def slice_of_posts(api: Api, zone_id: str, zone_name: str, seconds: float
                         ) -> tuple[int, float]:
    """Sequential POSTs for ``seconds``: how many, and the seconds they took."""
    began = time.perf_counter()
    count = 0
    while time.perf_counter() - began < seconds:
        await api.create_a(zone_id, f"i{count:05d}.{zone_name}", f"198.51.100.{count % 250 + 1}")
        count += 1
    return count, time.perf_counter() - began


async def measure(sides: dict[str, Api], rounds: int, seconds: float) -> list[dict[str, Any]]:
    tag = uuid.uuid4().hex[:6]
    results = []
    for number in range(rounds):
        order = list(sides) if number % 2 == 0 else list(reversed(sides))
        row: dict[str, Any] = {"round": number + 1, "first": order[0],
                               "load": os.getloadavg()[0]}
        for label in order:
            name = f"il{number}-{label}-{tag}.org."
            zone_id = await ready_zone(sides[label], name)
            other = sides["ref" if label == "ours" else "ours"].target
            idle_before = cpu_seconds(other.pgids())
            count, took = await slice_of_posts(sides[label], zone_id, name, seconds)
            row[label] = round(count / took, 1)
            # what the other side, meant to be idle, used of the CPU meanwhile
            row[f"{label}_other_cpu_share"] = round((cpu_seconds(other.pgids()) - idle_before) / took, 2)
            if not await wait_active(sides[label], f"/v2/zones/{zone_id}"):
                row[f"{label}_not_active"] = True
        row["ratio"] = round(row["ours"] / row["ref"], 2) if row.get("ref") else None
        results.append(row)
        print(f"round {row['round']} ({row['first']} first, load {row['load']:.1f}): ours "
              f"{row['ours']} / ref {row['ref']} POSTs per s, {row['ratio']}x; CPU of the idle "
              f"side: {row['ours_other_cpu_share']} during ours, {row['ref_other_cpu_share']} "
              "during the ref's", flush=True)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database", default="sqlite", choices=["sqlite", "postgresql", "mysql"])
    ap.add_argument("--workers", type=int, default=1, help="[service:api] workers of our server")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=1.0,
                    help="each side's slice of POSTs (ours writes ~200-500 per s into its zone)")
    ap.add_argument("--ref-scripts", type=Path, default=Path("/work/shared/ref"))
    ap.add_argument("--ref-dir", type=Path, default=Path(os.environ.get("REF_DIR", "/tmp/ref")))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    server, ours = start_ours(args.database, args.workers)
    ref = Ref(args.ref_scripts, args.ref_dir, ref_ports())
    try:
        theirs = ref.start()

        async def run() -> list[dict[str, Any]]:
            project = f"il-{uuid.uuid4().hex[:6]}"
            sides = {"ours": Api(ours, project), "ref": Api(theirs, project)}
            try:
                return await measure(sides, args.rounds, args.seconds)
            finally:
                for api in sides.values():
                    await api.close()
        results = asyncio.run(run())
    finally:
        ref.stop()
        server.stop()
    ratios = [row["ratio"] for row in results if row["ratio"]]
    summary = {"database": args.database, "workers": args.workers, "seconds": args.seconds,
               "rounds": results, "median_ratio": statistics.median(ratios) if ratios else None,
               "ours_median_per_s": statistics.median(row["ours"] for row in results),
               "ref_median_per_s": statistics.median(row["ref"] for row in results)}
    print(f"{args.database}, api workers {args.workers}: median ours "
          f"{summary['ours_median_per_s']} / ref {summary['ref_median_per_s']} POSTs per s; "
          f"median of the rounds' ratios {summary['median_ratio']}x "
          f"(range {min(ratios, default=0)}-{max(ratios, default=0)}x)")
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
