#!/usr/bin/env python3
"""The README's benchmark table from one run: every figure of it, in one command.

Runs the scripts behind the table one after the other, each writing its JSON into the run's
directory, then prints the table in Markdown: the commit, when each step ran, the load
average before and after it, and the machine. The real Designate 23.0.0 (``--ref-dir``, set up
beforehand by ``../shared/ref/setup.sh`` as ``bench/README.md`` shows) is measured by the same
scripts in the same run, so every ratio compares minutes of the same host. Steps:

* ``api``: ``api_throughput.py --ref`` on SQLite, on PostgreSQL, and on PostgreSQL with
  ``[service:api] workers = 2`` (reads, sequential and concurrent writes, a burst of 100);
* ``propagation``: ``propagation.py --quick --ref`` (the embedded default against Designate
  with its one PowerDNS: POST -> ACTIVE, the server's own clock, idle RSS);
* ``pdns``: ``pdns_propagation.py`` with a PowerDNS, a BIND 9 and a Knot target;
* ``axfr``: ``axfr.py`` (mdns against PowerDNS serving the same zones);
* ``import``: ``import_big.py --rows pdns`` (a 100,000-record import on a PowerDNS pool);
* ``burst``: ``burst.py``, 1,000 zones by 20 clients, on SQLite and on PostgreSQL with two API
  processes;
* ``interleaved``: ``interleaved_writes.py`` on SQLite and on PostgreSQL: sequential POSTs by
  the Python client, ours and the reference's in alternating one-second slices of the same
  minutes (needs the reference: left out with ``--no-ref``).

Figures are printed, never asserted. ``--render DIR`` prints the table again from a run's files.

    export REF_DIR=/tmp/refperf API_PORT=9201 MDNS_PORT=5554 PDNS_PORT=5500 PDNS_API_PORT=8281 \\
        DB_NAME=designate_perf RABBIT_VHOST=perf
    .venv/bin/python bench/table.py --ref-dir /tmp/refperf [--steps api,propagation,...]
    .venv/bin/python bench/table.py --render bench/results/table-YYYYMMDD-HHMMSS
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from api_throughput import ratio_rows  # noqa: E402

PYTHON = sys.executable
STEPS = ("api", "propagation", "pdns", "axfr", "import", "burst", "interleaved")
# (file stem, script and its arguments); "{ref}" stands for the reference's options, "{ref-dir}"
# for its directory alone (a script that always measures it: left out without the reference)
RUNS: dict[str, list[tuple[str, list[str]]]] = {
    "api": [("api-sqlite", ["api_throughput.py", "{ref}"]),
            ("api-postgresql", ["api_throughput.py", "{ref}", "--database", "postgresql"]),
            ("api-postgresql-w2", ["api_throughput.py", "{ref}", "--database", "postgresql",
                                   "--workers", "2"])],
    "propagation": [("propagation", ["propagation.py", "--quick", "{ref}"])],
    "pdns": [("pdns", ["pdns_propagation.py", "--rows",
                       "ours-no-axfr_retrieve,ours,ours-bind9,ours-knot"])],
    "axfr": [("axfr", ["axfr.py"])],
    "import": [("import", ["import_big.py", "--rows", "pdns"])],
    "burst": [("burst-sqlite", ["burst.py", "--zones", "1000", "--clients", "20"]),
              ("burst-postgresql-w2", ["burst.py", "--zones", "1000", "--clients", "20",
                                       "--database", "postgresql", "--api-workers", "2"])],
    "interleaved": [("interleaved-sqlite", ["interleaved_writes.py", "{ref-dir}", "--rounds", "8"]),
                    ("interleaved-postgresql", ["interleaved_writes.py", "{ref-dir}", "--rounds", "8",
                                                "--database", "postgresql"])],
}
API_RUNS = ("api-sqlite", "api-postgresql", "api-postgresql-w2")


def run_steps(steps: list[str], out_dir: Path, ref_dir: list[str], commit: str) -> None:
    """Each script in turn; what it printed goes to ``<stem>.log``, when, how loaded and at
    which commit to ``runs.json`` (added to the list of an earlier invocation into the same
    directory). A step that fails leaves its row out of the table, not the others."""
    listed = out_dir / "runs.json"
    runs: list[dict[str, Any]] = json.loads(listed.read_text()) if listed.exists() else []
    for step in steps:
        for stem, command in RUNS[step]:
            if "{ref-dir}" in command and not ref_dir:
                continue
            expand = {"{ref}": ["--ref", *ref_dir] if ref_dir else [], "{ref-dir}": ref_dir}
            args = [part for item in command for part in expand.get(item, [item])]
            argv = [PYTHON, str(BENCH / args[0]), *args[1:], "--out", str(out_dir / f"{stem}.json")]
            entry = {"stem": stem, "command": " ".join(["bench/" + args[0], *args[1:]]),
                     "started": time.strftime("%H:%M"), "load_before": os.getloadavg()[0],
                     "commit": commit}
            print(f"{entry['started']} {entry['command']}", flush=True)
            with open(out_dir / f"{stem}.log", "w", encoding="utf-8") as log:
                entry["exit"] = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT,
                                               cwd=REPO, check=False).returncode
            entry.update(finished=time.strftime("%H:%M"), load_after=os.getloadavg()[0])
            runs.append(entry)
            listed.write_text(json.dumps(runs, indent=1))


def _load(out_dir: Path, stem: str) -> dict[str, Any] | None:
    path = out_dir / f"{stem}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _secs(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f} s"


def _times(better: float | None) -> str:
    """How many times better ours is, in bold where it is at least 10×."""
    if better is None:
        return "-"
    text = f"{better:.1f}×" if better < 100 else f"{better:,.0f}×"
    return f"**{text}**" if better >= 10 else text


def api_rows(out_dir: Path) -> list[list[str]]:
    """One row per figure of ``api_throughput.py``, the three runs in each cell."""
    results = [_load(out_dir, stem) or {} for stem in API_RUNS]
    if not any("ours" in result for result in results):
        return []
    by_run = [ratio_rows(result.get("ours", {}), result.get("ref", {})) for result in results]
    rows = []
    for index, (label, *_rest) in enumerate(by_run[0]):
        cells = [run[index] for run in by_run]
        seconds = label.endswith(" s")
        show: Callable[[Any], str] = _secs if seconds else _num
        rows.append([f"{label}: SQLite / PostgreSQL / PostgreSQL, 2 API processes",
                     " / ".join(show(cell[1]) for cell in cells),
                     " / ".join(show(cell[2]) for cell in cells),
                     " / ".join(_times(cell[3]) for cell in cells),
                     "`api_throughput.py --ref [--database postgresql [--workers 2]]`"])
    return rows


def propagation_rows(out_dir: Path) -> list[list[str]]:
    result = _load(out_dir, "propagation")
    if result is None:
        return []
    figures = {row["key"]: row for row in result["rows"]}
    rows = []
    for key, label in (("zone_active_p50", "zone POST → ACTIVE, p50 (the API polled every 2 ms for ours, 100 ms for Designate)"),
                       ("rs_active_p50", "recordset POST → ACTIVE, p50"),
                       ("zone_stamped_p50", "zone created → ACTIVE by the server's clock, p50"),
                       ("seq_per_s", "sequential recordset POSTs per s (httpx)"),
                       ("rss_idle", "RSS of the whole service, idle, MB"),
                       ("rss_after", "RSS after the run, MB")):
        row = figures.get(key)
        if row is None:
            continue
        ours, ref = row.get("ours"), row.get("ref")
        if key.startswith("rss") or key == "seq_per_s":
            show: Callable[[Any], str] = _num
        else:
            show = _ms
        better = None
        if ours and ref:
            better = ref / ours if row["better"] == "lower" else ours / ref
        where = "; built-in nameserver (ours), one PowerDNS (Designate)" if not rows else ""
        rows.append([label + where, show(ours),
                     "-" if ref is None else (f"{ref:.2f} s" if show is _ms else show(ref)),
                     _times(better), "`propagation.py --quick --ref`"])
    return rows


def pdns_rows(out_dir: Path) -> list[list[str]]:
    result = _load(out_dir, "pdns")
    propagation = _load(out_dir, "propagation") or {"rows": []}
    if result is None:
        return []
    ref = {row["key"]: row.get("ref") for row in propagation["rows"]}
    names = {"ours": "PowerDNS, Designate's plain `pdns4` options",
             "ours-no-axfr_retrieve": "PowerDNS with `axfr_retrieve: false`",
             "ours-bind9": "BIND 9", "ours-knot": "Knot"}
    rows = []
    for row in result["rows"]:
        if row["row"] not in names:
            continue
        better = None
        if row.get("zone_active_p50") and ref.get("zone_active_p50"):
            better = ref["zone_active_p50"] / row["zone_active_p50"]
        rows.append([f"zone / recordset POST → ACTIVE, p50 (p95), target {names[row['row']]}",
                     f"{_ms(row.get('zone_active_p50'))} ({_ms(row.get('zone_active_p95'))}) / "
                     f"{_ms(row.get('rs_active_p50'))} ({_ms(row.get('rs_active_p95'))})",
                     f"{_secs(ref.get('zone_active_p50'))} / {_secs(ref.get('rs_active_p50'))}"
                     " (its one PowerDNS, the propagation run)", _times(better),
                     "`pdns_propagation.py --rows ...`"])
    return rows


def axfr_rows(out_dir: Path) -> list[list[str]]:
    result = _load(out_dir, "axfr")
    if result is None:
        return []
    rows = []
    for item in result.get("ratios", []):
        if item["size"] != 100_000 or item["kind"] != "repeated" or item["client"] not in ("raw", "dig"):
            continue
        rows.append([f"AXFR of 100,000 records, mdns / PowerDNS, repeated, client {item['client']}",
                     _ms(item["ours_s"]), f"PowerDNS {_ms(item['theirs_s'])}",
                     _times(item["theirs_s"] / item["ours_s"]) + " PowerDNS's rate", "`axfr.py`"])
    ours = {(row["server"], row["size"], row["client"], row["kind"]): row["p50_s"]
            for row in result.get("ours", {}).get("rows", [])}
    inbound = ours.get(("PowerDNS <- ours mdns", 100_000, "pdns_server inbound", "cold"))
    if inbound is not None:
        rows.append(["PowerDNS's own transfer of the 100,000-record zone from mdns",
                     _secs(inbound), "-", "-", "`axfr.py`"])
    ixfr = [ours.get(("ours mdns", 5000, client, "IXFR 1 change")) for client in ("dnspython", "dig")]
    if any(value is not None for value in ixfr):
        rows.append(["IXFR of one change in a 5,000-record zone from mdns, client dnspython / dig",
                     " / ".join(_ms(value) for value in ixfr), "- (Designate's mdns answers "
                     "IXFR with the whole zone)", "-", "`axfr.py`"])
    return rows


def import_rows(out_dir: Path) -> list[list[str]]:
    result = _load(out_dir, "import")
    if result is None:
        return []
    rows = []
    for row in result["rows"]:
        rows.append(["100,000-record zone import on a PowerDNS pool: task COMPLETE / zone ACTIVE",
                     f"{_secs(row.get('complete_s'))} / {_secs(row.get('active_s'))}"
                     f" ({row.get('zone_status', row.get('error'))})", "-", "-",
                     "`import_big.py --rows pdns`"])
    return rows


def burst_rows(out_dir: Path) -> list[list[str]]:
    rows = []
    for stem, where in (("burst-sqlite", "SQLite"),
                        ("burst-postgresql-w2", "PostgreSQL, 2 API processes")):
        result = _load(out_dir, stem)
        if result is None:
            continue
        rows.append([f"1,000 zones by 20 clients, {where}: POSTs done / all ACTIVE; NOTIFYs to the "
                     "pool (most for one zone, busiest second)",
                     f"{_secs(result.get('posted_s'))} / {_secs(result.get('all_active_s'))}; "
                     f"{result.get('notifies')} for {result.get('notified_zones')} zones "
                     f"({result.get('notifies_max_per_zone')}, {result.get('notifies_busiest_second')})",
                     "-", "-", f"`burst.py{' --database postgresql --api-workers 2' if 'postgresql' in stem else ''}`"])
    return rows


def interleaved_rows(out_dir: Path) -> list[list[str]]:
    rows = []
    for stem, where in (("interleaved-sqlite", "SQLite"), ("interleaved-postgresql", "PostgreSQL")):
        result = _load(out_dir, stem)
        if result is None:
            continue
        ratios = [row["ratio"] for row in result["rounds"] if row.get("ratio")]
        rows.append([f"sequential recordset POSTs per s (httpx), {where}, ours and Designate's in "
                     f"alternating 1 s slices, median of {len(result['rounds'])} rounds (range of "
                     "the rounds' ratios)", _num(result.get("ours_median_per_s")),
                     _num(result.get("ref_median_per_s")),
                     f"{_times(result.get('median_ratio'))} ({_num(min(ratios, default=None))}-"
                     f"{_num(max(ratios, default=None))}×)", "`interleaved_writes.py "
                     f"--rounds 8{' --database postgresql' if where == 'PostgreSQL' else ''}`"])
    return rows


def render(out_dir: Path) -> str:
    runs = json.loads((out_dir / "runs.json").read_text()) if (out_dir / "runs.json").exists() else []
    machine = json.loads((out_dir / "machine.json").read_text()) \
        if (out_dir / "machine.json").exists() else {}
    lines = [f"Commit {machine.get('commit', '?')}, {machine.get('date', '?')}, "
             f"{machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}; "
             f"`bench/table.py` ({out_dir.name}). Each step, its time and the load average "
             "before → after it:", ""]
    for run in runs:
        failed = "" if run["exit"] == 0 else f", **exit {run['exit']}**"
        other = run.get("commit", machine.get("commit"))
        at = "" if other == machine.get("commit") else f", commit {other}"
        lines.append(f"* {run['started']}-{run['finished']} `{run['command']}` "
                     f"(load {run['load_before']:.1f} → {run['load_after']:.1f}{at}{failed})")
    lines += ["", "| figure | ours | real Designate 23.0.0 | ours better by | command |",
              "|---|---|---|---|---|"]
    for row in (api_rows(out_dir) + propagation_rows(out_dir) + pdns_rows(out_dir)
                + axfr_rows(out_dir) + import_rows(out_dir) + burst_rows(out_dir)
                + interleaved_rows(out_dir)):
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", default=",".join(STEPS), help=f"among {','.join(STEPS)}")
    ap.add_argument("--ref-dir", type=Path, default=Path(os.environ.get("REF_DIR", "/tmp/ref")))
    ap.add_argument("--no-ref", action="store_true", help="ours only (the ratio columns stay empty)")
    ap.add_argument("--out-dir", type=Path, default=None)
    ap.add_argument("--render", type=Path, default=None, help="print the table of this run's directory")
    args = ap.parse_args()
    if args.render:
        print(render(args.render))
        return 0
    steps = [step.strip() for step in args.steps.split(",") if step.strip()]
    unknown = [step for step in steps if step not in STEPS]
    if unknown:
        raise SystemExit(f"unknown steps {unknown}; choose among {list(STEPS)}")
    out_dir = args.out_dir or BENCH / "results" / f"table-{time.strftime('%Y%m%d-%H%M%S')}"
    out_dir.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    if not (out_dir / "machine.json").exists():  # (an earlier invocation's is kept)
        (out_dir / "machine.json").write_text(json.dumps({
            "commit": commit, "date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(),
            "python": platform.python_version()}))
    ref_dir = [] if args.no_ref else ["--ref-dir", str(args.ref_dir)]
    run_steps(steps, out_dir, ref_dir, commit)
    print(render(out_dir))
    print(f"\nresults: {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
