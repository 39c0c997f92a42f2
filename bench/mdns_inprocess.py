#!/usr/bin/env python3
"""CPU of mdns's answers after each change, in process: no network, no nameserver.

After every change a pool's nameservers (the built-in one included) ask mdns for the zone's SOA
and then transfer the difference by IXFR. On the embedded default mdns shares its process (and
its 2 cores) with the API and the worker, so its CPU per change is taken from theirs. This
measures it alone (``time.process_time``: every thread of this process, the SQLite driver's
included), by calling the handler mdns's listener calls with the wire of each query:

* ``SOA``: a UDP SOA query for the zone's apex, with the zone memory of the default
  configuration (``zone_cache_ttl = 1``) and without it (every query looks the zone up);
* ``IXFR``: a TCP IXFR from the serial before the change (one added recordset), through the
  ``SigningSource`` mdns runs with (the zone is unsigned: its DNSSEC setting is read, no more).

Each change is made through the API (ASGI, no HTTP) and given its serial by the worker's claim
(untimed); answers are checked (the SOA's serial, an incremental IXFR). Printed, never asserted.

    .venv/bin/python bench/mdns_inprocess.py [--changes 300] [--database sqlite]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Awaitable, Callable

import dns.message
import dns.rdatatype
import dns.rrset
import httpx

from inprocess import DATABASES, HEADERS, Clock, run_on, serve_pending, wired
from openkeel_designate.mdns.handler import MdnsHandler
from openkeel_designate.mdns.signing import SigningSource
from openkeel_designate.mdns.xfrcache import TransferCache
from openkeel_designate.mdns.zonecache import ZoneCache
from openkeel_designate.storage import workqueue
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.zonesource import SqlZoneSource

OWNER = "bench-mdns"
ZONE = "z0.bench.example."
PEER = ("127.0.0.1", 53000)
STEPS = ("SOA", "SOA, no zone memory", "IXFR")


def soa_query() -> bytes:
    return dns.message.make_query(ZONE, "SOA").to_wire()


def ixfr_query(serial: int) -> bytes:
    query = dns.message.make_query(ZONE, "IXFR")
    query.authority.append(dns.rrset.from_text(ZONE, 0, "IN", "SOA", f". . {serial} 0 0 0 0"))
    return query.to_wire()


def serial_in(answer: bytes) -> int:
    message = dns.message.from_wire(answer)
    return next(int(rrset[0].serial) for rrset in message.answer
                if rrset.rdtype == dns.rdatatype.SOA)


async def one_change(db: Database, post: Callable[[], Awaitable[httpx.Response]],
                     cached: MdnsHandler, uncached: MdnsHandler, clock: Clock) -> None:
    before = serial_in((await cached(soa_query(), PEER, False))[0])
    response = await post()
    assert response.status_code == 202, response.text
    claimed = await workqueue.claim(db, OWNER, 30, 10)
    assert len(claimed) == 1, claimed
    zone = claimed[0]
    await workqueue.complete_many(db, [(zone, zone.serial)], OWNER)
    soa_wire, ixfr_wire = soa_query(), ixfr_query(before)  # the client's work is not timed
    [soa] = await clock.time("SOA", lambda: cached(soa_wire, PEER, False))
    assert serial_in(soa) == zone.serial, (serial_in(soa), zone.serial)
    [soa] = await clock.time("SOA, no zone memory", lambda: uncached(soa_wire, PEER, False))
    assert serial_in(soa) == zone.serial
    answers = await clock.time("IXFR", lambda: cached(ixfr_wire, PEER, True))
    rrs = [r for a in answers for r in dns.message.from_wire(a, xfr=True,
                                                              one_rr_per_rrset=True).answer]
    # new SOA, old SOA, new SOA, the recordset, new SOA: incremental, not the whole zone
    assert [r.rdtype for r in rrs] == [dns.rdatatype.SOA] * 3 + [dns.rdatatype.A,
                                                                 dns.rdatatype.SOA], rrs


async def measure(url: str, state_dir: str, changes: int) -> None:
    async with wired(url, state_dir, quota_zone_recordsets=2 * changes + 100,
                     quota_zone_records=2 * changes + 100) as (services, app):
        db = services.db
        source = SigningSource(SqlZoneSource(db), lambda: b"")
        pool_id = services.conf["service:central"].default_pool_id
        cached = MdnsHandler(source, pool_id, zones=ZoneCache(1.0),
                             transfers=TransferCache(16 * 1024 * 1024, 0, 0))
        uncached = MdnsHandler(source, pool_id)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://api.bench", headers=HEADERS) as client:
            made = await client.post("/v2/zones", json={"name": ZONE,
                                                        "email": "hostmaster@bench.example"})
            zone_id = made.json()["id"]
            await serve_pending(db, OWNER)

            def new_recordset(index: int) -> Callable[[], Awaitable[httpx.Response]]:
                return lambda: client.post(f"/v2/zones/{zone_id}/recordsets", json={
                    "name": f"r{index}.{ZONE}", "type": "A", "records": ["192.0.2.1"]})

            for index in range(30):  # warm-up
                await one_change(db, new_recordset(-1 - index), cached, uncached, Clock(STEPS))
            clock = Clock(STEPS)
            for index in range(changes):
                await one_change(db, new_recordset(index), cached, uncached, clock)
    steps = "  ".join(f"{step} {spent / changes:5.2f}" for step, spent in clock.spent.items())
    print(f"ms CPU per answer: {steps}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--changes", type=int, default=300)
    ap.add_argument("--database", default="sqlite", choices=DATABASES)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=open(os.devnull, "w"))
    print(f"load average {os.getloadavg()[0]:.1f}, {args.database}, {args.changes} changes")
    run_on(args.database, lambda url, state_dir: measure(url, state_dir, args.changes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
