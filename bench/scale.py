#!/usr/bin/env python3
"""Read latency, AXFR and time-to-ACTIVE with 100,000 zones and 1,000,000 recordsets in PostgreSQL.

Starts our server scaled out on a fresh PostgreSQL database (``cluster.py``: one API process with
the producer, one worker, one mdns + built-in nameserver process), creates a small zone through
the API (10 A recordsets), bulk-loads one 1,000-recordset zone, and measures ("small" column).
Then it bulk-loads the rest (by default 99,998 zones of 10 A recordsets each, all in the same
project) and measures the same things again ("large" column).

The bulk loader bypasses the API ON PURPOSE: a million recordsets through the API would take
hours here and would measure the write path, which load.py and propagation.py already do. It
writes rows that look exactly like API-made ones (ACTIVE zones with their SOA and apex NS
recordsets, ACTIVE records with their serial and hash) with PostgreSQL ``COPY``; the column
lists come from the project's storage models (``storage/models.py``), the SOA text and the
record hash from the project's own functions. Then it runs ``ANALYZE``.

With ``--explain``, the statements the storage layer runs for each list (captured from the
project's own ``storage.zones.find`` / ``storage.recordsets.find``) are timed and EXPLAIN
ANALYZEd on the large database. Figures are printed and written to bench/results/, never
asserted. See bench/README.md.

    .venv/bin/python bench/scale.py [--quick] [--zones 100000] [--per-zone 10] [--explain]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import signal
import sys
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import dns.exception
import dns.message
import dns.query
import dns.rdatatype
import httpx
import psycopg2
from cluster import Cluster, log_problems
from sqlalchemy.engine import make_url
from stats import summarize

from openkeel_designate.domain.rrtypes.soa import soa_data
from openkeel_designate.storage.models import Record, RecordSet, Zone, utcnow
from openkeel_designate.storage.recordsets import record_hash

PROJECT = "scale"
OTHER = "scale-other"  # a second project with one zone (through the API): its list must not depend on PROJECT
EMAIL = "hostmaster@scale.test"


# ---------------------------------------------------------------------- bulk loader
def _pg_connect(url: str) -> Any:
    u = make_url(url)
    return psycopg2.connect(host=u.host or "127.0.0.1", port=u.port or 5432, dbname=u.database,
                            user=u.query.get("user") or u.username or "postgres", connect_timeout=10)


def _cell(value: Any) -> str:
    if value is None:
        return r"\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    text = str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


class BulkLoader:
    """Zones, their SOA/NS, and A recordsets with one record each, by COPY (see the module doc)."""

    def __init__(self, url: str):
        self.conn = _pg_connect(url)
        with self.conn.cursor() as cur:
            cur.execute("SELECT p.id, n.hostname FROM pools p JOIN pool_ns_records n ON n.pool_id = p.id "
                        "WHERE p.name = 'default' ORDER BY n.priority")
            rows = cur.fetchall()
        self.pool_id = rows[0][0]
        self.ns_hosts = [r[1] for r in rows]
        self.columns = {model: [c.name for c in model.__table__.columns] for model in (Zone, RecordSet, Record)}
        self.serial = int(time.time())
        self.clock = utcnow()

    def close(self) -> None:
        self.conn.close()

    def _tick(self) -> datetime:
        self.clock += timedelta(microseconds=1)  # distinct created_at: a stable list order
        return self.clock

    def load(self, zones: list[tuple[str, int]]) -> list[str]:
        """Insert ``(name, n_a_recordsets)`` zones; returns their ids. One transaction per call."""
        bufs = {model: io.StringIO() for model in self.columns}
        ids = []
        for name, n_rs in zones:
            zone_id = str(uuid.uuid4())
            ids.append(zone_id)
            shard = int(zone_id[:3], 16)
            zone = {"id": zone_id, "version": 1, "deleted": "0", "deleted_at": None, "shard": shard,
                    "tenant_id": PROJECT, "name": name, "email": EMAIL, "ttl": 3600, "refresh": 3500,
                    "retry": 600, "expire": 86400, "minimum": 3600, "parent_zone_id": None,
                    "serial": self.serial, "description": None, "status": "ACTIVE", "action": "NONE",
                    "pool_id": self.pool_id, "reverse_name": name[::-1], "type": "PRIMARY",
                    "name_key": name.lower(), "reverse_key": name.lower()[::-1],
                    "transferred_at": None, "delayed_notify": False, "increment_serial": False,
                    "change_seq": 1, "hard_delete": False, "lease_owner": None, "lease_expires_at": None,
                    "attempts": 0, "next_attempt_at": None, "error_reason": None,
                    "created_at": self._tick(), "updated_at": None}
            self._row(bufs, Zone, zone)
            soa = soa_data(SimpleNamespace(**zone), self.ns_hosts[0])
            sets = [(name, "SOA", None, [soa], True), (name, "NS", None, self.ns_hosts, True)]
            sets += [(f"h{i:04d}.{name}", "A", 300, [f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"], False)
                     for i in range(n_rs)]
            for rs_name, rtype, ttl, datas, managed in sets:
                rs_id = str(uuid.uuid4())
                created = self._tick()
                self._row(bufs, RecordSet, {"id": rs_id, "version": 1, "zone_shard": shard, "tenant_id": PROJECT,
                                            "zone_tenant_id": PROJECT,
                                            "zone_id": zone_id, "name": rs_name, "name_key": rs_name.lower(),
                                            "type": rtype, "ttl": ttl,
                                            "description": None, "reverse_name": rs_name[::-1],
                                            "created_at": created, "updated_at": None})
                for data in datas:
                    self._row(bufs, Record, {
                        "id": str(uuid.uuid4()), "version": 1, "zone_shard": shard, "tenant_id": PROJECT,
                        "zone_id": zone_id, "recordset_id": rs_id, "data": data, "description": None,
                        "hash": record_hash(rs_id, data), "managed": managed, "managed_extra": None,
                        "managed_plugin_type": None, "managed_plugin_name": None, "managed_resource_type": None,
                        "managed_resource_region": None, "managed_resource_id": None, "managed_tenant_id": None,
                        "status": "ACTIVE", "action": "NONE", "serial": self.serial,
                        "created_at": created, "updated_at": None})
        with self.conn.cursor() as cur:
            for model in (Zone, RecordSet, Record):  # foreign keys: zones, then recordsets, then records
                bufs[model].seek(0)
                cols = ", ".join(self.columns[model])
                cur.copy_expert(f"COPY {model.__tablename__} ({cols}) FROM STDIN", bufs[model])
        self.conn.commit()
        return ids

    def _row(self, bufs: dict[Any, io.StringIO], model: Any, values: dict[str, Any]) -> None:
        """A column this loader does not name is NULL (a NOT NULL one fails the COPY loudly)."""
        bufs[model].write("\t".join(_cell(values.get(c)) for c in self.columns[model]) + "\n")

    def analyze(self) -> None:
        self.conn.autocommit = True
        with self.conn.cursor() as cur:
            cur.execute("ANALYZE zones; ANALYZE recordsets; ANALYZE records")
        self.conn.autocommit = False

    def nth_recordset(self, fraction: float) -> str:
        """Id of the project's recordset at ``fraction`` of its (created_at, id) list."""
        with self.conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM recordsets WHERE tenant_id = %s", (PROJECT,))
            offset = int(cur.fetchone()[0] * fraction)
            cur.execute("SELECT id FROM recordsets WHERE tenant_id = %s ORDER BY created_at, id "
                        "OFFSET %s LIMIT 1", (PROJECT, offset))
            return cur.fetchone()[0]

    def counts(self) -> dict[str, int]:
        with self.conn.cursor() as cur:
            out = {}
            for table in ("zones", "recordsets", "records"):
                cur.execute(f"SELECT count(*) FROM {table}")
                out[table] = cur.fetchone()[0]
            cur.execute("SELECT pg_database_size(current_database())")
            out["database_mb"] = round(cur.fetchone()[0] / 2 ** 20)
        return out


# ---------------------------------------------------------------------- measurements
def timed_gets(client: httpx.Client, path: str, n: int, headers: dict[str, str] | None = None,
               params: dict[str, Any] | None = None) -> dict[str, Any]:
    """``n`` sequential GETs (after one warm-up): latency summary in ms, and what the page held."""
    resp = client.get(path, headers=headers, params=params)
    resp.raise_for_status()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        r = client.get(path, headers=headers, params=params)
        times.append((time.perf_counter() - t) * 1000)
        if r.status_code != 200:
            raise RuntimeError(f"GET {path}: {r.status_code} {r.text[:200]}")
    body = resp.json()
    items = next((v for k, v in body.items() if isinstance(v, list)), [])
    meta = body.get("metadata", {})
    return summarize(times) | {"items": len(items), "total_count": meta.get("total_count")}


def timed_zone_posts(client: httpx.Client, n: int) -> dict[str, Any]:
    """``n`` sequential zone POSTs (new names below one of the project's bulk domains, so that
    the create's lookup of related zones has neighbours), latency in ms; the zones are deleted
    again so that the next figures see the same database."""
    tag = uuid.uuid4().hex[:6]
    # the bulk load filled the project up to the benchmarks' zone quota
    client.patch(f"/v2/quotas/{PROJECT}", json={"zones": 10_000_000},
                 headers={"X-Roles": "admin", "X-Auth-All-Projects": "true"}).raise_for_status()
    times, created = [], []
    for i in range(n):
        t = time.perf_counter()
        r = client.post("/v2/zones", json={"name": f"new{i}-{tag}.scale-bulk.test.", "email": EMAIL})
        times.append((time.perf_counter() - t) * 1000)
        if r.status_code != 202:
            raise RuntimeError(f"POST /v2/zones: {r.status_code} {r.text[:200]}")
        created.append(r.json()["id"])
    for zone_id in created:
        client.delete(f"/v2/zones/{zone_id}")
    return summarize(times) | {"items": n, "total_count": None}


def axfr(port: int, zone: str, n: int) -> dict[str, Any]:
    """``n`` AXFRs of ``zone`` from mdns over TCP (dnspython), ms; RR count of the last one."""
    times, rrs = [], 0
    for _ in range(n + 1):
        t = time.perf_counter()
        rrs = 0
        for msg in dns.query.xfr("127.0.0.1", zone, port=port, timeout=10, lifetime=30):
            rrs += sum(len(rrset) for rrset in msg.answer)
        times.append((time.perf_counter() - t) * 1000)
    return summarize(times[1:]) | {"rrs": rrs}


def _answers(port: int, name: str, ip: str) -> bool:
    try:
        ans = dns.query.udp(dns.message.make_query(name, "A"), "127.0.0.1", port=port, timeout=0.5)
    except (dns.exception.DNSException, OSError):  # a lost datagram: asked again on the next round
        return False
    return any(rd.to_text() == ip for rrset in ans.answer for rd in rrset)


def time_to_active(client: httpx.Client, zone_id: str, rs_id: str, n: int, ns_port: int,
                   rs_name: str) -> dict[str, Any]:
    """PUT the recordset ``n`` times; seconds until GET says ACTIVE (10 ms polls) and until the
    built-in nameserver answers the new address."""
    active, answered = [], []
    path = f"/v2/zones/{zone_id}/recordsets/{rs_id}"
    for i in range(n):
        ip = f"198.51.100.{i % 250 + 1}"
        t = time.perf_counter()
        r = client.put(path, json={"records": [ip]})
        if r.status_code != 202:
            raise RuntimeError(f"PUT {path}: {r.status_code} {r.text[:200]}")
        got_active = got_answer = None
        deadline = t + 30
        while time.perf_counter() < deadline and (got_active is None or got_answer is None):
            if got_active is None and client.get(path).json().get("status") == "ACTIVE":
                got_active = time.perf_counter() - t
            if got_answer is None and _answers(ns_port, rs_name, ip):
                got_answer = time.perf_counter() - t
            time.sleep(0.01)
        active.append(got_active)
        answered.append(got_answer)
        time.sleep(0.1)
    return {"active_ms": summarize(None if v is None else v * 1000 for v in active),
            "answered_ms": summarize(None if v is None else v * 1000 for v in answered)}


def measure(cluster: Cluster, ids: dict[str, Any], args: argparse.Namespace, label: str) -> dict[str, Any]:
    n = args.samples
    out: dict[str, Any] = {}
    hide = {"OpenStack-DNS-Hide-Counts": "True"}
    with httpx.Client(base_url=cluster.api_urls[0], timeout=120,
                      headers={"X-Auth-Project-ID": PROJECT, "Accept": "application/json"}) as client:
        steps = [
            ("GET /v2/zones (first page)", lambda: timed_gets(client, "/v2/zones", n)),
            ("GET /v2/zones (first page, hide counts)", lambda: timed_gets(client, "/v2/zones", n, hide)),
            ("GET /v2/zones?marker= (deep page)",
             lambda: timed_gets(client, "/v2/zones", n, params={"marker": ids["deep_marker"], "limit": 20})),
            ("GET /v2/zones?name=", lambda: timed_gets(client, "/v2/zones", n, params={"name": ids["name_filter"]})),
            ("GET /v2/zones/{id}", lambda: timed_gets(client, f"/v2/zones/{ids['small']}", n)),
            ("GET recordsets, 10-record zone", lambda: timed_gets(client, f"/v2/zones/{ids['small']}/recordsets", n)),
            ("GET recordsets, 10-record zone, hide counts",
             lambda: timed_gets(client, f"/v2/zones/{ids['small']}/recordsets", n, hide)),
            ("GET recordsets, 1000-record zone", lambda: timed_gets(client, f"/v2/zones/{ids['big']}/recordsets", n)),
            ("GET recordsets, 1000-record zone, hide counts",
             lambda: timed_gets(client, f"/v2/zones/{ids['big']}/recordsets", n, hide)),
            ("GET /v2/recordsets (every zone of the project)", lambda: timed_gets(client, "/v2/recordsets", n)),
            ("GET /v2/recordsets (every zone), hide counts",
             lambda: timed_gets(client, "/v2/recordsets", n, hide)),
            ("GET /v2/recordsets?marker= (deep page), hide counts",
             lambda: timed_gets(client, "/v2/recordsets", n, hide,
                                params={"marker": ids["rs_deep_marker"], "limit": 20})),
            ("GET /v2/recordsets, other project (1 zone)",
             lambda: timed_gets(client, "/v2/recordsets", n, {"X-Auth-Project-ID": OTHER})),
            ("POST /v2/zones (a new zone)", lambda: timed_zone_posts(client, n)),
            ("AXFR 10-record zone from mdns", lambda: axfr(cluster.mdns_port, ids["small_name"], n)),
            ("recordset PUT in 10-record zone",
             lambda: time_to_active(client, ids["small"], ids["small_rs"], args.active_samples, cluster.ns_port,
                                    ids["small_rs_name"])),
        ]
        for name, step in steps:
            try:
                out[name] = step()
            except Exception as exc:  # noqa: BLE001 - reported, the other steps still run
                out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            print(f"  [{label}] {name}: {brief(out[name])}", flush=True)
    return out


def brief(v: dict[str, Any]) -> str:
    if "error" in v:
        return v["error"]
    if "active_ms" in v:
        a, d = v["active_ms"], v["answered_ms"]
        return f"ACTIVE p50 {a.get('p50', 0):.0f} ms p95 {a.get('p95', 0):.0f} ms; answered p50 " \
               f"{d.get('p50', 0):.0f} ms ({a['failed']} not ACTIVE)"
    extra = f", {v['rrs']} RRs" if "rrs" in v else f", {v['items']} items, total_count {v['total_count']}"
    return f"p50 {v['p50']:.1f} ms p95 {v['p95']:.1f} ms{extra}"


# ---------------------------------------------------------------------- EXPLAIN
async def explain(url: str, ids: dict[str, Any]) -> list[dict[str, Any]]:
    """Run the storage layer's list functions, capture their SQL, time it and EXPLAIN ANALYZE it."""
    from sqlalchemy import event
    from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

    from openkeel_designate.storage import recordsets as rs_store
    from openkeel_designate.storage import zones as zone_store
    from openkeel_designate.storage.database import async_url
    from openkeel_designate.domain.paging import Page

    engine = create_async_engine(async_url(url))
    captured: list[tuple[str, Any]] = []

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _capture(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        captured.append((statement, parameters))

    cases = [
        ("zones first page", lambda s: zone_store.find(s, Page(limit=20), project_id=PROJECT, all_tenants=False,
                                                      hide_catalog=True)),
        ("zones deep page", lambda s: zone_store.find(s, Page(limit=20, marker=ids["deep_marker"]),
                                                     project_id=PROJECT, all_tenants=False, hide_catalog=True)),
        ("zones name filter", lambda s: zone_store.find(s, Page(limit=20, criteria={"name": ids["name_filter"]}),
                                                       project_id=PROJECT, all_tenants=False, hide_catalog=True)),
        ("recordsets 1000-record zone", lambda s: rs_store.find(s, Page(limit=20), zone_id=ids["big"],
                                                               project_id=PROJECT, all_tenants=False)),
        ("recordsets of every zone", lambda s: rs_store.find(s, Page(limit=20), zone_id=None,
                                                            project_id=PROJECT, all_tenants=False)),
        ("recordsets of every zone, deep page, no count",
         lambda s: rs_store.find(s, Page(limit=20, marker=ids["rs_deep_marker"]), zone_id=None,
                                 project_id=PROJECT, all_tenants=False, count=False)),
        ("recordsets of every zone, other project", lambda s: rs_store.find(
            s, Page(limit=20), zone_id=None, project_id=OTHER, all_tenants=False)),
    ]
    out = []
    try:
        for label, call in cases:
            async with AsyncSession(engine) as session:
                captured.clear()
                await call(session)
                statements = list(captured)
                for statement, params in statements:
                    async with engine.connect() as conn:
                        t = time.perf_counter()
                        await conn.exec_driver_sql(statement, params)
                        elapsed = (time.perf_counter() - t) * 1000
                        plan = (await conn.exec_driver_sql("EXPLAIN (ANALYZE, BUFFERS) " + statement, params)).all()
                    out.append({"case": label, "ms": round(elapsed, 2), "sql": statement, "params": repr(params),
                                "plan": [row[0] for row in plan]})
    finally:
        await engine.dispose()
    return out


# ---------------------------------------------------------------------- run
def api_setup(cluster: Cluster) -> dict[str, Any]:
    """The small zone through the API (10 A recordsets, waited until ACTIVE), and the other
    project's zone (the same, not waited for)."""
    other = _api_zone(cluster, OTHER, "other.scale-api.test.", wait=False)
    return _api_zone(cluster, PROJECT, "small.scale-api.test.", wait=True) | {"other": other["small"]}


def _api_zone(cluster: Cluster, project: str, name: str, wait: bool) -> dict[str, Any]:
    with httpx.Client(base_url=cluster.api_urls[0], timeout=60,
                      headers={"X-Auth-Project-ID": project, "Accept": "application/json"}) as client:
        zone = client.post("/v2/zones", json={"name": name, "email": EMAIL})
        zone.raise_for_status()
        zone_id = zone.json()["id"]
        rs_ids = []
        for i in range(10):
            r = client.post(f"/v2/zones/{zone_id}/recordsets",
                            json={"name": f"h{i:02d}.{name}", "type": "A", "records": [f"192.0.2.{i + 1}"]})
            r.raise_for_status()
            rs_ids.append(r.json()["id"])
        deadline = time.monotonic() + 60
        while wait and client.get(f"/v2/zones/{zone_id}").json()["status"] != "ACTIVE":
            if time.monotonic() > deadline:
                raise RuntimeError("the small zone did not become ACTIVE")
            time.sleep(0.1)
    return {"small": zone_id, "small_name": name, "small_rs": rs_ids[0], "small_rs_name": f"h00.{name}"}


def run(args: argparse.Namespace) -> dict[str, Any]:
    cluster = Cluster(apis=1, workers=1, project=PROJECT)
    result: dict[str, Any] = {}
    loader = None
    try:
        cluster.start()
        print(f"ours: API {cluster.api_urls[0]}, mdns :{cluster.mdns_port}, nameserver :{cluster.ns_port}, "
              f"database {cluster.first.database.name}", flush=True)
        time.sleep(2)
        result["rss_start"] = cluster.memory()
        ids = api_setup(cluster)
        loader = BulkLoader(cluster.database_url)
        ids["big_name"] = "big.scale-bulk.test."
        ids["big"] = loader.load([(ids["big_name"], 1000)])[0]
        loader.analyze()
        ids["deep_marker"], ids["name_filter"] = ids["small"], ids["big_name"]
        ids["rs_deep_marker"] = ids["small_rs"]
        result["small_counts"] = loader.counts()
        print(f"== small database {result['small_counts']}", flush=True)
        cpu0 = cluster.cpu()
        result["small"] = measure(cluster, ids, args, "small")

        total = args.zones - 2
        print(f"== bulk load: {total} zones x {args.per_zone} A recordsets (COPY, bypassing the API)", flush=True)
        t = time.perf_counter()
        all_ids: list[str] = []
        chunk = 5000
        for start in range(0, total, chunk):
            names = [(f"z{i:06d}.scale-bulk.test.", args.per_zone) for i in range(start, min(total, start + chunk))]
            all_ids += loader.load(names)
            if (start // chunk) % 5 == 4:
                print(f"  {len(all_ids)} zones, {time.perf_counter() - t:.0f} s", flush=True)
        load_s = time.perf_counter() - t
        loader.analyze()
        result["bulk_load_s"] = round(time.perf_counter() - t, 1)
        result["bulk_copy_s"] = round(load_s, 1)
        result["large_counts"] = loader.counts()
        print(f"  loaded in {result['bulk_load_s']} s (COPY {load_s:.1f} s + ANALYZE): {result['large_counts']}",
              flush=True)
        ids["deep_marker"] = all_ids[int(len(all_ids) * 0.9)]
        ids["rs_deep_marker"] = loader.nth_recordset(0.9)
        ids["name_filter"] = f"z{total // 2:06d}.scale-bulk.test."
        result["ids"] = ids
        time.sleep(3)
        result["rss_loaded"] = cluster.memory()
        result["large"] = measure(cluster, ids, args, "large")
        result["rss_after"] = cluster.memory()
        cpu1 = cluster.cpu()
        result["cpu_s_during_measurements"] = {k: round(cpu1[k] - cpu0[k], 1) for k in cpu1}
        if args.explain:
            print("== EXPLAIN of the storage layer's list statements", flush=True)
            result["explain"] = asyncio.run(explain(cluster.database_url, ids))
        result["log_problems"] = log_problems(cluster.logs())
    except Exception as exc:  # noqa: BLE001 - reported in the output
        result["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        if loader is not None:
            loader.close()
        cluster.stop()
    return result


def print_table(result: dict[str, Any]) -> None:
    small, large = result.get("small", {}), result.get("large", {})
    sc, lc = result.get("small_counts", {}), result.get("large_counts", {})
    print(f"\n{'measurement (ms)':<46} {'small p50':>10} {'p95':>8} {'large p50':>10} {'p95':>8}  large/small p50")
    print(f"{'(zones / recordsets in the database)':<46} {sc.get('zones', '?'):>10} {sc.get('recordsets', ''):>8} "
          f"{lc.get('zones', '?'):>10} {lc.get('recordsets', ''):>8}")
    for name in large or small:
        rows = [(name, small.get(name, {}), large.get(name, {}))]
        if "active_ms" in large.get(name, {}):
            rows = [(name + " -> ACTIVE", small[name]["active_ms"], large[name]["active_ms"]),
                    (name + " -> answered", small[name]["answered_ms"], large[name]["answered_ms"])]
        for label, s, g in rows:
            def f(d: dict[str, Any], k: str) -> str:
                return f"{d[k]:.1f}" if isinstance(d.get(k), (int, float)) else "-"
            ratio = (f"{g['p50'] / s['p50']:.2f}" if isinstance(g.get("p50"), (int, float))
                     and isinstance(s.get("p50"), (int, float)) and s["p50"] else "-")
            print(f"{label:<46} {f(s, 'p50'):>10} {f(s, 'p95'):>8} {f(g, 'p50'):>10} {f(g, 'p95'):>8}  {ratio}")
    print("\nRSS MB (start, empty / after bulk load, idle / after the measurements):")
    for name in result.get("rss_start", {}):
        vals = [result.get(k, {}).get(name, {}).get("rss_mb", "-") for k in ("rss_start", "rss_loaded", "rss_after")]
        print(f"  {name:<16} {' / '.join(str(v) for v in vals)}")
    if "cpu_s_during_measurements" in result:
        print(f"CPU s during both measurement rounds: {result['cpu_s_during_measurements']}")
    for entry in result.get("explain", []):
        print(f"\n-- {entry['case']}: {entry['ms']} ms\n{entry['sql']}\n   params {entry['params'][:200]}")
        print("\n".join("   " + line for line in entry["plan"]))
    if "log_problems" in result:
        print("server logs: " + ", ".join(f"{n} {v['tracebacks']} tracebacks/{v['error_lines']} ERROR lines"
                                           for n, v in result["log_problems"].items()))


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="10,000 zones, 10 samples")
    ap.add_argument("--zones", type=int, default=None, help="zones in the large database (default 100,000)")
    ap.add_argument("--per-zone", type=int, default=10, help="A recordsets per bulk zone (default 10)")
    ap.add_argument("--samples", type=int, default=None, help="GETs / AXFRs per figure (default 50, quick 10)")
    ap.add_argument("--active-samples", type=int, default=None, help="PUTs timed to ACTIVE (default 20, quick 5)")
    ap.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE the list statements at the end")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    for name, full, small in (("zones", 100_000, 10_000), ("samples", 50, 10), ("active_samples", 20, 5)):
        if getattr(args, name) is None:
            setattr(args, name, small if args.quick else full)
    return args


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks: stop what we started
    args = parse_args()
    out: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "argv": sys.argv[1:],
                           "cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg()}
    out.update(run(args))
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    if "error" in out:
        print(f"error: {out['error']}")
    print_table(out)
    path = args.out or BENCH / "results" / f"scale-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str))
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
