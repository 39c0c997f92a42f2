#!/usr/bin/env python3
"""Mixed write load from many projects against a scaled-out server, and time-to-ACTIVE of each change.

Starts our server as separate processes on a fresh PostgreSQL database (``cluster.py``: 2 API
processes, the first with the producer, 2 worker processes, one mdns + built-in nameserver
process), then runs ``--projects`` concurrent projects for ``--seconds`` (bounded also by
``--max-ops``). Each project creates, updates and deletes zones and A recordsets, and lists, on
both APIs in turn. Every request is recorded; every change is polled until it is ACTIVE (or,
for a delete, gone: 404). After the load, changes still in flight get ``--settle`` seconds more;
those that do not finish are counted. With ``--ref`` the same load, smaller, runs against the
real Designate 23.0.0 (/work/shared/ref) and ratios are printed. Figures are printed and written
to bench/results/, never asserted. See bench/README.md.

    .venv/bin/python bench/load.py [--quick] [--projects 20] [--seconds 60] [--ref]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import httpx
from cluster import DEADLOCK_MARKERS, Cluster, log_problems
from stats import percentile, summarize
from targets import Ref, RefUnavailable, ref_ports

# Relative weights of the operations a project picks from (when the operation is possible).
WEIGHTS = {"create_zone": 8, "update_zone": 8, "delete_zone": 4, "create_rs": 32, "update_rs": 24,
           "delete_rs": 10, "list_zones": 7, "list_rs": 7}
EXPECTED = {"create_zone": 202, "update_zone": 202, "delete_zone": 202, "create_rs": 202,
            "update_rs": 202, "delete_rs": 202, "list_zones": 200, "list_rs": 200, "poll": 200}
CHANGES = ("create_zone", "update_zone", "delete_zone", "create_rs", "update_rs", "delete_rs")


@dataclass
class Settings:
    label: str
    api_urls: list[str]
    projects: int
    seconds: float
    max_ops: int
    max_pending: int
    poll_s: float
    settle_s: float
    zones_per_project: int
    rs_per_zone: int
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:6])


@dataclass
class ZoneState:
    id: str
    name: str
    busy: bool = True  # a zone-level change in flight (create, update, delete)
    deleting: bool = False
    rs: dict[str, str] = field(default_factory=dict)  # recordset id -> name
    rs_busy: set[str] = field(default_factory=set)
    counter: int = 0


class Run:
    """Shared state of one load run: clients, request log, change log, counters."""

    def __init__(self, s: Settings):
        self.s = s
        self.clients = [httpx.AsyncClient(base_url=url, timeout=60,
                                          limits=httpx.Limits(max_connections=64, max_keepalive_connections=64))
                        for url in s.api_urls]
        self.requests: list[tuple[str, int, int, float, float]] = []  # op, api, status, latency, t
        self.changes: list[dict[str, Any]] = []
        self.bad_bodies: list[str] = []
        self.ops = 0
        self.t0 = time.perf_counter()
        self.stop_at = self.t0 + s.seconds
        self.trackers: set[asyncio.Task[None]] = set()
        self.rr = 0

    async def close(self) -> None:
        for client in self.clients:
            await client.aclose()

    async def request(self, op: str, project: str, method: str, path: str,
                      body: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> httpx.Response | None:
        """One request on the next API in turn; recorded whatever happens."""
        self.rr += 1
        api = self.rr % len(self.clients)
        headers = {"X-Auth-Project-ID": project, "Accept": "application/json"}
        t = time.perf_counter()
        try:
            resp = await self.clients[api].request(method, path, json=body, params=params, headers=headers)
        except httpx.HTTPError as exc:
            self.requests.append((op, api, 0, time.perf_counter() - t, t - self.t0))
            self.bad_bodies.append(f"{op} {method} {path}: {type(exc).__name__}: {exc}"[:400])
            return None
        self.requests.append((op, api, resp.status_code, time.perf_counter() - t, t - self.t0))
        if resp.status_code != EXPECTED.get(op, 200) and not (op == "poll" and resp.status_code == 404):
            self.bad_bodies.append(f"{op} {method} {path}: {resp.status_code} {resp.text[:300]}")
        return resp

    # ------------------------------------------------------------------ change tracking
    def track(self, op: str, project: str, path: str, t_start: float, gone: bool,
              done: Any) -> None:
        task = asyncio.ensure_future(self._track(op, project, path, t_start, gone, done))
        self.trackers.add(task)
        task.add_done_callback(self.trackers.discard)

    async def _track(self, op: str, project: str, path: str, t_start: float, gone: bool, done: Any) -> None:
        """Poll until ACTIVE (or 404 for a delete); the outcome goes to ``self.changes``."""
        entry: dict[str, Any] = {"op": op, "t": round(t_start - self.t0, 3), "seconds": None, "end": "timeout"}
        self.changes.append(entry)
        deadline = self.stop_at + self.s.settle_s
        try:
            while time.perf_counter() < deadline:
                resp = await self.request("poll", project, "GET", path)
                if resp is not None:
                    status = resp.json().get("status") if resp.status_code == 200 else None
                    finished = resp.status_code == 404 if gone else status == "ACTIVE"
                    if finished or status == "ERROR" or (resp.status_code == 404 and not gone):
                        entry["seconds"] = time.perf_counter() - t_start
                        entry["end"] = "done" if finished else (status or f"http {resp.status_code}")
                        return
                await asyncio.sleep(self.s.poll_s)
        finally:
            done()

    def pending(self) -> int:
        return len(self.trackers)


async def project_loop(run: Run, index: int) -> None:
    s = run.s
    project = f"load-{s.tag}-{index:02d}"
    zones: dict[str, ZoneState] = {}
    made = 0
    rng = random.Random(index)
    my_pending = [0]

    def release(flag: Any) -> Any:
        my_pending[0] += 1

        def done() -> None:
            my_pending[0] -= 1
            flag()
        return done

    while time.perf_counter() < run.stop_at and run.ops < s.max_ops:
        if my_pending[0] >= s.max_pending:
            await asyncio.sleep(s.poll_s)
            continue
        usable = [z for z in zones.values() if not z.busy and not z.deleting]
        quiet = [z for z in usable if not z.rs_busy]
        choices = []
        if len(zones) < s.zones_per_project:
            choices.append("create_zone")
        if quiet:
            choices += ["update_zone", "list_rs"]
            if len(quiet) > 2:
                choices.append("delete_zone")
        if usable:
            if any(len(z.rs) < s.rs_per_zone for z in usable):
                choices.append("create_rs")
            if any(set(z.rs) - z.rs_busy for z in usable):
                choices += ["update_rs", "delete_rs"]
        choices.append("list_zones")
        op = rng.choices(choices, weights=[WEIGHTS[c] for c in choices])[0]
        run.ops += 1
        t = time.perf_counter()
        if op == "create_zone":
            made += 1
            name = f"z{made:04d}.{project}.{s.tag}.example."
            resp = await run.request(op, project, "POST", "/v2/zones",
                                     {"name": name, "email": f"hostmaster@{s.tag}.example", "ttl": 3600})
            if resp is not None and resp.status_code == 202:
                zone = ZoneState(resp.json()["id"], name)
                zones[zone.id] = zone
                run.track(op, project, f"/v2/zones/{zone.id}", t, False,
                          release(lambda z=zone: setattr(z, "busy", False)))
        elif op in ("update_zone", "delete_zone", "list_rs"):
            zone = rng.choice(quiet)
            if op == "list_rs":
                await run.request(op, project, "GET", f"/v2/zones/{zone.id}/recordsets")
                continue
            if op == "update_zone":
                resp = await run.request(op, project, "PATCH", f"/v2/zones/{zone.id}",
                                         {"ttl": rng.randint(300, 7200), "description": f"load {t:.3f}"})
            else:
                resp = await run.request(op, project, "DELETE", f"/v2/zones/{zone.id}")
            if resp is not None and resp.status_code == 202:
                zone.busy = True
                zone.deleting = op == "delete_zone"
                if zone.deleting:
                    def gone(z: ZoneState = zone) -> None:
                        zones.pop(z.id, None)
                    run.track(op, project, f"/v2/zones/{zone.id}", t, True, release(gone))
                else:
                    run.track(op, project, f"/v2/zones/{zone.id}", t, False,
                              release(lambda z=zone: setattr(z, "busy", False)))
        elif op == "create_rs":
            zone = rng.choice([z for z in usable if len(z.rs) < s.rs_per_zone])
            zone.counter += 1
            name = f"h{zone.counter:04d}.{zone.name}"
            resp = await run.request(op, project, "POST", f"/v2/zones/{zone.id}/recordsets",
                                     {"name": name, "type": "A", "ttl": 300,
                                      "records": [f"192.0.2.{rng.randint(1, 254)}"]})
            if resp is not None and resp.status_code == 202:
                rs_id = resp.json()["id"]
                zone.rs[rs_id] = name
                zone.rs_busy.add(rs_id)
                run.track(op, project, f"/v2/zones/{zone.id}/recordsets/{rs_id}", t, False,
                          release(lambda z=zone, r=rs_id: z.rs_busy.discard(r)))
        elif op in ("update_rs", "delete_rs"):
            zone = rng.choice([z for z in usable if set(z.rs) - z.rs_busy])
            rs_id = rng.choice(sorted(set(zone.rs) - zone.rs_busy))
            path = f"/v2/zones/{zone.id}/recordsets/{rs_id}"
            if op == "update_rs":
                resp = await run.request(op, project, "PUT", path,
                                         {"records": [f"198.51.100.{rng.randint(1, 254)}",
                                                      f"203.0.113.{rng.randint(1, 254)}"]})
            else:
                resp = await run.request(op, project, "DELETE", path)
            if resp is not None and resp.status_code == 202:
                zone.rs_busy.add(rs_id)
                if op == "delete_rs":
                    def rs_gone(z: ZoneState = zone, r: str = rs_id) -> None:
                        z.rs_busy.discard(r)
                        z.rs.pop(r, None)
                    run.track(op, project, path, t, True, release(rs_gone))
                else:
                    run.track(op, project, path, t, False,
                              release(lambda z=zone, r=rs_id: z.rs_busy.discard(r)))
        else:
            await run.request(op, project, "GET", "/v2/zones", params={"limit": 20})


async def load(s: Settings) -> dict[str, Any]:
    run = Run(s)
    cpu0 = time.process_time()
    print(f"== {s.label}: {s.projects} projects for {s.seconds:.0f} s on {len(s.api_urls)} API(s), "
          f"at most {s.max_pending} changes in flight per project, poll every {s.poll_s * 1000:.0f} ms", flush=True)
    try:
        loops = [asyncio.ensure_future(project_loop(run, i)) for i in range(s.projects)]
        await asyncio.gather(*loops)
        load_end = time.perf_counter()
        left = run.pending()
        print(f"  load done after {load_end - run.t0:.1f} s ({run.ops} ops); {left} changes in flight, "
              f"waiting up to {s.settle_s:.0f} s", flush=True)
        while run.trackers and time.perf_counter() < run.stop_at + s.settle_s + 5:
            await asyncio.sleep(0.1)
        for task in list(run.trackers):
            task.cancel()
        settle_end = time.perf_counter()
    finally:
        await run.close()
    return summarize_run(run, load_end - run.t0, settle_end - load_end, time.process_time() - cpu0)


def summarize_run(run: Run, load_s: float, settle_s: float, client_cpu: float) -> dict[str, Any]:
    in_window = [r for r in run.requests if r[4] <= load_s]
    per_op: dict[str, Any] = {}
    for op in EXPECTED:
        lat = sorted(r[3] for r in run.requests if r[0] == op)
        if not lat:
            continue
        n_window = sum(1 for r in in_window if r[0] == op)
        per_op[op] = {"n": len(lat), "per_s": round(n_window / load_s, 1),
                      "p50_ms": round(1000 * percentile(lat, 50), 1), "p99_ms": round(1000 * percentile(lat, 99), 1),
                      "max_ms": round(1000 * lat[-1], 1)}
    statuses = Counter(r[2] for r in run.requests)
    unexpected = Counter(f"{r[0]} {r[2]}" for r in run.requests
                         if r[2] != EXPECTED[r[0]] and not (r[0] == "poll" and r[2] == 404))
    per_api = Counter(r[1] for r in run.requests)
    changes: dict[str, Any] = {}
    for op in CHANGES:
        entries = [c for c in run.changes if c["op"] == op]
        if entries:
            summary = summarize(c["seconds"] for c in entries if c["end"] == "done")
            summary["not_done"] = sum(1 for c in entries if c["end"] != "done")
            summary["ends"] = dict(Counter(c["end"] for c in entries))
            changes[op] = summary
    done_all = summarize(c["seconds"] for c in run.changes if c["end"] == "done")
    writes = sum(1 for r in in_window if r[0] in CHANGES)
    bodies = "\n".join(run.bad_bodies).lower()
    return {
        "label": run.s.label, "settings": {k: v for k, v in vars(run.s).items() if k != "api_urls"},
        "api_urls": run.s.api_urls, "load_seconds": round(load_s, 2), "settle_seconds": round(settle_s, 2),
        "ops": run.ops, "requests": len(run.requests), "requests_per_s": round(len(in_window) / load_s, 1),
        "writes_per_s": round(writes / load_s, 1),
        "ops_per_s": round(sum(1 for r in in_window if r[0] != "poll") / load_s, 1),
        "per_op": per_op, "status_counts": {str(k): v for k, v in sorted(statuses.items())},
        "http_5xx": sum(v for k, v in statuses.items() if k >= 500), "transport_errors": statuses.get(0, 0),
        "unexpected": dict(unexpected), "per_api_requests": {str(k): v for k, v in sorted(per_api.items())},
        "deadlock_type_in_responses": sum(bodies.count(m) for m in DEADLOCK_MARKERS),
        "bad_responses_sample": run.bad_bodies[:20], "changes": changes, "changes_all": done_all,
        "changes_total": len(run.changes), "changes_not_done": sum(1 for c in run.changes if c["end"] != "done"),
        "client_cpu_s": round(client_cpu, 1),
    }


# ---------------------------------------------------------------------- targets
def run_ours(args: argparse.Namespace, label: str = "ours", projects: int | None = None,
             seconds: float | None = None) -> dict[str, Any]:
    storage = {"max_overflow": args.max_overflow} if args.max_overflow >= 0 else {}
    cluster = Cluster(apis=2, workers=2, project="load", options={"storage:sqlalchemy": storage})
    try:
        t = time.perf_counter()
        cluster.start()
        print(f"ours: APIs {', '.join(cluster.api_urls)}, 2 workers, mdns :{cluster.mdns_port}, "
              f"nameserver :{cluster.ns_port}, database {cluster.first.database.name} "
              f"(started in {time.perf_counter() - t:.1f} s)", flush=True)
        time.sleep(2)
        mem_before, cpu_before = cluster.memory(), cluster.cpu()
        s = Settings(label, cluster.api_urls, projects or args.projects, seconds or args.seconds, args.max_ops,
                     args.max_pending,
                     args.poll, args.settle, args.zones_per_project, args.rs_per_zone)
        result = asyncio.run(load(s))
        cpu_after = cluster.cpu()
        result["processes"] = {p.name: {"roles": p.roles, "rss_before": mem_before[p.name],
                                        "rss_after": m, "cpu_s": round(cpu_after[p.name] - cpu_before[p.name], 1)}
                               for p, m in zip(cluster.procs, cluster.memory().values())}
        result["log_problems"] = log_problems(cluster.logs())
        if result["changes_not_done"] or any(v["tracebacks"] or v["error_lines"]
                                             for v in result["log_problems"].values()):
            logs = (args.out or BENCH / "results" / f"load-{time.strftime('%Y%m%d-%H%M%S')}").with_suffix(".logs")
            cluster.save_logs(logs)
            result["logs_saved_to"] = str(logs)
            print(f"server logs with errors copied to {logs}", flush=True)
        return result
    except Exception as exc:  # noqa: BLE001 - reported in the output
        return {"label": label, "error": f"{type(exc).__name__}: {exc}"}
    finally:
        cluster.stop()


async def delete_ref_projects(url: str, projects: list[str]) -> int:
    """Leave the shared reference database as it was: delete this run's zones (bounded)."""
    deleted = 0
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for project in projects:
            headers = {"X-Auth-Project-ID": project}
            for _ in range(5):
                resp = await client.get("/v2/zones", params={"limit": 1000}, headers=headers)
                zones = [z for z in resp.json().get("zones", []) if z.get("action") != "DELETE"]
                if not zones:
                    break
                for zone in zones:
                    deleted += (await client.delete(f"/v2/zones/{zone['id']}", headers=headers)).status_code == 202
    return deleted


def run_ref(args: argparse.Namespace) -> dict[str, Any]:
    ref = Ref(args.ref_scripts, args.ref_dir, ref_ports())
    try:
        print(f"ref: setting up / starting Designate 23.0.0 (log {ref.log})", flush=True)
        target = ref.start()
        s = Settings("ref", [target.api_url], args.ref_projects, args.ref_seconds, args.max_ops, args.max_pending,
                     args.ref_poll, args.ref_settle, args.zones_per_project, args.rs_per_zone)
        result = asyncio.run(load(s))
        projects = [f"load-{s.tag}-{i:02d}" for i in range(s.projects)]
        result["cleanup_zones_deleted"] = asyncio.run(delete_ref_projects(target.api_url, projects))
        result["notes"] = target.notes
        return result
    except RefUnavailable as exc:
        return {"label": "ref", "unavailable": str(exc)}
    except Exception as exc:  # noqa: BLE001
        return {"label": "ref", "error": f"{type(exc).__name__}: {exc}"}
    finally:
        ref.stop()


# ---------------------------------------------------------------------- output
def ms(v: Any) -> str:
    return "-" if v is None else f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def secs(v: Any) -> str:
    return "-" if v is None else f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s"


def print_result(r: dict[str, Any]) -> None:
    if "error" in r or "unavailable" in r:
        print(f"{r['label']}: {r.get('error') or r.get('unavailable')}")
        return
    s = r["settings"]
    print(f"\n### {r['label']}: {s['projects']} projects, {r['load_seconds']} s, {r['ops']} operations, "
          f"{r['requests']} requests (incl. status polls)")
    print(f"operations (not polls) {r['ops_per_s']}/s, of which writes {r['writes_per_s']}/s; all requests "
          f"{r['requests_per_s']}/s; requests per API process {r['per_api_requests']}")
    print(f"{'request':<12} {'n':>7} {'per s':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}")
    for op, v in r["per_op"].items():
        print(f"{op:<12} {v['n']:>7} {v['per_s']:>7} {ms(v['p50_ms']):>7} {ms(v['p99_ms']):>7} {ms(v['max_ms']):>7}")
    print(f"HTTP 5xx: {r['http_5xx']}   transport errors: {r['transport_errors']}   deadlock-type errors in "
          f"responses: {r['deadlock_type_in_responses']}   unexpected statuses: {r['unexpected'] or 'none'}")
    if "log_problems" in r:
        lp = r["log_problems"]
        print("server logs: " + ", ".join(f"{n} {v['tracebacks']} tracebacks/{v['error_lines']} ERROR lines/"
                                           f"{v['deadlock_type']} deadlock-type" for n, v in lp.items()))
    print(f"time to ACTIVE (delete: to 404), from before the request; polled every {s['poll_s'] * 1000:.0f} ms")
    print(f"{'change':<12} {'n':>6} {'p50':>9} {'p99':>9} {'max':>9} {'not done':>9}")
    for op, v in r["changes"].items():
        print(f"{op:<12} {v['n'] + v['not_done']:>6} {secs(v.get('p50')):>9} {secs(v.get('p99')):>9} "
              f"{secs(v.get('max')):>9} {v['not_done']:>9}")
    a = r["changes_all"]
    print(f"{'all':<12} {r['changes_total']:>6} {secs(a.get('p50')):>9} {secs(a.get('p99')):>9} "
          f"{secs(a.get('max')):>9} {r['changes_not_done']:>9}   (bound: end of load + {s['settle_s']:.0f} s)")
    if "processes" in r:
        print("processes: " + "; ".join(f"{n} cpu {v['cpu_s']} s, RSS {v['rss_before']['rss_mb']:.0f}->"
                                        f"{v['rss_after']['rss_mb']:.0f} MB" for n, v in r["processes"].items()))
    print(f"load generator CPU: {r['client_cpu_s']} s")


def print_ratios(ours: dict[str, Any], ref: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []

    def add(label: str, a: Any, b: Any, better: str) -> None:
        ratio = a / b if a is not None and b not in (None, 0) else None
        rows.append({"figure": label, "ours": a, "ref": b, "ours_over_ref": ratio, "better": better})
    add("operations per s", ours["ops_per_s"], ref["ops_per_s"], "higher")
    add("writes per s", ours["writes_per_s"], ref["writes_per_s"], "higher")
    for op in ("create_zone", "update_zone", "create_rs", "update_rs", "delete_rs", "list_zones"):
        if op in ours["per_op"] and op in ref["per_op"]:
            add(f"{op} p50 ms", ours["per_op"][op]["p50_ms"], ref["per_op"][op]["p50_ms"], "lower")
            add(f"{op} p99 ms", ours["per_op"][op]["p99_ms"], ref["per_op"][op]["p99_ms"], "lower")
    for op in ("create_zone", "update_zone", "create_rs", "update_rs", "delete_rs", "delete_zone"):
        if op in ours["changes"] and op in ref["changes"]:
            add(f"{op} -> ACTIVE p50 s", ours["changes"][op].get("p50"), ref["changes"][op].get("p50"), "lower")
            add(f"{op} -> ACTIVE p99 s", ours["changes"][op].get("p99"), ref["changes"][op].get("p99"), "lower")
    add("all changes -> ACTIVE p50 s", ours["changes_all"].get("p50"), ref["changes_all"].get("p50"), "lower")
    add("all changes -> ACTIVE max s", ours["changes_all"].get("max"), ref["changes_all"].get("max"), "lower")
    print(f"\n### ours / ref, both {ref['settings']['projects']} projects for {ref['settings']['seconds']:.0f} s, "
          f"same mix and in-flight cap (ours polled every {ours['settings']['poll_s'] * 1000:.0f} ms, "
          f"the ref every {ref['settings']['poll_s'] * 1000:.0f} ms)")
    print(f"{'figure':<32} {'ours':>10} {'ref':>10} {'ours/ref':>9}  better")
    for row in rows:
        def fmt(v: Any) -> str:
            return "-" if v is None else f"{v:.3f}" if v < 10 else f"{v:.1f}"
        print(f"{row['figure']:<32} {fmt(row['ours']):>10} {fmt(row['ref']):>10} "
              f"{fmt(row['ours_over_ref']):>9}  {row['better']}")
    return rows


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="15 s of load (ref: 10 s)")
    ap.add_argument("--projects", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=None, help="length of the load (default 60, quick 15)")
    ap.add_argument("--max-ops", type=int, default=200_000, help="upper bound on operations, whatever the time")
    ap.add_argument("--max-pending", type=int, default=4, help="changes in flight per project (default 4)")
    ap.add_argument("--poll", type=float, default=0.02, help="status poll interval for ours (s)")
    ap.add_argument("--settle", type=float, default=30.0, help="seconds after the load for changes to finish")
    ap.add_argument("--zones-per-project", type=int, default=8)
    ap.add_argument("--rs-per-zone", type=int, default=25)
    ap.add_argument("--max-overflow", type=int, default=10,
                    help="[storage:sqlalchemy] max_overflow of each of our 5 processes (default 10: 5 x (5 + 10) "
                         "connections fit PostgreSQL's max_connections=100; -1 = the server default, 50)")
    ap.add_argument("--ref", action="store_true", help="also run a smaller load against the real Designate")
    ap.add_argument("--ref-projects", type=int, default=5)
    ap.add_argument("--ref-seconds", type=float, default=None, help="default 30, quick 10")
    ap.add_argument("--ref-poll", type=float, default=0.5, help="status poll interval for the ref (s)")
    ap.add_argument("--ref-settle", type=float, default=120.0)
    ap.add_argument("--ref-scripts", type=Path, default=Path("/work/shared/ref"))
    ap.add_argument("--ref-dir", type=Path, default=Path(os.environ.get("REF_DIR", "/tmp/ref")))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 15.0 if args.quick else 60.0
    if args.ref_seconds is None:
        args.ref_seconds = 10.0 if args.quick else 30.0
    return args


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks: stop what we started
    args = parse_args()
    out: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "argv": sys.argv[1:],
                           "cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg()}
    out["ours"] = run_ours(args)
    print_result(out["ours"])
    if args.ref:
        # The same (smaller) load as the ref's, against a fresh cluster of ours: the ratios compare these two.
        out["ours_at_ref_size"] = run_ours(args, "ours at the ref's size", args.ref_projects, args.ref_seconds)
        print_result(out["ours_at_ref_size"])
        out["ref"] = run_ref(args)
        print_result(out["ref"])
        if "per_op" in out["ours_at_ref_size"] and "per_op" in out["ref"]:
            out["ratios"] = print_ratios(out["ours_at_ref_size"], out["ref"])
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    path = args.out or BENCH / "results" / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str))
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
