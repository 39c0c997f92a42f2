#!/usr/bin/env python3
"""mdns zone transfer throughput: AXFR of large zones, IXFR of one change, beside PowerDNS and the ref.

Starts our server (embedded default: SQLite, built-in nameserver), creates zones of 5,000 and
100,000 A records through the API (``POST /v2/zones/tasks/imports``, ``Content-Type: text/dns``),
waits until they are ACTIVE, and times AXFRs from our mdns:

* cold: the first transfer of the zone after a server restart (empty process caches);
* repeated: ``--repeats`` more transfers, with each client below.

Clients: ``raw`` (a TCP socket reading the length-prefixed messages and counting RRs from each
header; nearly no client work, so it shows the server's rate), ``dnspython`` (``dns.query.xfr``:
every message parsed), ``from_xfr`` (``dns.zone.from_xfr``: parsed and built into a zone), and
``dig`` (``dig AXFR +noall +answer`` as a subprocess: process start and text output included).

Beside it: the same zone transferred into a real PowerDNS secondary (timed: its inbound AXFR from
our mdns) and then AXFR'd from PowerDNS; IXFR of one changed record in the 5,000-record zone;
with ``--ref``, the real Designate 23.0.0's mdns (and its PowerDNS) with a 5,000-record zone
imported there. Figures are printed and written to bench/results/, never asserted.

    .venv/bin/python bench/axfr.py [--quick] [--sizes 5000,100000] [--repeats N] [--ref]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dns.message
import dns.query
import dns.rdatatype
import dns.zone
import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from measure import Api, poll_until  # noqa: E402
from propagation import delete_project_zones, machine  # noqa: E402
from report import fmt_ratio, render  # noqa: E402
from stats import memory_mb, summarize  # noqa: E402
from targets import BENCH_QUOTAS, REF_PDNS_SETTINGS, Ref, RefUnavailable, ref_ports  # noqa: E402
from support.pdns import PdnsServer  # noqa: E402
from support.server import ServerProcess  # noqa: E402

XFR_TIMEOUT_S = 300.0
CLIENTS = ("raw", "dnspython", "from_xfr", "dig")
# Quotas for a 100,000-record zone, and a request body big enough for its zone file (~3 MB).
AXFR_QUOTAS = {**BENCH_QUOTAS, "quota_zone_recordsets": 1_000_000, "quota_zone_records": 1_000_000}
MAX_BODY = 64 * 1024 * 1024


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=None, help="zone sizes in A records (default 5000,100000)")
    ap.add_argument("--repeats", type=int, default=None, help="repeated transfers per client (default 3)")
    ap.add_argument("--quick", action="store_true", help="sizes 5000,20000 and 2 repeats")
    ap.add_argument("--from-xfr-max", type=int, default=20000,
                    help="largest zone also read with dns.zone.from_xfr (slowest client; default 20000)")
    ap.add_argument("--no-pdns", action="store_true", help="skip PowerDNS")
    ap.add_argument("--server-src", type=Path, default=None,
                    help="run our server from this source tree (put first on PYTHONPATH), e.g. a "
                         "'git worktree' of a commit when the working tree is mid-edit")
    ap.add_argument("--ref", action="store_true", help="also the real Designate 23.0.0 (5,000 records)")
    ap.add_argument("--ref-size", type=int, default=5000)
    ap.add_argument("--ref-scripts", type=Path, default=Path("/work/shared/ref"))
    ap.add_argument("--ref-dir", type=Path, default=Path(os.environ.get("REF_DIR", "/tmp/ref")))
    ap.add_argument("--out", type=Path, default=None, help="JSON file (default bench/results/axfr-*.json)")
    args = ap.parse_args()
    if args.sizes is None:
        args.sizes = "5000,20000" if args.quick else "5000,100000"
    args.sizes = [int(s) for s in str(args.sizes).split(",") if s]
    if args.repeats is None:
        args.repeats = 2 if args.quick else 3
    return args


# --- zones ------------------------------------------------------------------------------------
def zone_file(name: str, size: int) -> str:
    """SOA, apex NS and ``size`` A records h000000..; addresses walk 10.0.0.0/8."""
    lines = [f"$ORIGIN {name}", "$TTL 300",
             f"@ IN SOA ns1.example.net. hostmaster.{name} 1 3600 600 86400 300",
             "@ IN NS ns1.example.net."]
    lines += [f"h{i:06d} IN A 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(size)]
    return "\n".join(lines) + "\n"


async def import_zone(api: Api, name: str, size: int, timeout: float = 1800) -> dict[str, Any]:
    """POST the zone file as text/dns; wait for the task to COMPLETE and the zone to be ACTIVE."""
    t0 = time.perf_counter()
    resp = await api.client.post("/v2/zones/tasks/imports", content=zone_file(name, size).encode(),
                                 headers={"Content-Type": "text/dns"})
    if resp.status_code != 202:
        raise RuntimeError(f"zone import {name}: {resp.status_code} {resp.text[:300]}")
    task_path = f"/v2/zones/tasks/imports/{resp.json()['id']}"
    task: dict[str, Any] = {}

    async def complete() -> bool:
        nonlocal task
        task = (await api.client.get(task_path)).json()
        if task.get("status") == "ERROR":
            raise RuntimeError(f"zone import {name} failed: {task.get('message')}")
        return task.get("status") == "COMPLETE"
    t_complete = await poll_until(complete, 0.2, timeout)
    if t_complete is None:
        raise RuntimeError(f"zone import {name} not COMPLETE after {timeout}s: {task}")
    zone_path = f"/v2/zones/{task['zone_id']}"

    status: str | None = None

    async def settled() -> bool:
        nonlocal status
        status = await api.status(zone_path)
        return status in ("ACTIVE", "ERROR")
    t_active = await poll_until(settled, 0.2, timeout)
    if t_active is None:
        raise RuntimeError(f"imported zone {name} not ACTIVE after {timeout}s")
    # A zone in ERROR (its target never confirmed it) is still served by mdns: the transfers
    # are measured all the same, and the import line says so.
    return {"zone": name, "zone_id": task["zone_id"], "records": size, "zone_status": status,
            "import_complete_s": round(t_complete - t0, 2),
            "zone_active_s": round(t_active - t0, 2) if status == "ACTIVE" else None}


# --- transfer clients ---------------------------------------------------------------------------
def soa_serial(port: int, zone: str) -> int | None:
    try:
        resp = dns.query.udp(dns.message.make_query(zone, "SOA"), "127.0.0.1", port=port, timeout=1)
    except (OSError, dns.exception.DNSException):
        return None
    for rrset in resp.answer:
        if rrset.rdtype == dns.rdatatype.SOA:
            return int(rrset[0].serial)
    return None


def xfr_dnspython(port: int, zone: str, rdtype: str = "AXFR", serial: int = 0) -> int:
    """Every message parsed by dnspython; returns the RR count."""
    count = 0
    for message in dns.query.xfr("127.0.0.1", zone, rdtype=rdtype, serial=serial, port=port,
                                 lifetime=XFR_TIMEOUT_S, relativize=False):
        count += sum(len(rrset) for rrset in message.answer)
    return count


def xfr_from_xfr(port: int, zone: str) -> int:
    """dns.zone.from_xfr: parsed and built into a zone (the closing SOA is not stored)."""
    built = dns.zone.from_xfr(dns.query.xfr("127.0.0.1", zone, port=port, lifetime=XFR_TIMEOUT_S,
                                            relativize=False), relativize=False)
    return sum(len(rdataset) for _, rdataset in built.iterate_rdatasets()) + 1


def xfr_raw(port: int, zone: str, expect: int) -> int:
    """Length-prefixed messages read off one TCP connection, RRs counted from each header's
    ANCOUNT, until ``expect`` RRs arrived (the count another client saw). Nothing is parsed."""
    wire = dns.message.make_query(zone, "AXFR").to_wire()
    deadline = time.monotonic() + XFR_TIMEOUT_S
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(len(wire).to_bytes(2, "big") + wire)
        buf = bytearray()
        count = 0
        while count < expect:
            if time.monotonic() > deadline:
                raise TimeoutError(f"raw AXFR of {zone}: {count}/{expect} RRs")
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError(f"raw AXFR of {zone}: connection closed at {count}/{expect} RRs")
            buf += chunk
            while len(buf) >= 2:
                length = int.from_bytes(buf[:2], "big")
                if len(buf) < 2 + length:
                    break
                if buf[5] & 0x0F:
                    raise RuntimeError(f"raw AXFR of {zone}: rcode {buf[5] & 0x0F}")
                count += int.from_bytes(buf[8:10], "big")
                del buf[:2 + length]
    return count


def xfr_dig(port: int, zone: str, rdtype: str = "AXFR") -> int:
    """``dig`` as a subprocess (what an operator types); returns the RR lines printed."""
    done = subprocess.run(["dig", "@127.0.0.1", "-p", str(port), zone, rdtype, "+noall", "+answer",
                           "+tries=1", f"+time={int(XFR_TIMEOUT_S)}"],
                          capture_output=True, text=True, timeout=XFR_TIMEOUT_S, check=False)
    if done.returncode != 0 or "failed" in done.stdout[-300:]:
        raise RuntimeError(f"dig {rdtype} {zone}: rc {done.returncode} {done.stdout[-200:]} {done.stderr[-200:]}")
    return sum(1 for line in done.stdout.splitlines() if line and not line.startswith(";"))


def timed(fn: Callable[[], int]) -> tuple[float, int]:
    t0 = time.perf_counter()
    rrs = fn()
    return time.perf_counter() - t0, rrs


def transfer_set(server: str, port: int, zone: str, size: int, repeats: int,
                 cold: bool, from_xfr_max: int) -> list[dict[str, Any]]:
    """A cold transfer (if asked: the first after a restart, with dnspython), then ``repeats``
    rounds of every client, interleaved; one result per (client, cold/repeated)."""
    rows: list[dict[str, Any]] = []
    expect = None
    if cold:
        seconds, rrs = timed(lambda: xfr_dnspython(port, zone))
        expect = rrs
        rows.append(_row(server, zone, size, "dnspython", "cold", [seconds], [rrs]))
    times: dict[str, list[float]] = {c: [] for c in CLIENTS}
    counts: dict[str, list[int]] = {c: [] for c in CLIENTS}
    for _ in range(repeats):
        for client in CLIENTS:
            if client == "from_xfr" and size > from_xfr_max:
                continue
            if client == "raw" and expect is None:
                _, expect = timed(lambda: xfr_dnspython(port, zone))
            fn = {"raw": lambda: xfr_raw(port, zone, expect or 0), "dnspython": lambda: xfr_dnspython(port, zone),
                  "from_xfr": lambda: xfr_from_xfr(port, zone), "dig": lambda: xfr_dig(port, zone)}[client]
            seconds, rrs = timed(fn)
            times[client].append(seconds)
            counts[client].append(rrs)
    rows += [_row(server, zone, size, c, "repeated", times[c], counts[c]) for c in CLIENTS if times[c]]
    for row in rows:
        print(f"  {server} {size} {row['client']} {row['kind']}: p50 {row['p50_s']:.3f} s, "
              f"{row['rrs']} RRs, {row['rr_per_s']:.0f} RR/s", flush=True)
    return rows


def _row(server: str, zone: str, size: int, client: str, kind: str, times: list[float],
         counts: list[int]) -> dict[str, Any]:
    s = summarize(times)
    rrs = max(counts)
    return {"server": server, "zone": zone, "size": size, "client": client, "kind": kind, "n": len(times),
            "p50_s": s["p50"], "min_s": s["min"], "max_s": s["max"], "times_s": times, "rrs": rrs,
            "rr_counts": sorted(set(counts)), "rr_per_s": rrs / s["p50"] if s["p50"] else None}


# --- PowerDNS --------------------------------------------------------------------------------
def pdns_secondary(pdns: PdnsServer, zone: str, master_port: int, serial: int, timeout: float = 900) -> float:
    """Create ``zone`` as a secondary of our mdns, ask for the transfer at once; seconds until
    PowerDNS answers the SOA with ``serial`` (its inbound AXFR, including its database writes)."""
    headers = {"X-API-Key": pdns.api_key}
    base = f"{pdns.api_url}/api/v1/servers/localhost/zones"
    t0 = time.perf_counter()
    resp = httpx.post(base, headers=headers, timeout=30,
                      json={"name": zone, "kind": "Slave", "masters": [f"127.0.0.1:{master_port}"]})
    if resp.status_code not in (200, 201):
        raise RuntimeError(f"PowerDNS zone create {zone}: {resp.status_code} {resp.text[:200]}")
    httpx.put(f"{base}/{zone}/axfr-retrieve", headers=headers, timeout=30)
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if soa_serial(pdns.dns_port, zone) == serial:
            return time.perf_counter() - t0
        time.sleep(0.02)
    raise RuntimeError(f"PowerDNS did not load {zone} serial {serial} in {timeout}s\n{pdns.log_tail(10)}")


# --- IXFR ------------------------------------------------------------------------------------
async def change_one_record(api: Api, zone_id: str, zone: str, mdns_port: int,
                            address: str) -> tuple[int, int]:
    """PUT one A recordset of the zone to ``address``; (old serial, new serial) once ACTIVE."""
    old = soa_serial(mdns_port, zone)
    name = f"h000000.{zone}"
    listing = (await api.client.get(f"/v2/zones/{zone_id}/recordsets", params={"name": name})).json()
    rs_id = listing["recordsets"][0]["id"]
    resp = await api.client.put(f"/v2/zones/{zone_id}/recordsets/{rs_id}", json={"records": [address]})
    if resp.status_code != 202:
        raise RuntimeError(f"PUT recordset: {resp.status_code} {resp.text[:200]}")

    async def done() -> bool:
        return await api.status(f"/v2/zones/{zone_id}") == "ACTIVE" and soa_serial(mdns_port, zone) != old
    if await poll_until(done, 0.05, 120) is None:
        raise RuntimeError("zone not ACTIVE after the change")
    new = soa_serial(mdns_port, zone)
    assert old is not None and new is not None
    return old, new


def ixfr_set(server: str, port: int, zone: str, size: int, since: int, repeats: int,
             kind: str) -> list[dict[str, Any]]:
    rows = []
    for client, fn in (("dnspython", lambda: xfr_dnspython(port, zone, "IXFR", since)),
                       ("dig", lambda: xfr_dig(port, zone, f"IXFR={since}"))):
        times, counts = [], []
        for _ in range(max(repeats, 3)):
            seconds, rrs = timed(fn)
            times.append(seconds)
            counts.append(rrs)
        row = _row(server, zone, size, client, kind, times, counts)
        print(f"  {server} {size} {kind} {client}: p50 {row['p50_s'] * 1000:.1f} ms, {row['rrs']} RRs", flush=True)
        rows.append(row)
    return rows


# --- runs --------------------------------------------------------------------------------------
def run_ours(args: argparse.Namespace, tag: str) -> dict[str, Any]:
    server = ServerProcess(options={"DEFAULT": dict(AXFR_QUOTAS),
                                    "oslo_middleware": {"max_request_body_size": MAX_BODY}},
                           project="bench", wait_dns=True, start_timeout=120,
                           env={"PYTHONPATH": str(args.server_src.resolve())} if args.server_src else None)
    pdns = None if args.no_pdns else PdnsServer(extra_config=REF_PDNS_SETTINGS)
    out: dict[str, Any] = {"imports": [], "rows": []}
    try:
        server.start()
        if pdns is not None:
            pdns.start()
        print(f"ours: {server.api_url}, mdns 127.0.0.1:{server.mdns_port}", flush=True)
        time.sleep(3)
        out["rss_idle"] = memory_mb([server.pid])
        out["loadavg_start"] = os.getloadavg()
        zones: list[dict[str, Any]] = []
        for size in args.sizes:
            imported = asyncio.run(_import(server, f"axfr{size}-{tag}.org.", size))
            print(f"  imported {size}: COMPLETE after {imported['import_complete_s']} s, "
                  f"ACTIVE after {imported['zone_active_s']} s ({imported['zone_status']})", flush=True)
            out["imports"].append(imported)
            zones.append(imported)
        for imported in zones:
            zone, size = imported["zone"], imported["records"]
            server.restart()  # cold: nothing of the zone in the process's memory
            out["rows"] += transfer_set("ours mdns", server.mdns_port, zone, size, args.repeats, cold=True,
                                    from_xfr_max=args.from_xfr_max)
            if pdns is not None:
                serial = soa_serial(server.mdns_port, zone)
                loaded = pdns_secondary(pdns, zone, server.mdns_port, serial or 0)
                print(f"  PowerDNS loaded {size} from our mdns in {loaded:.2f} s", flush=True)
                out["rows"].append(_row("PowerDNS <- ours mdns", zone, size, "pdns_server inbound", "cold",
                                        [loaded], [size]))
                out["rows"] += transfer_set("PowerDNS", pdns.dns_port, zone, size, args.repeats, cold=True,
                                    from_xfr_max=args.from_xfr_max)
        small = next((z for z in zones if z["records"] == min(args.sizes)), None)
        if small is not None:
            # The history starts at the serial the zone was imported with (the worker records it
            # as the base when it pushes the import), so IXFR from the import serial and from the
            # first change are both incremental. So: two changes, then IXFR from each serial.
            base, first = asyncio.run(_change(server, small, "192.0.2.98"))
            _, second = asyncio.run(_change(server, small, "192.0.2.99"))
            out["ixfr_serials"] = [base, first, second]
            out["rows"] += ixfr_set("ours mdns", server.mdns_port, small["zone"], small["records"], first,
                                    args.repeats, "IXFR 1 change")
            out["rows"] += ixfr_set("ours mdns", server.mdns_port, small["zone"], small["records"], base,
                                    args.repeats, "IXFR from import serial")
    except Exception as exc:  # noqa: BLE001 - reported in the output
        out["error"] = f"{type(exc).__name__}: {exc}"
        out["log_tail"] = server.log_tail(20)
        print(f"ours failed: {out['error']}", flush=True)
    finally:
        if server.pid is not None:
            out["rss_after"] = memory_mb([server.pid])  # the process restarted for the cold row
            out["loadavg_end"] = os.getloadavg()
        server.stop()
        if pdns is not None:
            pdns.stop()
    return out


async def _import(server: ServerProcess, name: str, size: int) -> dict[str, Any]:
    api = _api(server.api_url, server.project)
    try:
        return await import_zone(api, name, size)
    finally:
        await api.close()


async def _change(server: ServerProcess, imported: dict[str, Any], address: str) -> tuple[int, int]:
    api = _api(server.api_url, server.project)
    try:
        return await change_one_record(api, imported["zone_id"], imported["zone"], server.mdns_port, address)
    finally:
        await api.close()


def _api(url: str, project: str) -> Api:
    """measure.Api needs only a target's api_url."""
    from targets import Target
    target = Target(label="", api_url=url, dns_port=0, dns_label="", pgids=list, api_poll_s=0.05,
                    dns_poll_s=0.05, pause_s=(0.0, 0.0))
    return Api(target, project)


def run_ref(args: argparse.Namespace, tag: str) -> dict[str, Any]:
    ports = ref_ports()
    ref = Ref(args.ref_scripts, args.ref_dir, ports)
    out: dict[str, Any] = {"rows": []}
    reachable = False
    try:
        print(f"ref: setting up / starting Designate 23.0.0 (log {ref.log})", flush=True)
        target = ref.start()
        reachable = True
        size = args.ref_size
        zone = f"axfr{size}-{tag}.org."

        async def work() -> dict[str, Any]:
            api = Api(target, f"bench-axfr-{tag}")
            try:
                return await import_zone(api, zone, size)
            finally:
                await api.close()
        imported = asyncio.run(work())
        print(f"  ref imported {size}: COMPLETE after {imported['import_complete_s']} s, "
              f"ACTIVE after {imported['zone_active_s']} s", flush=True)
        out["import"] = imported
        out["rows"] += transfer_set("ref mdns", ports["MDNS_PORT"], zone, size, args.repeats, cold=True,
                                    from_xfr_max=args.from_xfr_max)
        out["rows"] += transfer_set("ref PowerDNS", ports["PDNS_PORT"], zone, size, args.repeats, cold=False,
                                    from_xfr_max=args.from_xfr_max)
    except RefUnavailable as exc:
        out["unavailable"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - reported in the output
        out["error"] = f"{type(exc).__name__}: {exc}"
        print(f"ref failed: {out['error']}", flush=True)
    finally:
        try:
            if reachable:
                asyncio.run(_ref_cleanup(ref, tag))
        finally:
            ref.stop()
    return out


async def _ref_cleanup(ref: Ref, tag: str) -> None:
    api = _api(ref.api_url, f"bench-axfr-{tag}")
    try:
        await delete_project_zones(api)
    except httpx.HTTPError:
        pass
    finally:
        await api.close()


# --- report ------------------------------------------------------------------------------------
def axfr_table(rows: list[dict[str, Any]]) -> str:
    header = ["server", "records", "client", "transfer", "n", "RRs", "s per transfer p50 (min-max)", "RR/s"]
    lines = [[r["server"], str(r["size"]), r["client"], r["kind"], str(r["n"]), str(r["rrs"]),
              f"{r['p50_s']:.3f} ({r['min_s']:.3f}-{r['max_s']:.3f})",
              f"{r['rr_per_s']:,.0f}" if r["rr_per_s"] else "-"] for r in rows]
    return render(header, lines)


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ours mdns / other, seconds per transfer (p50), for every (size, client, kind) both have."""
    index = {(r["server"], r["size"], r["client"], r["kind"]): r for r in rows}
    out = []
    for (server, size, client, kind), ours in index.items():
        if server != "ours mdns":
            continue
        for other in ("ref mdns", "PowerDNS", "ref PowerDNS"):
            theirs = index.get((other, size, client, kind))
            if theirs and theirs["p50_s"]:
                out.append({"size": size, "client": client, "kind": kind, "against": other,
                            "ours_s": ours["p50_s"], "theirs_s": theirs["p50_s"],
                            "ratio": ours["p50_s"] / theirs["p50_s"]})
    return out


def ratio_table(items: list[dict[str, Any]]) -> str:
    header = ["records", "client", "transfer", "ours mdns / ...", "ours s", "their s", "ratio (s, lower = ours faster)"]
    lines = [[str(i["size"]), i["client"], i["kind"], i["against"], f"{i['ours_s']:.3f}", f"{i['theirs_s']:.3f}",
              fmt_ratio(i["ratio"])] for i in items]
    return render(header, lines)


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks: stop what we started
    args = parse_args()
    tag = uuid.uuid4().hex[:6]
    out: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(),
                           "args": {k: str(v) for k, v in vars(args).items()}}
    out["ours"] = run_ours(args, tag)
    rows = list(out["ours"]["rows"])
    if args.ref:
        out["ref"] = run_ref(args, tag)
        rows += out["ref"]["rows"]
    out["ratios"] = ratios(rows)
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    path = args.out or BENCH / "results" / f"axfr-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str))

    print()
    for label in ("ours", "ref"):
        for key in ("error", "unavailable"):
            if key in out.get(label, {}):
                print(f"{label} {key}: {out[label][key]}")
    for imported in out["ours"].get("imports", []) + ([out["ref"]["import"]] if "import" in out.get("ref", {}) else []):
        print(f"import {imported['zone']} ({imported['records']} A): COMPLETE {imported['import_complete_s']} s, "
              f"ACTIVE {imported['zone_active_s']} s after the POST")
    print(f"ours RSS idle {out['ours'].get('rss_idle')}, after (restarted for the cold rows) "
          f"{out['ours'].get('rss_after')}; load average {out['ours'].get('loadavg_start')} -> "
          f"{out['ours'].get('loadavg_end')}")
    print("RRs = resource records received (both SOAs included); RR/s = RRs / p50 seconds")
    print(axfr_table(rows))
    if out["ratios"]:
        print()
        print(ratio_table(out["ratios"]))
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
