#!/usr/bin/env python3
"""Differential run against the real Designate 23.0.0: ``N compared, M differ`` and each difference.

The longer form of tests/integration/test_differential.py: any seed, any count. Uses the
reference where it answers (http://127.0.0.1:9101), else starts it from /work/shared/ref on the
moved ports; starts our server configured like it unless ``--ours URL`` points at one.

    .venv/bin/python bench/differential.py --seed 1 --count 2000 [--jobs 4] [--ours URL]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from differential import servers  # noqa: E402
from differential.session import run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000, help="requests to compare (at least)")
    ap.add_argument("--jobs", type=int, default=4, help="sequences run at the same time")
    ap.add_argument("--run-id", default=None, help="name suffix source (default random: fresh names)")
    ap.add_argument("--ours", default=None, help="URL of a running server of ours (default: start one)")
    ap.add_argument("--verbose", action="store_true", help="print both answers of each difference")
    ap.add_argument("--database", default="sqlite", choices=["sqlite", "postgresql", "mysql"])
    args = ap.parse_args()
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        ref_url = stack.enter_context(servers.reference())
        ours_url = args.ours or stack.enter_context(servers.ours(args.database))
        summary = run(args.seed, args.count, ref_url, ours_url, args.run_id, args.jobs)
    for line in summary.lines(args.verbose):
        print(line)
    print(f"seed {args.seed}, {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 1 if summary.differ else 0


if __name__ == "__main__":
    sys.exit(main())
