#!/usr/bin/env python3
"""A 100,000-record zone import, from the POST to the zone ACTIVE, on a PowerDNS pool and on the
embedded built-in nameserver, with a breakdown of where the time went.

For each row our server is started fresh (SQLite), a zone file of ``--records`` records (a mix
of A, AAAA, TXT, MX and CNAME, some RRsets of two records) is sent to ``POST
/v2/zones/tasks/imports`` as ``text/dns``, and the script times:

* ``task COMPLETE``: the import task's status (polled every 50 ms);
* ``zone ACTIVE``: the zone's status (polled every 50 ms);
* ``answered``: the pool's nameserver answers the SOA with the file's serial over UDP (PowerDNS
  for the ``pdns`` row, the built-in nameserver for ``builtin``; polled every 50 ms).

Rows: ``pdns`` (the default pool's only target and nameserver a real PowerDNS started here,
``tests/support/pdns.py``, with the reference's settings and the default pdns4 options) and
``builtin`` (the embedded default: built-in nameserver in the same process).

The breakdown comes from the server's own log line for the import (``zone import ... parse
... s``: parse and validation in the worker process, the checks on the loop, the inserts and the
commit) and from the worker's log (push to the target, the target's transfer); with
``--profile`` the parse is also profiled in this process with pyinstrument. Figures are printed
and written to bench/results/, never asserted.

    .venv/bin/python bench/import_big.py [--records 100000] [--rows pdns,builtin] [--server-src DIR]
                                         [--database sqlite|postgresql]

For the ``pdns`` row, once the zone is ACTIVE, ``PowerDNS alone`` re-creates it on PowerDNS and
times that transfer, mdns now answering from its transfer cache: PowerDNS's own share.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import dns.message
import dns.query
import dns.rdatatype
import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from propagation import machine  # noqa: E402
from targets import BENCH_QUOTAS, REF_PDNS_SETTINGS, secondary_pool_yaml  # noqa: E402
from support.pdns import PdnsServer  # noqa: E402
from support.server import ServerProcess  # noqa: E402

QUOTAS = {**BENCH_QUOTAS, "quota_zone_recordsets": 1_000_000, "quota_zone_records": 1_000_000}
MAX_BODY = 64 * 1024 * 1024
POLL_S = 0.05
SERIAL = 2026120401


def zone_file(name: str, records: int) -> str:
    """SOA, apex NS and ``records`` records: 40% A, 20% AAAA, 20% TXT, 10% MX (two per owner),
    10% CNAME, owners ``<type><n>`` so every RRset but the MX pairs is one record."""
    lines = [f"$ORIGIN {name}", "$TTL 300",
             f"@ IN SOA ns1.example.net. hostmaster.{name} {SERIAL} 3600 600 86400 300",
             "@ IN NS ns1.example.net."]
    for i in range(records):
        kind = i % 10
        if kind < 4:
            lines.append(f"a{i} IN A 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}")
        elif kind < 6:
            lines.append(f"v6-{i} 600 IN AAAA 2001:db8::{i >> 16 & 0xffff:x}:{i & 0xffff:x}")
        elif kind < 8:
            lines.append(f"t{i} IN TXT \"v=spf1 ip4:10.{i >> 8 & 255}.{i & 255}.0/24 -all\" \"n{i}\"")
        elif kind == 8:
            lines.append(f"m{i - (i // 10 % 2) * 10} IN MX {10 + i // 10 % 2} mx{i % 97}.example.net.")
        else:
            lines.append(f"c{i} IN CNAME a{i - 9}")
    return "\n".join(lines) + "\n"


def soa_serial(port: int, zone: str) -> int | None:
    try:
        resp = dns.query.udp(dns.message.make_query(zone, "SOA"), "127.0.0.1", port=port, timeout=0.5)
    except (OSError, dns.exception.DNSException):
        return None
    for rrset in resp.answer:
        if rrset.rdtype == dns.rdatatype.SOA:
            return int(rrset[0].serial)
    return None


async def import_once(api_url: str, project: str, dns_port: int, zone: str, text: str,
                      timeout: float) -> dict[str, Any]:
    """POST the file; poll the task, the zone and the nameserver until all three are done."""
    headers = {"X-Auth-Project-ID": project, "Accept": "application/json"}
    async with httpx.AsyncClient(base_url=api_url, headers=headers, timeout=120) as client:
        t0 = time.perf_counter()
        resp = await client.post("/v2/zones/tasks/imports", content=text.encode(),
                                 headers={"Content-Type": "text/dns"})
        t_post = time.perf_counter() - t0
        if resp.status_code != 202:
            raise RuntimeError(f"import: {resp.status_code} {resp.text[:300]}")
        task_path = f"/v2/zones/tasks/imports/{resp.json()['id']}"
        out: dict[str, Any] = {"post_s": round(t_post, 3)}
        zone_path = None
        deadline = t0 + timeout
        while time.perf_counter() < deadline and ("active_s" not in out or "answered_s" not in out):
            now = time.perf_counter() - t0
            if "complete_s" not in out:
                task = (await client.get(task_path)).json()
                if task.get("status") == "ERROR":
                    out["error"] = task.get("message")
                    return out
                if task.get("status") == "COMPLETE":
                    out["complete_s"] = round(now, 3)
                    zone_path = f"/v2/zones/{task['zone_id']}"
            if zone_path and "active_s" not in out:
                status = (await client.get(zone_path)).json().get("status")
                if status in ("ACTIVE", "ERROR"):
                    out["active_s"] = round(now, 3)
                    out["zone_status"] = status
            if "answered_s" not in out and \
                    await asyncio.to_thread(soa_serial, dns_port, zone) == SERIAL:
                out["answered_s"] = round(now, 3)
            await asyncio.sleep(POLL_S)
        if "active_s" not in out:
            out["error"] = f"not ACTIVE after {timeout} s"
        return out


def pdns_alone(pdns: PdnsServer, mdns_port: int, zone: str) -> float | None:
    """PowerDNS alone taking the zone: deleted from it and created again as a slave of mdns,
    whose transfer cache now holds the rendered zone (sent in milliseconds), so the time from
    ``axfr-retrieve`` to the serial answered is PowerDNS's (reading, gsqlite3 writes)."""
    api = f"{pdns.api_url}/api/v1/servers/localhost/zones"
    with httpx.Client(headers={"X-API-Key": pdns.api_key}, timeout=60) as client:
        client.delete(f"{api}/{zone}").raise_for_status()
        client.post(api, json={"name": zone, "kind": "Slave",
                               "masters": [f"127.0.0.1:{mdns_port}"]}).raise_for_status()
        t0 = time.perf_counter()
        client.put(f"{api}/{zone}/axfr-retrieve").raise_for_status()
        while time.perf_counter() - t0 < 300:
            if soa_serial(pdns.dns_port, zone) == SERIAL:
                return round(time.perf_counter() - t0, 3)
            time.sleep(POLL_S)
    return None


def log_breakdown(log: str) -> dict[str, Any]:
    """Figures from the server's log lines about the import and the zone's first push."""
    found: dict[str, Any] = {}
    match = re.search(r"zone import \S+: (.*)$", log, re.M)
    if match:
        found["import_log"] = match.group(1)
        for key, value in re.findall(r"(\w+) ([\d.]+) s", match.group(1)):
            found[f"{key}_s"] = float(value)
    return found


def run_row(row: str, args: argparse.Namespace, text: str) -> dict[str, Any]:
    env = {"PYTHONPATH": str(args.server_src.resolve())} if args.server_src else None
    pdns = PdnsServer(extra_config=REF_PDNS_SETTINGS) if row == "pdns" else None
    pools = None
    if pdns is not None:
        def pools(server: ServerProcess) -> str:
            return secondary_pool_yaml(server, "pdns4", pdns.dns_port,
                                       {"api_endpoint": pdns.api_url, "api_token": pdns.api_key})
    server = ServerProcess(options={"DEFAULT": dict(QUOTAS),
                                    "oslo_middleware": {"max_request_body_size": MAX_BODY}},
                           project="bench", wait_dns=True, start_timeout=120, pools=pools, env=env,
                           database=args.database)
    zone = f"big-{uuid.uuid4().hex[:6]}.org."
    result: dict[str, Any] = {"row": row, "zone": zone, "records": args.records}
    try:
        if pdns is not None:
            pdns.start()
        server.start()
        time.sleep(2)
        dns_port = pdns.dns_port if pdns is not None else server.ns_port
        result["loadavg_start"] = os.getloadavg()
        print(f"{row}: {server.api_url}, load {result['loadavg_start'][0]:.1f}", flush=True)
        result.update(asyncio.run(import_once(server.api_url, "bench", dns_port,
                                              zone.replace("big-", "big-", 1),
                                              text.replace("big.example.org.", zone), args.timeout)))
        result["loadavg_end"] = os.getloadavg()
        if pdns is not None and "answered_s" in result:
            result["pdns_alone_s"] = pdns_alone(pdns, server.mdns_port, zone)
        time.sleep(0.5)
        log = server.log_path.read_text(errors="replace")
        result.update(log_breakdown(log))
        if args.save_log:
            (args.save_log / f"{row}.log").write_text(log)
        if "error" in result or args.log_tail:
            result["log_tail"] = server.log_tail(40)
    finally:
        server.stop()
        if pdns is not None:
            pdns.stop()
    return result


def profile_parse(text: str) -> None:
    """The parse (what the worker process runs), profiled here with pyinstrument."""
    from pyinstrument import Profiler

    from openkeel_designate.central import zonefile_import
    rules = zonefile_import.Rules(min_ttl=0, supported_types=("A", "AAAA", "TXT", "MX", "CNAME",
                                                              "NS", "SOA"))
    profiler = Profiler(interval=0.002)
    profiler.start()
    t0 = time.perf_counter()
    parsed = zonefile_import.parse(text, rules)
    took = time.perf_counter() - t0
    profiler.stop()
    print(f"parse in this process: {took:.2f} s, {len(parsed.recordsets)} recordsets")
    print(profiler.output_text(unicode=False, color=False, show_all=False)[:6000])


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--rows", default="pdns,builtin")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--server-src", type=Path, default=None,
                    help="run our server from this source tree (first on PYTHONPATH)")
    ap.add_argument("--profile", action="store_true", help="also profile the parse in this process")
    ap.add_argument("--log-tail", action="store_true", help="keep the server's last log lines")
    ap.add_argument("--save-log", type=Path, default=None, help="copy each row's server log here")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--database", default="sqlite", help="sqlite (default) or postgresql")
    args = ap.parse_args()
    text = zone_file("big.example.org.", args.records)
    out: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": machine(),
                           "args": {k: str(v) for k, v in vars(args).items()},
                           "file_bytes": len(text), "rows": []}
    if args.profile:
        profile_parse(text)
    for row in [r.strip() for r in args.rows.split(",") if r.strip()]:
        res = run_row(row, args, text)
        out["rows"].append(res)
        print(json.dumps({k: v for k, v in res.items() if k != "log_tail"}), flush=True)
        if "log_tail" in res:
            print("\n".join(res["log_tail"]) if isinstance(res["log_tail"], list) else res["log_tail"])
    path = args.out or BENCH / "results" / f"import-big-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str))
    print()
    print(f"{args.records} records, file {len(text) / 1e6:.1f} MB; load average at the end {os.getloadavg()}")
    print("| row | POST 202 | task COMPLETE | zone ACTIVE | SOA answered | PowerDNS alone | server log |")
    print("|---|---|---|---|---|---|---|")
    for res in out["rows"]:
        print(f"| {res['row']} | {res.get('post_s')} s | {res.get('complete_s')} s | "
              f"{res.get('active_s')} s ({res.get('zone_status', res.get('error'))}) | "
              f"{res.get('answered_s')} s | {res.get('pdns_alone_s', '-')} s | "
              f"{res.get('import_log', '-')} |")
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
