#!/usr/bin/env python3
"""Idle memory of the embedded default: RSS and PSS of one fresh ``openkeel-designate serve``.

Each source tree given is started in turn (``--rounds`` times, round-robin, so trees compared
are measured in the same minutes), read ``--settle`` seconds after it answers, and stopped.
With no tree, the working tree is measured. Figures are printed, never asserted.

    .venv/bin/python bench/memory.py [--server-src DIR ...] [--rounds 2] [--settle 3]

A snapshot of a commit for comparison: ``git archive <commit> src | tar -x -C DIR`` and pass
``DIR/src``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from stats import memory_mb  # noqa: E402
from targets import ServerProcess  # noqa: E402  (targets puts tests/ on sys.path)


def idle(server_src: Path | None, settle: float) -> dict[str, float]:
    env = {"PYTHONPATH": str(server_src.resolve())} if server_src else None
    with ServerProcess(project="bench", wait_dns=True, start_timeout=120, env=env) as server:
        time.sleep(settle)
        assert server.pid is not None
        return {**memory_mb([server.pid]), "load": round(os.getloadavg()[0], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server-src", type=Path, action="append", default=[],
                    help="source tree to run the server from (repeatable)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after the server answers")
    args = ap.parse_args()
    trees: list[Path | None] = list(args.server_src) or [None]
    for _ in range(args.rounds):
        for tree in trees:
            print(f"{tree or 'working tree'}: {idle(tree, args.settle)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
