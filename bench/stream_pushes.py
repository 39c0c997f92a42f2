#!/usr/bin/env python3
"""A stream of recordset POSTs into one zone: the POST rate and how many pushes carried them.

Starts the embedded default (``--server-src`` runs another source tree, for paired runs), creates
one zone, then POSTs ``--posts`` A recordsets into it back to back with a plain synchronous
client (less client CPU than the asyncio benchmarks, so the server's share shows more). The
worker logs a line per push of the zone ("done", or "newer change pending" when more changes
came in while it pushed); the script counts them. Fewer pushes for the same changes is the
coalescing of the worker's claim window (worker/service.py, ``COALESCE_SECONDS``). Printed,
never asserted.

    .venv/bin/python bench/stream_pushes.py [--posts 300] [--rounds 3] [--server-src DIR ...]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from targets import BENCH_QUOTAS, ServerProcess  # noqa: E402

ZONE = "stream.example."


def one_run(src: Path | None, posts: int) -> tuple[float, int, int]:
    """(POSTs per second, pushes that ended done, pushes that found a newer change)."""
    env = {"PYTHONPATH": str(src.resolve())} if src else None
    server = ServerProcess(options={"DEFAULT": dict(BENCH_QUOTAS)}, project="bench",
                           wait_dns=True, env=env)
    server.start()
    try:
        with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=30) as client:
            zone_id = client.post("/v2/zones", json={"name": ZONE, "email": "h@stream.example"}
                                  ).json()["id"]
            time.sleep(0.5)
            started = time.perf_counter()
            for i in range(posts):
                answer = client.post(f"/v2/zones/{zone_id}/recordsets", json={
                    "name": f"r{i}.{ZONE}", "type": "A", "records": ["192.0.2.1"]})
                if answer.status_code != 202:
                    raise SystemExit(f"POST answered {answer.status_code}: {answer.text[:200]}")
            rate = posts / (time.perf_counter() - started)
            time.sleep(1.0)  # the last push ends
        log = server.log_path.read_text()
    finally:
        server.stop()
    done = len(re.findall(rf"{re.escape(ZONE)} UPDATE serial \d+: done", log))
    overtaken = len(re.findall(rf"{re.escape(ZONE)} UPDATE serial \d+: newer change pending", log))
    return rate, done, overtaken


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--posts", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--server-src", type=Path, action="append", default=None,
                    help="source tree(s) to run, alternated round by round (default: this one)")
    args = ap.parse_args()
    trees: list[Path | None] = list(args.server_src or [None])
    for round_no in range(1, args.rounds + 1):
        for tree in trees:
            rate, done, overtaken = one_run(tree, args.posts)
            print(f"round {round_no} {tree or 'this tree'}: {rate:.0f} POSTs/s, "
                  f"{done + overtaken} pushes ({overtaken} found a newer change)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
