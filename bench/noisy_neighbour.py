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
programs' count too). The attacker is a process of its own (as in the test);
the probes share the server's single event loop with the attack, so their round trip is the
stall a tenant sees; the server's own worst event-loop lag in the phase (its metrics listener)
is printed beside them. Nothing is asserted.

    .venv/bin/python bench/noisy_neighbour.py [--seconds 6] [--udp-packets 20000]
                                              [--phases idle,import,bodies,loris,udp,all]
                                              [--attacker-nice 10]
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
    ATTACKER_NICE,
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


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loop_lag_max(server: ServerProcess) -> float | None:
    """The server's worst event-loop lag since the previous scrape (each scrape resets it)."""
    try:
        text = httpx.get(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10).text
    except httpx.HTTPError:
        return None
    for line in text.splitlines():
        if line.startswith("designate_event_loop_lag_max_seconds "):
            return float(line.split()[1])
    return None


def phase(server: ServerProcess, client: httpx.Client, zone_id: str, name: str,
          seconds: float, udp_packets: int, prefix: str, nice: int) -> None:
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
        loop_lag_max(server)  # resets the server's maximum: the next read covers this phase
        cpu_before, started = cpu_seconds(server.pid), time.monotonic()
        try:
            with attack(server, seconds, udp_packets, kinds=kinds, nice=nice) as log:
                time.sleep(seconds)
        finally:
            writer.stop()
            prober.stop()
    after = kernel_udp_drops()
    lag = loop_lag_max(server)
    cpu_share = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - started)
    writes.settle()
    load = os.getloadavg()[0]
    print(f"\n== {name} ({', '.join(kinds) or 'no attack'}; {seconds:.0f} s; load average "
          f"{load:.1f}; attacker nice {nice})")
    if dropped is not None and after is not None:
        print(f"  kernel receive-buffer drops (whole machine): {after - dropped}")
    if lag is not None:
        print(f"  server event-loop lag, worst: {lag * 1000:.1f} ms; server CPU: "
              f"{cpu_share:.2f} of a core")
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
    parser.add_argument("--attacker-nice", type=int, default=ATTACKER_NICE,
                        help="the attacker process's nice increment (0: same priority)")
    args = parser.parse_args()
    with ServerProcess(wait_dns=True, project=QUIET) as server, \
            httpx.Client(base_url=server.api_url, headers=headers(QUIET), timeout=30) as client:
        zone_id = quiet_zone(client)
        for i, name in enumerate(args.phases.split(",")):
            phase(server, client, zone_id, name, args.seconds, args.udp_packets, f"p{i}",
                  args.attacker_nice)
            time.sleep(1)  # let the previous phase's leftovers drain
        alive = "still up" if server.is_running() else "EXITED"
        print(f"\nserver {alive}; log tracebacks: "
              f"{server.log_path.read_text(errors='replace').count('Traceback')}")


if __name__ == "__main__":
    main()
