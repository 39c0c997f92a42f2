#!/usr/bin/env python3
"""Noisy neighbour: what a quiet project still gets while a member project attacks the server.

Starts our server (embedded default: api, worker, mdns, nameserver on SQLite), makes a zone for
the quiet project, then runs phases of ``--seconds`` each: ``idle`` (probes only), one phase per
attack alone (``import``: ``$GENERATE 1-100000`` zone imports; ``bodies``: 10 MiB bodies with
Content-Length and chunked; ``loris``: headers sent a byte at a time; ``udp``: a UDP query flood
at mdns and the nameserver), and ``all`` of them together (``bodies+udp`` names any other
combination). The attacks and probes are those of
``tests/support/noisy.py`` (as ``tests/integration/faults/test_noisy_neighbour.py``).

Per phase and probe kind it prints answered/failed, resends (a DNS probe resends after 1 s, as a
resolver does), p99 and worst round trip; per phase the 1-minute load average at its end and
the datagrams the kernel dropped for full receive buffers meanwhile (machine-wide: other
programs' count too). The probes share the server's single event loop with
the attack, so their round trip is the loop lag a tenant sees. Nothing is asserted.

    .venv/bin/python bench/noisy_neighbour.py [--seconds 6] [--udp-packets 20000]
                                              [--phases idle,import,bodies,loris,udp,all]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/support

import httpx  # noqa: E402
from support.noisy import (  # noqa: E402
    ATTACKS,
    POOL_NAMESERVER,
    QUIET,
    RESOLVER,
    Prober,
    QuietWrites,
    api_read,
    attack,
    dns_ask,
    expect_address,
    expect_soa,
    headers,
    import_outcomes,
)
from support.server import ServerProcess  # noqa: E402

ZONE, HOST, ADDRESS = "quiet.example.", "www.quiet.example.", "192.0.2.80"


def quiet_zone(client: httpx.Client) -> str:
    zone_id = client.post("/v2/zones", json={"name": ZONE, "email": "h@quiet.example"}).json()["id"]
    client.post(f"/v2/zones/{zone_id}/recordsets",
                json={"name": HOST, "type": "A", "records": [ADDRESS]})
    deadline = time.monotonic() + 30
    while client.get(f"/v2/zones/{zone_id}").json()["status"] != "ACTIVE":
        if time.monotonic() > deadline:
            raise SystemExit("the quiet zone never went ACTIVE")
        time.sleep(0.05)
    return zone_id


def kernel_udp_drops() -> int | None:
    """Datagrams the kernel dropped for full receive buffers, machine-wide (Linux)."""
    try:
        lines = [line.split() for line in Path("/proc/net/snmp").read_text().splitlines()
                 if line.startswith("Udp:")]
        return int(lines[1][lines[0].index("RcvbufErrors")])
    except (OSError, ValueError, IndexError):
        return None


def phase(server: ServerProcess, client: httpx.Client, zone_id: str, name: str,
          seconds: float, udp_packets: int, prefix: str) -> None:
    kinds = () if name == "idle" else ATTACKS if name == "all" else tuple(name.split("+"))
    writes = QuietWrites(client, zone_id, ZONE, prefix=f"{prefix}w")
    prober = Prober()
    writer = Prober(interval=0.25)
    with httpx.Client(base_url=server.api_url, headers=headers(QUIET), timeout=30) as reader:
        prober.every("mdns SOA", lambda s: dns_ask(server.mdns_port, ZONE, "SOA", s, expect_soa,
                                                    POOL_NAMESERVER))
        prober.every("nameserver A", lambda s: dns_ask(server.ns_port, HOST, "A", s,
                                                        expect_address(ADDRESS), RESOLVER))
        prober.every("api GET zone", api_read(reader, f"/v2/zones/{zone_id}"))
        writer.every("writes", writes.ask)
        dropped = kernel_udp_drops()
        try:
            with attack(server, seconds, udp_packets, kinds=kinds) as log:
                time.sleep(seconds)
        finally:
            writer.stop()
            prober.stop()
    after = kernel_udp_drops()
    writes.settle()
    load = os.getloadavg()[0]
    print(f"\n== {name} ({', '.join(kinds) or 'no attack'}; {seconds:.0f} s; load average "
          f"{load:.1f})")
    if dropped is not None and after is not None:
        print(f"  kernel receive-buffer drops (whole machine): {after - dropped}")
    for stats in [*prober.stats.values(), writes.post_stats, writes.active_stats]:
        print("  " + stats.line())
    if kinds:
        for line in log.lines():
            print("  " + line)
    if "import" in kinds:
        print(f"  noisy imports ended: {import_outcomes(server, log)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--udp-packets", type=int, default=20000, help="per port and phase")
    parser.add_argument("--phases", default="idle,import,bodies,loris,udp,all")
    args = parser.parse_args()
    with ServerProcess(wait_dns=True, project=QUIET) as server, \
            httpx.Client(base_url=server.api_url, headers=headers(QUIET), timeout=30) as client:
        zone_id = quiet_zone(client)
        for i, name in enumerate(args.phases.split(",")):
            phase(server, client, zone_id, name, args.seconds, args.udp_packets, f"p{i}")
            time.sleep(1)  # let the previous phase's leftovers drain
        alive = "still up" if server.is_running() else "EXITED"
        print(f"\nserver {alive}; log tracebacks: "
              f"{server.log_path.read_text(errors='replace').count('Traceback')}")


if __name__ == "__main__":
    main()
