#!/usr/bin/env python3
"""How fast a change reaches DNS, how fast the API answers, how much memory it takes.

Starts our server (embedded default: SQLite, built-in nameserver) on free loopback ports, measures,
stops it; with ``--ref`` does the same against the real Designate 23.0.0 (/work/shared/ref, on
moved ports) and prints ours/ref ratios. Figures are printed and written to bench/results/, never
asserted. See bench/README.md for what each figure means.

    .venv/bin/python bench/propagation.py [--quick] [--zones N] [--ref]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from measure import (Api, get_load, ready_zone, recordset_propagation, sequential_posts,  # noqa: E402
                     top_up_zones, zone_propagation)
from report import figures, table  # noqa: E402
from stats import memory_mb  # noqa: E402
from targets import REPO, Ours, Ref, RefUnavailable, Target, ref_ports  # noqa: E402


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zones", type=int, default=None,
                    help="zone creates measured, and zones present for GET /v2/zones (default 100)")
    ap.add_argument("--records", type=int, default=None, help="recordset creates measured (default 100)")
    ap.add_argument("--rs-posts", type=int, default=None, help="sequential recordset POSTs (default 200)")
    ap.add_argument("--seconds", type=float, default=None, help="length of each GET load (default 10)")
    ap.add_argument("--clients", type=int, default=10, help="concurrent clients of the GET loads")
    ap.add_argument("--load-tool", choices=["auto", "wrk", "httpx"], default="auto",
                    help="auto: wrk if installed (as the NOTES.md baseline), else httpx.AsyncClient")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds idle before the first RSS reading")
    ap.add_argument("--database", default="sqlite", choices=["sqlite", "postgresql", "mysql"],
                    help="our server's database (fresh okd_* database for postgresql/mysql)")
    ap.add_argument("--quick", action="store_true", help="10 zones, 10 recordsets, 50 POSTs, 3 s loads")
    ap.add_argument("--ref", action="store_true", help="also measure the real Designate 23.0.0")
    ap.add_argument("--ref-samples", type=int, default=None,
                    help="cap on propagation samples against the reference (default 20; each takes 5-15 s)")
    ap.add_argument("--ref-scripts", type=Path, default=Path("/work/shared/ref"))
    ap.add_argument("--ref-dir", type=Path, default=Path(os.environ.get("REF_DIR", "/tmp/ref")))
    ap.add_argument("--out", type=Path, default=None, help="JSON file (default bench/results/propagation-*.json)")
    args = ap.parse_args()
    quick = args.quick
    for name, full, small in (("zones", 100, 10), ("records", 100, 10), ("rs_posts", 200, 50),
                              ("seconds", 10.0, 3.0), ("ref_samples", 20, 5)):
        if getattr(args, name) is None:
            setattr(args, name, small if quick else full)
    return args


async def _section(result: dict[str, Any], name: str, coro: Any) -> Any:
    """Run one measurement; a failure is recorded and printed, and the other sections still run."""
    print(f"== {result['label']}: {name}", flush=True)
    try:
        value = await coro
    except Exception as exc:  # noqa: BLE001 - a benchmark reports failures, it does not stop on them
        result[name] = {"error": f"{type(exc).__name__}: {exc}"}
        print(f"  {name} failed: {exc}", flush=True)
        return None
    result[name] = value
    return value


async def run_target(target: Target, args: argparse.Namespace, samples: int) -> dict[str, Any]:
    """Every measurement against one target, in an order that leaves ~args.zones zones for the GETs."""
    tag = uuid.uuid4().hex[:6]
    result: dict[str, Any] = {"label": target.label, "api_url": target.api_url, "answered_by": target.dns_label,
                              "notes": target.notes, "api_poll_s": target.api_poll_s,
                              "dns_poll_s": target.dns_poll_s, "pause_s": target.pause_s, "project": f"bench-{tag}"}
    await asyncio.sleep(args.settle)
    result["memory_idle"] = memory_mb(target.pgids())
    api = Api(target, result["project"])
    try:
        zone_ids: list[str] = []
        zones = await _section(result, "zones", zone_propagation(api, min(samples, args.zones), tag))
        if zones:
            result["zones"], zone_ids = zones
        await _section(result, "top_up", top_up_zones(api, args.zones, tag))
        await _section(result, "load_list", get_load(api, "/v2/zones", args.clients, args.seconds, args.load_tool))
        if zone_ids:
            await _section(result, "load_show", get_load(api, f"/v2/zones/{zone_ids[0]}", args.clients,
                                                         args.seconds, args.load_tool))
        rs_zone = f"rs-{tag}.com."
        zid = await _section(result, "recordset_zone", ready_zone(api, rs_zone))
        if zid:
            await _section(result, "recordsets",
                           recordset_propagation(api, zid, rs_zone, min(samples, args.records)))
        seq_zone = f"seq-{tag}.com."
        zid = await _section(result, "sequential_zone", ready_zone(api, seq_zone))
        if zid:
            await _section(result, "sequential", sequential_posts(api, zid, seq_zone, args.rs_posts))
        result["memory_after"] = memory_mb(target.pgids())
        if target.label == "ref":
            await _section(result, "cleanup", delete_project_zones(api))
    finally:
        await api.close()
    return result


async def delete_project_zones(api: Api) -> int:
    """Leave the shared reference database as it was: delete this run's zones (bounded)."""
    deleted = 0
    for _ in range(20):
        resp = await api.client.get("/v2/zones", params={"limit": 1000})
        zones = [z for z in resp.json().get("zones", []) if z.get("action") != "DELETE"]
        if not zones:
            break
        for zone in zones:
            deleted += (await api.client.delete(f"/v2/zones/{zone['id']}")).status_code == 202
    return deleted


def run_ours(args: argparse.Namespace) -> dict[str, Any]:
    ours = Ours(args.database)
    try:
        target = ours.start()
        print(f"ours: {target.api_url}, nameserver 127.0.0.1:{target.dns_port}, pid {ours.server.pid}", flush=True)
        return asyncio.run(run_target(target, args, args.zones))
    except Exception as exc:  # noqa: BLE001 - reported in the output
        log = ours.server.log_tail(20) if ours.server.is_running() else ""
        return {"label": "ours", "error": f"{type(exc).__name__}: {exc}", "log_tail": log}
    finally:
        ours.stop()


def run_ref(args: argparse.Namespace) -> dict[str, Any]:
    ref = Ref(args.ref_scripts, args.ref_dir, ref_ports())
    try:
        print(f"ref: setting up / starting Designate 23.0.0 (log {ref.log})", flush=True)
        target = ref.start()
        return asyncio.run(run_target(target, args, args.ref_samples))
    except RefUnavailable as exc:
        return {"label": "ref", "unavailable": str(exc)}
    finally:
        ref.stop()


def machine() -> dict[str, Any]:
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10, check=False).stdout.strip()
    except OSError:
        commit = ""
    return {"cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg(), "python": platform.python_version(),
            "commit": commit}


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks: stop what we started
    args = parse_args()
    out: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(),
                           "args": {k: str(v) for k, v in vars(args).items()}}
    out["ours"] = run_ours(args)
    if args.ref:
        out["ref"] = run_ref(args)
    ref_result = out.get("ref")
    ref_figures = figures(ref_result) if ref_result and "unavailable" not in ref_result else None
    text, rows = table(figures(out["ours"]), ref_figures)
    out["rows"] = rows
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    path = args.out or BENCH / "results" / f"propagation-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str))

    print()
    for label in ("ours", "ref"):
        res = out.get(label) or {}
        for key in ("error", "unavailable"):
            if key in res:
                print(f"{label} {key}: {res[key]}")
        for name, section in res.items():
            if isinstance(section, dict) and "error" in section:
                print(f"{label} section {name} failed: {section['error']}")
    if args.ref and ref_figures is None:
        print("The live reference could not run; ratios are against the NOTES.md baseline (other runs, "
              "same machine type).")
    ref_n = (f"{min(args.ref_samples, args.zones)} / {min(args.ref_samples, args.records)}"
             if ref_figures is not None else "-")
    print(f"propagation samples (zones / recordsets): ours {args.zones} / {args.records}, ref {ref_n}; "
          "'answered' = ours: built-in nameserver, ref: PowerDNS; DNS polled every 5 ms, the API "
          "every 2 ms (ours) and 100 ms (ref)")
    print(text)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
