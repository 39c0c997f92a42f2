#!/usr/bin/env python3
"""What the built-in nameserver's loop does to everyone else while it takes in a large zone.

Runs a ``BuiltinNameserver`` (persisting to a temporary directory, as the embedded server does)
in this process, secondary of a master whose AXFR answers are rendered in advance
(``tests/support/prerendered_master.py``), so the loop's work during a refresh is the
nameserver's alone: reading, parsing, indexing, swapping, writing the zone file.  Per zone it
prints the refresh time (SOA check to new version served), the loop's lag (a 5 ms ticker on the
same loop: how late it woke, worst and p99) and what another tenant's DNS queries saw (a separate
process asking for a name of a small zone on the same nameserver over UDP every 2 ms: answered,
worst and p99 round trip).  Zones: ``--records`` A records (default 100,000), and when BIND's
``dnssec-signzone`` is installed a zone of ``--signed`` names (default 5,000) signed with NSEC
(~4 records a name).  The API shares this loop in the embedded server, so the loop lag is also
the extra wait of an API call.  It also prints CPython's full garbage collections meanwhile:
each one stops the process for as long as it takes to scan every object it holds (a 100,000-record
zone is a few hundred thousand), which no slicing can split.  Nothing is asserted.

    .venv/bin/python bench/nameserver_refresh.py [--records 100000] [--signed 5000]
                                                 [--per-message 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/support

import dns.message  # noqa: E402
import dns.name  # noqa: E402
import dns.query  # noqa: E402
import dns.rrset  # noqa: E402
from support import signed_zone  # noqa: E402
from support.prerendered_master import PrerenderedMaster, zone_rrsets  # noqa: E402

from openkeel_designate.nameserver.server import BuiltinNameserver  # noqa: E402

QUIET = dns.name.from_text("quiet.example.")
QUIET_HOST = dns.name.from_text("www.quiet.example.")


def soa(origin: dns.name.Name, serial: int) -> dns.rrset.RRset:
    return dns.rrset.from_text(origin, 300, "IN", "SOA",
                               f"ns1.{origin} hostmaster.{origin} {serial} 3600 600 86400 60")


def plain(origin: dns.name.Name, serial: int, count: int) -> list[dns.rrset.RRset]:
    rrsets = [soa(origin, serial), dns.rrset.from_text(origin, 300, "IN", "NS", f"ns1.{origin}")]
    rrsets += [dns.rrset.from_text(f"h{i}.{origin}", 300, "IN", "A",
                                   f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}")
               for i in range(count)]
    return rrsets + [soa(origin, serial)]


def signed(origin: dns.name.Name, count: int, directory: Path) -> list[dns.rrset.RRset]:
    body = "@ SOA ns1 hostmaster 2 3600 600 86400 60\n@ NS ns1\nns1 A 192.0.2.53\n" + "".join(
        f"h{i} A 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}\n" for i in range(count))
    return zone_rrsets(signed_zone.sign(directory, origin.to_text(), body).zone)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


async def lag_ticker(samples: list[float], stop: asyncio.Event, period: float = 0.005) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(period)
        samples.append(time.perf_counter() - started - period)


def full_collections(durations: list[float]):
    """A ``gc.callbacks`` entry noting how long each full (generation 2) collection took."""
    started = [0.0]

    def callback(phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            durations.append(time.perf_counter() - started[0])
    return callback


def probe_main(host: str, port: int, seconds: float) -> None:
    """In a separate process: ask for the quiet zone's name until ``seconds`` passed."""
    times, failed = [], 0
    end = time.monotonic() + seconds
    stopped = []
    signal.signal(signal.SIGTERM, lambda *_: stopped.append(True))
    while time.monotonic() < end and not stopped:
        started = time.monotonic()
        try:
            dns.query.udp(dns.message.make_query(QUIET_HOST, "A"), host, port=port, timeout=2)
            times.append(time.monotonic() - started)
        except Exception:  # noqa: BLE001 - a lost query is what is being counted
            failed += 1
        time.sleep(0.002)
    print(json.dumps({"times": times, "failed": failed}))


async def refresh(nameserver: BuiltinNameserver, master: PrerenderedMaster,
                  origin: dns.name.Name, label: str, records: int) -> None:
    host, port = nameserver.bound[0]
    master.serials[origin] = 2
    probe = subprocess.Popen([sys.executable, __file__, "--probe", host, str(port), "600"],
                             stdout=subprocess.PIPE, text=True)
    await asyncio.sleep(1.0)  # the probe process starts
    samples: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.ensure_future(lag_ticker(samples, stop))
    await asyncio.sleep(0.3)
    collections: list[float] = []
    gc.callbacks.append(full_collections(collections))
    started = time.perf_counter()
    await nameserver.refresher.refresh(origin)
    took = time.perf_counter() - started
    gc.callbacks.pop()
    await asyncio.sleep(0.3)
    stop.set()
    await ticker
    probe.terminate()
    out, _ = await asyncio.to_thread(probe.communicate)
    served = nameserver.store.get(origin)
    assert served is not None and served.serial == 2, "the new version is not served"
    print(f"\n== {label}: {records:,} records in the transfer ({len(served.zone.nodes):,} names)")
    print(f"  refresh (SOA check to new version served, zone file written): {took:.2f} s")
    print(f"  loop lag: worst {max(samples) * 1000:.1f} ms, p99 "
          f"{percentile(samples, 0.99) * 1000:.1f} ms ({len(samples)} ticks)")
    if collections:
        print(f"  CPython full garbage collections during the refresh: {len(collections)}, "
              f"longest {max(collections) * 1000:.0f} ms (they scan every object the process "
              f"holds, and no slicing can split one)")
    if out.strip():
        result = json.loads(out.strip().splitlines()[-1])
        times = result["times"]
        print(f"  other tenant's DNS (UDP A): {len(times)} answered, {result['failed']} lost, "
              f"p99 {percentile(times, 0.99) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms, "
              f"median {statistics.median(times) * 1000:.1f} ms")


async def main(args: argparse.Namespace) -> None:
    big = dns.name.from_text("big.example.")
    secure = dns.name.from_text("signed.example.")
    master = PrerenderedMaster()
    master.add(QUIET, 1, [soa(QUIET, 1), dns.rrset.from_text(QUIET_HOST, 300, "IN", "A",
                                                             "192.0.2.80"), soa(QUIET, 1)])
    master.add(big, 1, plain(big, 1, 1), args.per_message)
    master.add(big, 2, plain(big, 2, args.records), args.per_message)
    count = {big: args.records + 2}
    with tempfile.TemporaryDirectory() as directory:
        if args.signed and signed_zone.available():
            master.add(secure, 1, plain(secure, 1, 1), args.per_message)
            rrsets = signed(secure, args.signed, Path(directory) / "keys")
            master.add(secure, 2, rrsets, args.per_message)
            count[secure] = sum(len(rrset) for rrset in rrsets) - 1
        async with master:
            nameserver = BuiltinNameserver([("127.0.0.1", 0)], master.bound,
                                           str(Path(directory) / "ns"), xfr_timeout=120.0)
            await nameserver.start()
            try:
                for origin in (QUIET, *count):
                    master.serials[origin] = 1
                    await nameserver.refresher.refresh(origin)
                await refresh(nameserver, master, big, "unsigned", count[big])
                if secure in count:
                    await refresh(nameserver, master, secure, "signed (NSEC)", count[secure])
                else:
                    print("\n(signed zone skipped: dnssec-signzone/dnssec-keygen not installed)")
            finally:
                await nameserver.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--probe":
        probe_main(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--signed", type=int, default=5_000, help="names; 0: no signed zone")
    parser.add_argument("--per-message", type=int, default=1000, help="RRsets per message")
    asyncio.run(main(parser.parse_args()))
