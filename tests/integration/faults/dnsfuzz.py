"""Seeded generators of hostile DNS packets, and the checks on what a server sends back.

Why seeded and categorised: a failure must be reproducible (same seed, same packets) and
readable (the category says what kind of input hurt). Nothing here does I/O.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable

import dns.edns
import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.tsig

# What a server may answer to garbage (spec/async.md §4: malformed → silence; otherwise
# FORMERR/REFUSED/NOTIMP/NOTAUTH). NOERROR/NXDOMAIN are fine when a mutation still happens to be
# a well-formed query. BADVERS is RFC 6891's answer to a flipped EDNS version bit. SERVFAIL
# means the handler failed on the input and is not accepted.
ALLOWED_RCODES = {dns.rcode.NOERROR, dns.rcode.NXDOMAIN, dns.rcode.FORMERR, dns.rcode.REFUSED,
                  dns.rcode.NOTIMP, dns.rcode.NOTAUTH, dns.rcode.BADVERS}

_NAMES = ["fuzz.example.", "www.fuzz.example.", "nowhere.invalid.", "."]
_TYPES = [dns.rdatatype.A, dns.rdatatype.SOA, dns.rdatatype.AXFR, dns.rdatatype.IXFR,
          dns.rdatatype.NS, dns.rdatatype.ANY, dns.rdatatype.TXT, 65280]


def valid_query(rng: random.Random) -> bytes:
    query = dns.message.make_query(rng.choice(_NAMES), rng.choice(_TYPES),
                                   use_edns=rng.choice([None, 0]))
    return query.to_wire()


def _random_bytes(rng: random.Random) -> bytes:
    return rng.randbytes(rng.randrange(0, 600))


def _truncated(rng: random.Random) -> bytes:
    wire = valid_query(rng)
    return wire[: rng.randrange(0, len(wire))]


def _bit_flipped(rng: random.Random) -> bytes:
    wire = bytearray(valid_query(rng))
    for _ in range(rng.randrange(1, 6)):
        wire[rng.randrange(len(wire))] ^= 1 << rng.randrange(8)
    return bytes(wire)


def _bad_counts(rng: random.Random) -> bytes:
    wire = bytearray(valid_query(rng))
    struct.pack_into("!HHHH", wire, 4, *(rng.choice([0, 2, 255, 65535]) for _ in range(4)))
    return bytes(wire)


def _pointer_loop(rng: random.Random) -> bytes:
    """A question name that is a compression pointer to itself (or to the next pointer)."""
    header = struct.pack("!HHHHHH", rng.randrange(65536), 0, 1, 0, 0, 0)
    target = 12 if rng.random() < 0.5 else 14
    return header + struct.pack("!HH", 0xC000 | target, 0xC00C) + struct.pack("!HH", 1, 1)


def _odd_opcode(rng: random.Random) -> bytes:
    query = dns.message.make_query(rng.choice(_NAMES), dns.rdatatype.SOA)
    query.set_opcode(rng.choice([dns.opcode.IQUERY, dns.opcode.STATUS, dns.opcode.UPDATE, 3, 6, 15]))
    return query.to_wire()


def _odd_question(rng: random.Random) -> bytes:
    query = dns.message.make_query(rng.choice(_NAMES), dns.rdatatype.SOA,
                                   rdclass=rng.choice([dns.rdataclass.CH, dns.rdataclass.ANY, 4]))
    if rng.random() < 0.5:
        query.question = []
    return query.to_wire()


def _response_flag(rng: random.Random) -> bytes:
    query = dns.message.make_query(rng.choice(_NAMES), dns.rdatatype.SOA)
    query.flags |= dns.flags.QR
    return query.to_wire()


def _notify_garbage(rng: random.Random) -> bytes:
    query = dns.message.make_query(rng.choice(_NAMES), dns.rdatatype.SOA)
    query.set_opcode(dns.opcode.NOTIFY)
    if rng.random() < 0.5:
        query.question = query.question * 2
    return query.to_wire() + rng.randbytes(rng.randrange(0, 20))


def _oversized(rng: random.Random) -> bytes:
    """A valid query followed by kilobytes of trailing garbage (UDP allows up to 65507)."""
    return valid_query(rng) + rng.randbytes(rng.randrange(2000, 60000))


def _long_name(rng: random.Random) -> bytes:
    """Labels past the 255-octet name limit, and a label length past 63."""
    header = struct.pack("!HHHHHH", rng.randrange(65536), 0, 1, 0, 0, 0)
    labels = b"".join(bytes([63]) + b"a" * 63 for _ in range(rng.randrange(4, 9)))
    if rng.random() < 0.5:
        labels = bytes([64 + rng.randrange(128)]) + labels
    return header + labels + b"\x00" + struct.pack("!HH", 1, 1)


def _tsig_unknown(rng: random.Random) -> bytes:
    """Signed with a key the server does not know (each packet forces a keyring look-up)."""
    query = dns.message.make_query(rng.choice(_NAMES), rng.choice(_TYPES))
    name = f"k{rng.randrange(10**6)}.fuzz."
    query.use_tsig(dns.tsig.Key(name, rng.randbytes(32), dns.tsig.HMAC_SHA256))
    wire = query.to_wire()
    if rng.random() < 0.5:  # and sometimes a mangled MAC / truncated TSIG record
        wire = wire[: len(wire) - rng.randrange(1, 40)]
    return wire


def _edns_options(rng: random.Random) -> bytes:
    """EDNS with random options (unknown codes, cookies of odd lengths) and odd payload sizes."""
    options = [dns.edns.GenericOption(rng.choice([10, 8, 12, 65001, rng.randrange(65536)]),
                                      rng.randbytes(rng.randrange(0, 60)))
               for _ in range(rng.randrange(1, 4))]
    query = dns.message.make_query(rng.choice(_NAMES), rng.choice(_TYPES), use_edns=0,
                                   payload=rng.choice([0, 1, 511, 4096, 65535]), options=options)
    return query.to_wire()


CATEGORIES: dict[str, Callable[[random.Random], bytes]] = {
    "random": _random_bytes, "truncated": _truncated, "bitflip": _bit_flipped,
    "counts": _bad_counts, "pointer-loop": _pointer_loop, "opcode": _odd_opcode,
    "question": _odd_question, "qr-set": _response_flag, "notify": _notify_garbage,
    "oversized": _oversized, "long-name": _long_name, "tsig-unknown": _tsig_unknown,
    "edns": _edns_options,
}


def packets(seed: int, count: int) -> list[tuple[str, bytes]]:
    """``count`` (category, wire) pairs, the same for the same seed."""
    rng = random.Random(seed)
    names = sorted(CATEGORIES)
    out = []
    for _ in range(count):
        category = rng.choice(names)
        out.append((category, CATEGORIES[category](rng)))
    return out


def check_answer(wire: bytes) -> str | None:
    """None if ``wire`` is an acceptable answer to garbage, else what is wrong with it."""
    try:
        message = dns.message.from_wire(wire, ignore_trailing=True)
    except Exception as exc:  # noqa: BLE001 - any parse failure is a finding
        return f"unparsable answer ({type(exc).__name__}): {wire[:40].hex()}"
    if not message.flags & dns.flags.QR:
        return "answer without QR"
    if message.rcode() not in ALLOWED_RCODES:
        return f"rcode {dns.rcode.to_text(message.rcode())}"
    return None
