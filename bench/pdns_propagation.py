#!/usr/bin/env python3
"""How fast a change reaches a real PowerDNS: our server with a pdns4 pool, beside the real Designate.

Starts a PowerDNS (tests/support/pdns.py, configured like the reference's: no answer caches,
xfr-cycle-interval 5) and our server whose default pool has that PowerDNS as its only target and
nameserver; measures zone POST -> ACTIVE / -> SOA answered by PowerDNS and recordset POST ->
ACTIVE / -> A answered by PowerDNS; stops both. It does so twice: with the target option
``axfr_retrieve: false`` (Designate's plain pdns4 calls: PowerDNS transfers when its secondary loop
next wakes after the NOTIFY) and with the default options (create and update also call
``axfr-retrieve``: PowerDNS is asked to transfer at once). With ``--ref``, the same
figures from the real Designate 23.0.0 (/work/shared/ref, whose pool is also one PowerDNS), and
ours/ref ratios. Figures are printed and written to bench/results/, never asserted.

    .venv/bin/python bench/pdns_propagation.py [--quick] [--zones N] [--records N] [--ref]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
import uuid
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from measure import Api, ready_zone, recordset_propagation, zone_propagation  # noqa: E402
from propagation import _section, delete_project_zones, machine  # noqa: E402
from report import BASELINE, figures, fmt, fmt_ratio, ratio, render  # noqa: E402
from targets import SECONDARY_ROWS, OursSecondary, Ref, RefUnavailable, Target, ref_ports  # noqa: E402

# (column title, figure key prefix): each cell prints p50 / p95 of that figure.
COLUMNS = [("zone POST -> ACTIVE", "zone_active"), ("zone POST -> SOA by the target", "zone_answered"),
           ("recordset POST -> ACTIVE", "rs_active"), ("recordset POST -> A by the target", "rs_answered")]


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zones", type=int, default=None, help="zone creates measured per row (default 100)")
    ap.add_argument("--records", type=int, default=None, help="recordset creates measured per row (default 100)")
    ap.add_argument("--quick", action="store_true", help="10 zones and 10 recordsets per row (ref: 5)")
    ap.add_argument("--database", default="sqlite", choices=["sqlite", "postgresql", "mysql"])
    ap.add_argument("--rows", default="ours-no-axfr_retrieve,ours",
                    help=f"rows of ours to run, comma-separated, among {','.join(SECONDARY_ROWS)} "
                         "(default: PowerDNS with and without axfr_retrieve); --rounds > 1 "
                         "interleaves them")
    ap.add_argument("--server-src", type=Path, default=None,
                    help="run our server from this source tree (first on PYTHONPATH), e.g. a "
                         "snapshot, so that edits of the working tree do not reach a running bench")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every row this many times, round-robin (before/after in the same minutes)")
    ap.add_argument("--ref", action="store_true", help="also measure the real Designate 23.0.0")
    ap.add_argument("--ref-samples", type=int, default=None,
                    help="cap on samples against the reference (default 20; each takes 5-15 s)")
    ap.add_argument("--ref-scripts", type=Path, default=Path("/work/shared/ref"))
    ap.add_argument("--ref-dir", type=Path, default=Path(os.environ.get("REF_DIR", "/tmp/ref")))
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON file (default bench/results/pdns-propagation-*.json)")
    args = ap.parse_args()
    for name, full, small in (("zones", 100, 10), ("records", 100, 10), ("ref_samples", 20, 5)):
        if getattr(args, name) is None:
            setattr(args, name, small if args.quick else full)
    return args


async def measure(target: Target, zones: int, records: int) -> dict[str, Any]:
    """Zone and recordset propagation against one target (the sections of propagation.py)."""
    tag = uuid.uuid4().hex[:6]
    result: dict[str, Any] = {"label": target.label, "api_url": target.api_url, "answered_by": target.dns_label,
                              "dns_port": target.dns_port, "notes": target.notes, "api_poll_s": target.api_poll_s,
                              "dns_poll_s": target.dns_poll_s, "pause_s": target.pause_s,
                              "project": f"bench-{tag}"}
    api = Api(target, result["project"])
    try:
        zone_result = await _section(result, "zones", zone_propagation(api, zones, tag))
        if zone_result:
            result["zones"] = zone_result[0]
        rs_zone = f"rs-{tag}.com."
        zid = await _section(result, "recordset_zone", ready_zone(api, rs_zone))
        if zid:
            await _section(result, "recordsets", recordset_propagation(api, zid, rs_zone, records))
        if target.label == "ref":
            await _section(result, "cleanup", delete_project_zones(api))
    finally:
        await api.close()
    return result


def run_ours(args: argparse.Namespace, row: str) -> dict[str, Any]:
    ours = OursSecondary(row, args.database, args.server_src)
    try:
        target = ours.start()
        print(f"{ours.label}: {target.api_url}, {target.dns_label} 127.0.0.1:{ours.dns.dns_port}, "
              f"pid {ours.server.pid}, load {os.getloadavg()[0]:.1f}", flush=True)
        result = asyncio.run(measure(target, args.zones, args.records))
        result["loadavg_end"] = os.getloadavg()
        return result
    except Exception as exc:  # noqa: BLE001 - reported in the output
        return {"label": ours.label, "error": f"{type(exc).__name__}: {exc}",
                "log_tail": ours.server.log_tail(20), "dns_log_tail": ours.dns.log_tail(20)}
    finally:
        ours.stop()


def run_ref(args: argparse.Namespace) -> dict[str, Any]:
    ref = Ref(args.ref_scripts, args.ref_dir, ref_ports())
    try:
        print(f"ref: setting up / starting Designate 23.0.0 (log {ref.log})", flush=True)
        target = ref.start()
        n = args.ref_samples
        return asyncio.run(measure(target, min(n, args.zones), min(n, args.records)))
    except RefUnavailable as exc:
        return {"label": "ref", "unavailable": str(exc)}
    finally:
        ref.stop()


def _pair(figs: dict[str, float | None], prefix: str) -> str:
    return f"{fmt(figs.get(prefix + '_p50'), 's')} / {fmt(figs.get(prefix + '_p95'), 's')}"


def _ratio_pair(ours: dict[str, float | None], other: dict[str, float | None], prefix: str) -> str:
    return " / ".join(fmt_ratio(ratio(ours.get(f"{prefix}_{q}"), other.get(f"{prefix}_{q}")))
                      for q in ("p50", "p95"))


def pdns_table(results: dict[str, dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """One row per configuration (p50 / p95 in each cell), then ours/ref ratio rows."""
    header = ["row (samples zones/recordsets)", *(title + " p50 / p95" for title, _ in COLUMNS)]
    lines: list[list[str]] = []
    data: list[dict[str, Any]] = []
    figs = {label: figures(res) for label, res in results.items()
            if "error" not in res and "unavailable" not in res}
    for label, res in results.items():
        if label not in figs:
            continue
        n = f"{res.get('zones', {}).get('active_s', {}).get('n', 0)}/" \
            f"{res.get('recordsets', {}).get('active_s', {}).get('n', 0)}"
        lines.append([f"{label} ({n})", *(_pair(figs[label], key) for _, key in COLUMNS)])
        data.append({"row": label, **{k: v for k, v in figs[label].items()
                                      if k.split("_p")[0] in {key for _, key in COLUMNS}}})
    baseline = {f"{key}_p50": BASELINE[f"{key}_p50"][0] for _, key in COLUMNS}
    lines.append(["ref baseline (NOTES.md)", *(f"{fmt(baseline[key + '_p50'], 's')} / -" for _, key in COLUMNS)])
    against, against_label = (figs["ref"], "ref") if "ref" in figs else (baseline, "NOTES.md baseline")
    for label in figs:
        if label == "ref":
            continue
        lines.append([f"{label} / {against_label}",
                      *(_ratio_pair(figs[label], against, key) for _, key in COLUMNS)])
        data.append({"row": f"{label} / {against_label}",
                     **{f"{key}_{q}": ratio(figs[label].get(f"{key}_{q}"), against.get(f"{key}_{q}"))
                        for _, key in COLUMNS for q in ("p50", "p95")}})
    return render(header, lines), data


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks: stop what we started
    args = parse_args()
    out: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(),
                           "args": {k: str(v) for k, v in vars(args).items()}}
    results: dict[str, dict[str, Any]] = {}
    rows = [row.strip() for row in args.rows.split(",") if row.strip()]
    unknown = [row for row in rows if row not in SECONDARY_ROWS]
    if unknown:
        raise SystemExit(f"unknown rows {unknown}; choose among {list(SECONDARY_ROWS)}")
    for round_no in range(1, args.rounds + 1):
        for row in rows:
            res = run_ours(args, row)
            label = row if args.rounds == 1 else f"{row} #{round_no}"
            res["label"] = label
            results[label] = res
    if args.ref:
        results["ref"] = run_ref(args)
    out["results"] = results
    text, rows = pdns_table(results)
    out["rows"] = rows
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    path = args.out or BENCH / "results" / f"pdns-propagation-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str))

    print()
    for label, res in results.items():
        for key in ("error", "unavailable"):
            if key in res:
                print(f"{label} {key}: {res[key]}")
        for name, section in res.items():
            if isinstance(section, dict) and "error" in section:
                print(f"{label} section {name} failed: {section['error']}")
    print(f"load average at the end: {os.getloadavg()}")
    print("answered = the row's target (PowerDNS, BIND 9, Knot) answers the SOA / the A record (UDP, polled every 5 ms); "
          "ACTIVE = the API says so (polled every 10 ms for ours, 100 ms for the ref)")
    print(text)
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
