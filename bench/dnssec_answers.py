"""What DNSSEC costs the built-in nameserver: indexing a signed zone, and answering with DO.

Signs a zone of ``--records`` A records with BIND's ``dnssec-signzone`` (NSEC and NSEC3), then
prints the time ``ServedZone.of`` takes for the unsigned and the signed versions (the index is
built once per served zone version) and the time ``answer()`` takes per query, in memory, for
a positive answer and an NXDOMAIN, without and with DO.  Figures only, never asserted.

    PYTHONPATH=src .venv/bin/python bench/dnssec_answers.py --records 5000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import dns.message
import dns.name
import dns.rdatatype
import dns.zone

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from openkeel_designate.nameserver.answer import answer  # noqa: E402
from openkeel_designate.nameserver.zones import ServedZone  # noqa: E402
from support.signed_zone import sign  # noqa: E402

HEAD = "@ SOA ns1 hostmaster 1 3600 600 604800 60\n@ NS ns1\nns1 A 192.0.2.53\n"


def body(records: int) -> str:
    return HEAD + "".join(f"host{i} A 10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}\n"
                          for i in range(records))


def per_query(served: ServedZone, name: str, dnssec: bool, rounds: int) -> float:
    qname = dns.name.from_text(name)
    query = dns.message.make_query(qname, "A", want_dnssec=dnssec)
    start = time.perf_counter()
    for _ in range(rounds):
        answer(dns.message.make_response(query), served, qname, dns.rdatatype.A, dnssec)
    return (time.perf_counter() - start) / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    text = body(args.records)
    unsigned = dns.zone.from_text(f"$ORIGIN example.\n$TTL 300\n{text}", relativize=False)
    start = time.perf_counter()
    plain = ServedZone.of(unsigned)
    print(f"unsigned: ServedZone.of {1000 * (time.perf_counter() - start):.1f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        for chain in ("nsec", "nsec3"):
            signed = sign(Path(tmp) / chain, "example.", text, nsec3=chain == "nsec3").zone
            start = time.perf_counter()
            served = ServedZone.of(signed)
            built = 1000 * (time.perf_counter() - start)
            print(f"{chain}: {len(signed.nodes)} nodes, ServedZone.of {built:.1f} ms")
            for label, zone, name, dnssec in (
                    ("positive, unsigned zone", plain, "host1.example.", False),
                    ("positive, no DO", served, "host1.example.", False),
                    ("positive, DO", served, "host1.example.", True),
                    ("NXDOMAIN, no DO", served, "nothing.example.", False),
                    ("NXDOMAIN, DO", served, "nothing.example.", True)):
                print(f"  {label:24} {per_query(zone, name, dnssec, args.rounds):7.1f} µs/query")


if __name__ == "__main__":
    main()
