#!/usr/bin/env python3
"""Two source trees side by side: recordset POSTs by wrk, measured in the same minutes.

The shared 2-core machine changes speed by 1.5x within minutes, so ``api_throughput.py`` run on
one tree and then on the other compares the minutes as much as the trees (bench/README.md). Here
both trees serve at once (``openkeel-designate serve``, each on a database of its own, built-in
nameserver), and the rounds alternate between them, which goes first alternating too: per
round, ``--posts`` sequential recordset POSTs by wrk into a fresh zone (one connection), with
the server's CPU for them until that zone is ACTIVE (pushes included: the rate moves with the
host's speed more than the CPU does), then as many by ``--clients`` connections over as many
fresh zones. Only one tree is busy at a time.
Printed per round and as medians, never asserted.

    git archive <commit> src | tar -x -C /tmp/base
    .venv/bin/python bench/paired_writes.py /tmp/base/src src [--database postgresql]
        [--rounds 4] [--posts 400] [--clients 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import uuid
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from api_throughput import start_ours, wait_active  # noqa: E402
from stats import cpu_seconds  # noqa: E402
from measure import Api, wrk_posts  # noqa: E402


async def fresh_zones(api: Api, count: int) -> list[tuple[str, str]]:
    tag = uuid.uuid4().hex[:6]
    zones = []
    for index in range(count):
        name = f"p{index:02d}-{tag}.org."
        zones.append(((await api.create_zone(name))["id"], name))
    for zone_id, _ in zones:
        await wait_active(api, f"/v2/zones/{zone_id}")
    return zones


async def one_round(api: Api, posts: int, clients: int) -> tuple[float, float, float]:
    """Sequential and concurrent POSTs per second of one tree, and the server's CPU per
    sequential POST in ms (its process group, pushes included: the rate moves with the
    host's speed more than the CPU does)."""
    zones = await fresh_zones(api, clients + 1)
    cpu = cpu_seconds(api.target.pgids())
    sequential = await wrk_posts(api, zones[:1], 1, posts)
    await wait_active(api, f"/v2/zones/{zones[0][0]}")
    cpu = cpu_seconds(api.target.pgids()) - cpu
    concurrent = await wrk_posts(api, zones[1:], clients, posts)
    return sequential["req_per_s"], concurrent["req_per_s"], 1000 * cpu / posts


async def run(trees: list[Path], args: argparse.Namespace) -> None:
    started = [start_ours(args.database, args.workers, tree) for tree in trees]
    apis = [Api(target, f"pair-{index}") for index, (_, target) in enumerate(started)]
    figures: list[list[tuple[float, float, float]]] = [[] for _ in trees]
    try:
        for api in apis:  # warm-up: connections, prepared statements, first claims
            await one_round(api, args.posts // 4, args.clients)
        for round_no in range(args.rounds):
            order = [0, 1] if round_no % 2 == 0 else [1, 0]
            for index in order:
                figures[index].append(await one_round(apis[index], args.posts, args.clients))
            print(f"round {round_no + 1}: " + "  ".join(
                f"{trees[i]}: sequential {figures[i][-1][0]:.0f}/s "
                f"({figures[i][-1][2]:.2f} ms CPU each), {args.clients} connections "
                f"{figures[i][-1][1]:.0f}/s" for i in (0, 1)), flush=True)
    finally:
        for api in apis:
            await api.close()
        for server, _ in started:
            server.stop()
    for index, tree in enumerate(trees):
        sequential = statistics.median(f[0] for f in figures[index])
        concurrent = statistics.median(f[1] for f in figures[index])
        cpu = statistics.median(f[2] for f in figures[index])
        print(f"{tree}: median sequential {sequential:.0f}/s ({cpu:.2f} ms server CPU each), "
              f"{args.clients} connections {concurrent:.0f}/s ({args.database}, "
              f"{args.rounds} rounds)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs=2, type=Path, help="two src directories")
    ap.add_argument("--database", default="sqlite", choices=("sqlite", "postgresql", "mysql"))
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--posts", type=int, default=400)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--workers", type=int, default=1, help="[service:api] workers of both")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        print("wrk is not installed: this comparison needs it", file=sys.stderr)
        return 1
    asyncio.run(run(args.trees, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
