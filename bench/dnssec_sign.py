#!/usr/bin/env python3
"""DNSSEC signing cost (issue 15): how long mdns takes to sign a zone, cold and after a change.

Builds a zone of ``--records`` A/AAAA/TXT records (default 5,000) in memory and signs it through
the same path mdns uses for an AXFR of a signed zone (``mdns/signing.SigningSource``: records
→ RRsets → ``domain/dnssec.sign_zone`` → served records), with a KSK and a ZSK:

* cold: every RRset signed (an empty signature cache, e.g. after a restart);
* after one change: one record changed and the serial bumped, signatures re-used from the
  cache for everything the change did not touch;
* after one added name: the new name and its NSEC/NSEC3 neighbour re-signed.

Each with wall time and CPU time of this process and of the offload worker that signed
(``offload.py``; zero when signing runs in a thread of this process, as before).

Part ``ixfr``: the zone signed with a stored epoch, one record changed (serial 1 → 2); then
an IXFR from serial 1 as mdns computes it (``SigningSource.zone_changes``: the worker signs both
versions from its cache and sends back only the difference), against the alternative of
having the worker send both signed versions back and diffing them in mdns (two
``zone_records``); printed: wall and CPU of each, and the difference's size beside the zone's.

Part ``stages``: where the time of a signed AXFR of a zone of ``--records`` A records goes, each
stage timed alone in this process (wall and CPU): signing cold in the worker's function
(``zone_signer.sign``), pickling its result (what the pool pipe carries back) and reading it,
building the served records, rendering the RRs' wire and splitting them into messages, then
signing the next version (SOA changed) with the signatures kept.

Part ``loop``: a 5 ms ticker on this process's event loop while another zone of ``--records``
is signed cold; printed: the ticker's worst and p99 lag (what every tenant's DNS answer and API
call would wait for in the serving process).

Part ``server``: starts our server (embedded: api, mdns, nameserver on SQLite), gives a quiet
project a small zone, imports a zone of ``--records`` A records for a noisy project, then turns
DNSSEC on for it (the first signing happens when the nameserver transfers it) while probes keep
asking every 20 ms (mdns SOA and nameserver A of the quiet zone, ``GET`` of the quiet zone
over the API); printed: p99 and worst round trip per probe, and the server's worst event-loop
lag, from ``PUT .../dnssec`` until the zone's DNSSEC status is ACTIVE.

The figures before the process pool come from running this same script against the code of
that time (``PYTHONPATH=<old checkout>/src``); the mode is printed.  Figures are printed, never
asserted.

    PYTHONPATH=src .venv/bin/python bench/dnssec_sign.py [--records N] [--algorithm A] [--nsec3]
                                                         [--parts cost,ixfr,stages,loop,server]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

from openkeel_designate.dnswire.zonedata import SealedKey, ServedRecord, ZoneDelta, ZoneSigning
from openkeel_designate.domain.dnssec import keys as dnssec_keys
from openkeel_designate.mdns.signing import SigningSource

ZONE_ID = "bench-zone"
FAKE_POOL = """---
- name: default
  description: secondaries not measured here
  attributes: {{}}
  ns_records:
    - hostname: ns1.example.net.
      priority: 1
  nameservers:
    - host: 127.0.0.1
      port: {ns}
  targets:
    - type: fake
      description: secondaries managed elsewhere
      masters:
        - host: 127.0.0.1
          port: {mdns}
      options: {{}}
"""
ORIGIN = "bench.example."


class MemorySource:
    """A ZoneSource of one zone held in memory (``deltas``: its IXFR history)."""

    def __init__(self, records: list[ServedRecord], signing: ZoneSigning):
        self.records = records
        self.signing = signing
        self.deltas: list[ZoneDelta] = []

    async def zone_changes(self, zone_id: str, since: int) -> list[ZoneDelta] | None:
        return [d for d in self.deltas if d.from_serial >= since] or None

    async def zone_records(self, zone_id: str) -> list[ServedRecord]:
        return list(self.records)

    async def zone_signing(self, zone_id: str) -> ZoneSigning:
        return self.signing


def soa(serial: int) -> ServedRecord:
    return ServedRecord(ORIGIN, "SOA", 3600,
                        f"ns1.{ORIGIN} hostmaster.{ORIGIN} {serial} 3600 600 86400 300")


def zone(count: int) -> list[ServedRecord]:
    records = [soa(1), ServedRecord(ORIGIN, "NS", 3600, f"ns1.{ORIGIN}"),
               ServedRecord(f"ns1.{ORIGIN}", "A", 3600, "192.0.2.1")]
    for i in range(count):
        name = f"host{i}.{ORIGIN}"
        kind = i % 3
        if kind == 0:
            address = f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"
            records.append(ServedRecord(name, "A", 300, address))
        elif kind == 1:
            records.append(ServedRecord(name, "AAAA", 300, f"2001:db8::{i:x}"))
        else:
            records.append(ServedRecord(name, "TXT", 300, f'"value {i}"'))
    return records


def offload_module():
    """The offload pool signing runs in, None when it runs in a thread (the code before)."""
    try:
        from openkeel_designate import offload
    except ImportError:
        return None
    return offload if hasattr(offload, "run") else None


async def worker_pid() -> int | None:
    offload = offload_module()
    return None if offload is None else await offload.run(os.getpid, affinity=ZONE_ID)


def cpu_seconds(pid: int | None) -> float:
    """User plus system CPU time of a process so far (Linux /proc); 0 without one."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def timed(signer: SigningSource, worker: int | None) -> tuple[float, float, float, int]:
    """Wall, CPU of this process and CPU of the worker (the machine is shared: CPU is the
    steadier figure)."""
    start, cpu, other = time.perf_counter(), time.process_time(), cpu_seconds(worker)
    records = await signer.zone_records(ZONE_ID)
    return (time.perf_counter() - start, time.process_time() - cpu,
            cpu_seconds(worker) - other, len(records))


def signing_of(args: argparse.Namespace, kek: bytes) -> ZoneSigning:
    sealed = []
    for flags in (dnssec_keys.SEP_FLAGS, dnssec_keys.ZONE_FLAGS):
        private = dnssec_keys.generate(args.algorithm)
        sealed.append(SealedKey(flags, dnssec_keys.ALGORITHMS[args.algorithm],
                                dnssec_keys.seal(kek, private, ZONE_ID)))
    return ZoneSigning(True, "NSEC3" if args.nsec3 else "NSEC", tuple(sealed))


def figures(wall: float, cpu: float, other: float) -> str:
    return (f"{wall * 1000:.0f} ms wall, CPU {cpu * 1000:.0f} ms here + "
            f"{other * 1000:.0f} ms in the worker")


async def cost_part(args: argparse.Namespace, label: str) -> None:
    kek = dnssec_keys.new_kek()
    source = MemorySource(zone(args.records), signing_of(args, kek))
    signer = SigningSource(source, lambda: kek)  # type: ignore[arg-type]
    worker = await worker_pid()  # the pool started before timing (spawning is not signing)
    cold, cpu, other, served = await timed(signer, worker)
    print(f"{label}: cold sign {figures(cold, cpu, other)} ({served} RRs served)")
    source.records[0] = soa(2)
    source.records[3] = ServedRecord(f"host0.{ORIGIN}", "A", 300, "192.0.2.200")
    print(f"{label}: re-sign after one changed record "
          f"{figures(*(await timed(signer, worker))[:3])}")
    source.records[0] = soa(3)
    source.records.append(ServedRecord(f"new.{ORIGIN}", "A", 300, "192.0.2.201"))
    print(f"{label}: re-sign after one added name {figures(*(await timed(signer, worker))[:3])}")


async def ixfr_part(args: argparse.Namespace, label: str) -> None:
    kek = dnssec_keys.new_kek()
    setting = dataclasses.replace(signing_of(args, kek), epoch=int(time.time()), epoch_serial=1)
    source = MemorySource(zone(args.records), setting)
    signer = SigningSource(source, lambda: kek)  # type: ignore[arg-type]
    worker = await worker_pid()
    old = await signer.zone_records(ZONE_ID)  # serial 1 signed: what the secondary holds
    changed = ServedRecord(f"host0.{ORIGIN}", "A", 300, "192.0.2.200")
    source.deltas = [ZoneDelta(1, 2, (source.records[3],), (changed,))]
    source.records[0], source.records[3] = soa(2), changed
    await signer.zone_records(ZONE_ID)  # the AXFR of serial 2 was rendered first
    start, cpu, other = time.perf_counter(), time.process_time(), cpu_seconds(worker)
    [delta] = await signer.zone_changes(ZONE_ID, 1)
    spent = (time.perf_counter() - start, time.process_time() - cpu,
             cpu_seconds(worker) - other)
    print(f"{label}: IXFR 1→2, difference made in the worker {figures(*spent)}"
          f": -{len(delta.removed)} +{len(delta.added)} RRs (the zone: {len(old)} RRs)")
    source.records[0] = soa(1)
    source.records[3] = source.deltas[0].removed[0]
    start, cpu, other = time.perf_counter(), time.process_time(), cpu_seconds(worker)
    before = set(await signer.zone_records(ZONE_ID))
    source.records[0], source.records[3] = soa(2), changed
    after = set(await signer.zone_records(ZONE_ID))
    removed, added = before - after, after - before
    spent = (time.perf_counter() - start, time.process_time() - cpu,
             cpu_seconds(worker) - other)
    print(f"{label}: IXFR 1→2, both versions sent back and compared in mdns {figures(*spent)}"
          f": -{len(removed)} +{len(added)} RRs (SOA included)")


def stages_part(args: argparse.Namespace) -> None:
    import pickle

    import dns.name

    from openkeel_designate.mdns import zone_signer
    from openkeel_designate.mdns.packing import ZoneWire, room_for, split
    kek = dnssec_keys.new_kek()
    signing = signing_of(args, kek)
    records = [soa(1), ServedRecord(ORIGIN, "NS", 3600, f"ns1.{ORIGIN}")] + [
        ServedRecord(f"r{i}.{ORIGIN}", "A", 300, f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}")
        for i in range(args.records)]
    plain = [(r.name, r.type, r.ttl, r.data) for r in records]
    epoch = 1_760_000_000

    def timed_stage(title: str, work):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        print(f"  {title}: {time.perf_counter() - wall:.2f} s wall, "
              f"{time.process_time() - cpu:.2f} s CPU", flush=True)
        return result

    print(f"stages of a signed AXFR, {args.records} A records, {args.algorithm}:")
    signed = timed_stage("sign cold (zone_signer.sign)", lambda: zone_signer.sign(
        ZONE_ID, plain, kek, signing.keys, args.nsec3, epoch))
    print(f"    {len(signed.records)} records made, {signed.fresh_signatures} signatures")
    pickled = timed_stage("pickle the result", lambda: pickle.dumps(signed, protocol=5))
    print(f"    {len(pickled) / 1e6:.1f} MB")
    timed_stage("unpickle it", lambda: pickle.loads(pickled))
    served = timed_stage("build ServedRecords", lambda: records + [
        ServedRecord(*made) for made in signed.records])

    def render() -> list[bytes]:
        wire = ZoneWire(ORIGIN)
        return [wire.wire(served[0]), *wire.wires(r for r in served if r.type != "SOA"),
                wire.wire(served[0])]
    body = timed_stage("render the RRs' wire", render)
    print(f"    {sum(map(len, body)) / 1e6:.1f} MB")
    question = (dns.name.from_text(ORIGIN), 252, 1)
    timed_stage("split into messages", lambda: split(body, room_for(question, 65535, None)))
    plain[0] = (ORIGIN, "SOA", 3600, soa(2).data)
    timed_stage("sign the next version (signatures kept)", lambda: zone_signer.sign(
        ZONE_ID, plain, kek, signing.keys, args.nsec3, epoch))


async def loop_part(args: argparse.Namespace, label: str) -> None:
    """How late a 5 ms ticker on this loop fires while a zone is signed cold."""
    kek = dnssec_keys.new_kek()
    signer = SigningSource(MemorySource(zone(args.records), signing_of(args, kek)),
                           lambda: kek)  # type: ignore[arg-type]
    await worker_pid()
    lags: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        while not done.is_set():
            due = time.perf_counter() + 0.005
            await asyncio.sleep(0.005)
            lags.append(max(0.0, time.perf_counter() - due))

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.1)
    lags.clear()
    start = time.perf_counter()
    await signer.zone_records(ZONE_ID)
    wall = time.perf_counter() - start
    done.set()
    await ticker
    ordered = sorted(lags)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else 0.0
    print(f"{label}: loop lag while signing cold ({wall * 1000:.0f} ms): worst "
          f"{max(lags, default=0) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms over {len(lags)} "
          f"ticks of 5 ms")


def server_part(args: argparse.Namespace) -> None:
    """Other tenants' round trips while the noisy project's zone is signed the first time."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/support
    import httpx
    from import_isolation import QUOTAS, large_file, wait_task
    from noisy_neighbour import ADDRESS, HOST, ZONE, loop_lag_max, quiet_zone
    from support.noisy import (
        NOISY,
        POOL_NAMESERVER,
        QUIET,
        RESOLVER,
        Prober,
        ProbeStats,
        api_read,
        dns_ask,
        expect_address,
        expect_soa,
        headers,
    )
    from support.server import ServerProcess, free_port

    noisy_zone = "signed.noisy.example."
    asked: dict[str, list[tuple[float, float]]] = {}  # per probe: (sent at, round trip)

    def stamped(kind: str, ask):
        """The probe, its answers also kept with the time they were asked."""
        def run(stats: ProbeStats) -> None:
            started, answered = time.monotonic(), len(stats.times)
            ask(stats)
            if len(stats.times) > answered:
                asked.setdefault(kind, []).append((started, stats.times[-1]))
        return run

    room = max(10_000, args.records + 100)  # the zone's records within the project's quotas
    options = {"DEFAULT": {**QUOTAS, "quota_zone_recordsets": room, "quota_zone_records": room},
               "oslo_middleware": {"max_request_body_size": max(4 << 20, args.records * 64)}}
    chain = args.builtin_nameserver
    # mdns alone: the pool's secondaries are elsewhere (a fake target, its nameserver a port
    # nobody answers), so the process measured does the signing and serves the transfer, and
    # nothing else of it; with the built-in nameserver it also loads the signed zone.
    extra = ({} if chain else
             {"pools": lambda server: FAKE_POOL.format(mdns=server.mdns_port, ns=free_port()),
              "roles": "api,worker,mdns,producer"})
    with ServerProcess(options=options, wait_dns=chain, project=QUIET, start_timeout=120,
                       **extra) as server, \
            httpx.Client(base_url=server.api_url, headers=headers(QUIET), timeout=60) as quiet, \
            httpx.Client(base_url=server.api_url, headers=headers(NOISY), timeout=300) as noisy:
        if chain:
            quiet_id = quiet_zone(quiet)
        else:  # no nameserver to make it ACTIVE: mdns serves it all the same
            quiet_id = quiet.post("/v2/zones", json={"name": ZONE,
                                                     "email": "h@quiet.example"}).json()["id"]
        imported = noisy.post("/v2/zones/tasks/imports", headers={"Content-Type": "text/dns"},
                              content=large_file(noisy_zone, args.records).encode())
        task = wait_task(noisy, imported.json()["links"]["self"])
        if task["status"] != "COMPLETE":
            raise SystemExit(f"the import failed: {task}")
        url = f"/v2/zones/{task['zone_id']}"
        if chain:
            wait_task(noisy, url)
        time.sleep(1)
        prober = Prober()
        prober.every("mdns SOA (quiet)", stamped("mdns SOA (quiet)", lambda s: dns_ask(
            server.mdns_port, ZONE, "SOA", s, expect_soa, POOL_NAMESERVER)))
        if chain:
            prober.every("nameserver A (quiet)", stamped("nameserver A (quiet)", lambda s: dns_ask(
                server.ns_port, HOST, "A", s, expect_address(ADDRESS), RESOLVER)))
        prober.every("api GET zone (quiet)", stamped("api GET zone (quiet)", api_read(
            quiet, f"/v2/zones/{quiet_id}")))
        windows = []
        statuses: set[str] = set()  # every status of the zone and its DNSSEC seen on the way
        try:
            time.sleep(0.5)
            loop_lag_max(server)  # resets the maximum: the next read covers the signing
            started = time.monotonic()
            enabled = noisy.put(f"{url}/dnssec", json={"enabled": True,
                                                       "algorithm": args.algorithm,
                                                       "nsec": "NSEC3" if args.nsec3 else "NSEC"})
            if enabled.status_code != 202:
                raise SystemExit(f"DNSSEC not turned on: {enabled.status_code} {enabled.text}")
            while not (signed_rrs := signed_transfer(server.mdns_port, noisy_zone)):
                time.sleep(0.05)
            windows.append(("PUT dnssec → a signed AXFR from mdns received (signing + "
                            "transfer)", started, time.monotonic(), loop_lag_max(server)))
            if chain:
                deadline = time.monotonic() + 600
                while True:
                    dnssec_status = noisy.get(f"{url}/dnssec").json().get("status")
                    statuses.add(f"dnssec {dnssec_status}")
                    statuses.add(f"zone {noisy.get(url).json().get('status')}")
                    if dnssec_status == "ACTIVE":
                        break
                    if time.monotonic() > deadline:
                        raise SystemExit("the zone's DNSSEC never went ACTIVE")
                    time.sleep(0.05)
                windows.append(("… → DNSSEC status ACTIVE (the built-in nameserver loads "
                                "the signed zone)", windows[-1][2], time.monotonic(),
                                loop_lag_max(server)))
        finally:
            prober.stop()
        repeated = [timed_raw_axfr(server.mdns_port, noisy_zone, signed_rrs) for _ in range(2)]
        memory = [("right after", rss_of_tree(server.pid))]
        if args.idle_wait:
            time.sleep(args.idle_wait)
            memory.append((f"idle {args.idle_wait:.0f} s later", rss_of_tree(server.pid)))
    print(f"server ({'mdns and the built-in nameserver' if chain else 'mdns alone'}), "
          f"{args.records} records signed the first time, probes every 20 ms:")
    for title, start, end, lag in windows:
        print(f"  {title}: {end - start:.1f} s, server event-loop lag worst "
              f"{(lag or 0) * 1000:.1f} ms")
        for kind, samples in asked.items():
            window = ProbeStats(kind, [rtt for at, rtt in samples if start <= at < end])
            print("    " + window.line())
    print(f"  AXFR of the signed zone from mdns, repeated (raw socket, nothing parsed): "
          f"{signed_rrs} RRs in " + ", ".join(f"{t:.3f} s ({signed_rrs / t:,.0f} RR/s)"
                                             for t in repeated))
    if chain:
        errors = sorted(s for s in statuses if s.endswith("ERROR"))
        print(f"  statuses seen from PUT to DNSSEC ACTIVE: {', '.join(sorted(statuses))} "
              f"({'ERROR on the way' if errors else 'no ERROR'})")
    for when, (own, workers) in memory:
        print(f"  server RSS {when}: {own / 1024:.0f} MiB, its offload workers "
              f"{workers / 1024:.0f} MiB")


def rss_of_tree(pid: int | None) -> tuple[int, int]:
    """KiB resident: the process, and its children together (the offload pool's workers)."""
    def rss(of: int) -> int:
        for line in Path(f"/proc/{of}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0
    if pid is None:
        return 0, 0
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return rss(pid), sum(rss(int(child)) for child in children)


def signed_transfer(port: int, zone: str) -> int:
    """An AXFR from mdns, as a secondary asks it (BIND's ``dig``: parsing 20,000 records in
    Python here would take a core from the server measured): its RR count if it holds the
    DNSKEY, else 0."""
    out = subprocess.run(["dig", "-p", str(port), "@127.0.0.1", zone, "AXFR", "+noall",
                          "+answer", "+time=300"], capture_output=True, text=True, check=False,
                         timeout=600).stdout
    lines = [line for line in out.splitlines() if line and not line.startswith(";")]
    return len(lines) if any(line.split()[3:4] == ["DNSKEY"] for line in lines) else 0


def timed_raw_axfr(port: int, zone: str, expect: int) -> float:
    """Seconds for one AXFR read off the socket (``axfr.xfr_raw``: RRs counted from the
    headers, nothing parsed), as ``bench/axfr.py`` measures unsigned zones."""
    from axfr import xfr_raw
    started = time.perf_counter()
    xfr_raw(port, zone, expect)
    return time.perf_counter() - started


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--algorithm", default="ECDSAP256SHA256",
                        choices=sorted(dnssec_keys.ALGORITHMS))
    parser.add_argument("--nsec3", action="store_true")
    parser.add_argument("--parts", default="cost,ixfr,loop,server")
    parser.add_argument("--idle-wait", type=float, default=0,
                        help="server part: seconds to wait after the transfers before reading "
                             "the server's memory again (idle)")
    parser.add_argument("--builtin-nameserver", action="store_true",
                        help="server part: the embedded default, the built-in nameserver "
                             "loading the signed zone in the same process")
    args = parser.parse_args()
    parts = args.parts.split(",")
    mode = "the offload process pool" if offload_module() else "a thread of this process"
    label = (f"{args.records} records, {args.algorithm}, "
             f"{'NSEC3' if args.nsec3 else 'NSEC'}, signing in {mode}")
    print(f"load average (1 min) at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if "cost" in parts:
        await cost_part(args, label)
    if "ixfr" in parts:
        await ixfr_part(args, label)
    if "stages" in parts:
        stages_part(args)
    if "loop" in parts:
        await loop_part(args, label)
    if "server" in parts:
        await asyncio.to_thread(server_part, args)
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}")
    offload = offload_module()
    if offload is not None:
        offload.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
