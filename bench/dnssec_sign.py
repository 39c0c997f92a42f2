#!/usr/bin/env python3
"""DNSSEC signing cost (issue 15): how long mdns takes to sign a zone, cold and after a change.

Builds a zone of ``--records`` A/AAAA/TXT records (default 5,000) in memory and signs it through
the same path mdns uses for an AXFR of a signed zone (``mdns/signing.SigningSource``: records
→ RRsets → ``domain/dnssec.sign_zone`` → served records), with a KSK and a ZSK:

* cold: every RRset signed (an empty signature cache, e.g. after a restart);
* after one change: one record changed and the serial bumped, signatures re-used from the
  cache for everything the change did not touch;
* after one added name: the new name and its NSEC/NSEC3 neighbour re-signed.

Figures are printed, never asserted.

    PYTHONPATH=src .venv/bin/python bench/dnssec_sign.py [--records N] [--algorithm A] [--nsec3]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from openkeel_designate.dnswire.zonedata import SealedKey, ServedRecord, ZoneSigning
from openkeel_designate.domain.dnssec import keys as dnssec_keys
from openkeel_designate.mdns.signing import SigningSource

ZONE_ID = "bench-zone"
ORIGIN = "bench.example."


class MemorySource:
    """A ZoneSource of one zone held in memory."""

    def __init__(self, records: list[ServedRecord], signing: ZoneSigning):
        self.records = records
        self.signing = signing

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


async def timed(signer: SigningSource) -> tuple[float, float, int]:
    """Wall and CPU seconds (the machine is shared: CPU is the steadier figure)."""
    start, cpu = time.perf_counter(), time.process_time()
    records = await signer.zone_records(ZONE_ID)
    return time.perf_counter() - start, time.process_time() - cpu, len(records)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--algorithm", default="ECDSAP256SHA256",
                        choices=sorted(dnssec_keys.ALGORITHMS))
    parser.add_argument("--nsec3", action="store_true")
    args = parser.parse_args()
    kek = dnssec_keys.new_kek()
    sealed = []
    for flags in (dnssec_keys.SEP_FLAGS, dnssec_keys.ZONE_FLAGS):
        private = dnssec_keys.generate(args.algorithm)
        sealed.append(SealedKey(flags, dnssec_keys.ALGORITHMS[args.algorithm],
                                dnssec_keys.seal(kek, private, ZONE_ID)))
    signing = ZoneSigning(True, "NSEC3" if args.nsec3 else "NSEC", tuple(sealed))
    source = MemorySource(zone(args.records), signing)
    signer = SigningSource(source, lambda: kek)  # type: ignore[arg-type]
    label = f"{args.records} records, {args.algorithm}, {signing.nsec}"

    cold, cpu, served = await timed(signer)
    print(f"{label}: cold sign {cold * 1000:.0f} ms, CPU {cpu * 1000:.0f} ms ({served} RRs "
          f"served, {len(signer.cache)} cache entries)")
    source.records[0] = soa(2)
    source.records[3] = ServedRecord(f"host0.{ORIGIN}", "A", 300, "192.0.2.200")
    warm, cpu, _ = await timed(signer)
    print(f"{label}: re-sign after one changed record {warm * 1000:.0f} ms, "
          f"CPU {cpu * 1000:.0f} ms")
    source.records[0] = soa(3)
    source.records.append(ServedRecord(f"new.{ORIGIN}", "A", 300, "192.0.2.201"))
    added, cpu, _ = await timed(signer)
    print(f"{label}: re-sign after one added name {added * 1000:.0f} ms, CPU {cpu * 1000:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
