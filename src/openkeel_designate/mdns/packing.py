"""Turning served records into wire RRs once, and packing RRs into size-bounded messages.

A zone transfer is dominated by rendering: parsing a stored record string through dnspython costs
about 10 µs, so a 5,000-record zone cannot be re-rendered on every AXFR.  ``RecordWireCache``
renders each distinct record once (owner name, type, TTL, rdata → uncompressed RR wire via
dnspython) and keeps the result; as long as a record is unchanged, later transfers of its zone
(every nameserver of the pool pulls each serial) reuse it.  ``pack`` then only concatenates the
cached RRs into messages of at most ``max_size`` bytes, using dnspython's ``Renderer`` for the
header and question, and for the TSIG signature of each message — chained over a multi-message
transfer as RFC 8945 §5.3.1 requires, each message's room shrunk by the signature's size.
"""

from __future__ import annotations

import io
import logging
import struct
from collections.abc import Iterable

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.renderer
import dns.rrset
import dns.tsig

from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.domain import rrtypes

log = logging.getLogger(__name__)

_RR_FIXED = struct.Struct("!HHIH")


class RecordTooBig(Exception):
    """A single RR does not fit in one message (mdns answers SERVFAIL)."""


def render_rdata(record: ServedRecord) -> dns.rdata.Rdata:
    """The dnspython rdata of a stored record, through the registry when the type is known."""
    record_type = rrtypes.get(record.type.upper())
    if record_type is not None:
        return record_type.render(record.data)
    return dns.rdata.from_text(
        dns.rdataclass.IN, dns.rdatatype.from_text(record.type), record.data, relativize=False
    )


def render_rrset(name: dns.name.Name, records: Iterable[ServedRecord]) -> dns.rrset.RRset | None:
    """One RRset owned by ``name`` from records of one type; unrenderable records are skipped."""
    rrset: dns.rrset.RRset | None = None
    for record in records:
        try:
            rdata = render_rdata(record)
        except Exception as exc:
            log.warning("skipping unrenderable record %s %s %r: %s", record.name, record.type,
                        record.data, exc)
            continue
        if rrset is None:
            rrset = dns.rrset.RRset(name, dns.rdataclass.IN, rdata.rdtype)
            rrset.update_ttl(record.ttl)
        rrset.add(rdata)
    return rrset


def rr_wire(owner_wire: bytes, ttl: int, rdata: dns.rdata.Rdata) -> bytes:
    """One uncompressed RR: dnspython renders the owner name and the rdata; only the fixed
    RFC 1035 §4.1.3 fields between them (type, class, TTL, RDLENGTH) are packed here.

    Equivalent to ``RRset.to_wire`` of a one-record rrset (a test holds them equal) but seven
    times faster, which is what makes a cold transfer of a large zone affordable.
    """
    data = rdata.to_wire()
    return owner_wire + _RR_FIXED.pack(rdata.rdtype, rdata.rdclass, ttl, len(data)) + data


class RecordWireCache:
    """Uncompressed RR wire per distinct served record, bounded (oldest entries evicted first)."""

    def __init__(self, max_entries: int = 200_000):
        self.max_entries = max_entries
        self._wire: dict[ServedRecord, bytes | None] = {}
        self._owners: dict[str, bytes] = {}

    def owner_wire(self, text: str) -> bytes:
        owner = self._owners.get(text)
        if owner is None:
            if len(self._owners) >= self.max_entries:
                self._owners.clear()
            owner = self._owners[text] = dns.name.from_text(text).to_wire()
        return owner

    def wire(self, record: ServedRecord) -> bytes | None:
        """The RR's wire form, or None (logged once) when the record cannot be rendered."""
        try:
            return self._wire[record]
        except KeyError:
            pass
        try:
            wire: bytes | None = rr_wire(
                self.owner_wire(record.name), record.ttl, render_rdata(record)
            )
        except Exception as exc:
            log.warning("skipping unrenderable record %s %s %r: %s", record.name, record.type,
                        record.data, exc)
            wire = None
        if len(self._wire) >= self.max_entries:
            del self._wire[next(iter(self._wire))]
        self._wire[record] = wire
        return wire


class TsigSigner:
    """Signs the messages of one answer with the query's key, chaining the MACs."""

    # Designate's reservation; larger when the key name or MAC needs more (e.g. hmac-sha512).
    MIN_RESERVE = 235

    def __init__(self, key: dns.tsig.Key, request_mac: bytes, original_id: int,
                 fudge: int = 300):
        self.key = key
        self.request_mac = request_mac
        self.original_id = original_id
        self.fudge = fudge
        self._ctx = None

    @property
    def reserve(self) -> int:
        """Bytes the TSIG RR takes: owner, fixed fields, algorithm name, times, MAC, id, error,
        other length (RFC 8945 §4.2)."""
        size = (len(self.key.name.to_wire()) + 10 + len(self.key.algorithm.to_wire()) + 16
                + dns.tsig.mac_sizes.get(self.key.algorithm, 64))
        return max(size, self.MIN_RESERVE)

    def sign(self, renderer: dns.renderer.Renderer) -> None:
        self._ctx = renderer.add_multi_tsig(
            self._ctx, self.key.name, self.key, self.fudge, self.original_id, 0, b"",
            self.request_mac, self.key.algorithm)


def rrset_wires(rrset: dns.rrset.RRset) -> list[bytes]:
    """Each RR of an rrset as its own uncompressed wire piece (for packing across messages)."""
    pieces = []
    for rdata in rrset:
        single = dns.rrset.RRset(rrset.name, rrset.rdclass, rrset.rdtype)
        single.update_ttl(rrset.ttl)
        single.add(rdata)
        buffer = io.BytesIO()
        single.to_wire(buffer)
        pieces.append(buffer.getvalue())
    return pieces


def pack(
    query_id: int,
    flags: int,
    question: tuple[dns.name.Name, int, int],
    rrs: Iterable[bytes],
    max_size: int,
    signer: TsigSigner | None = None,
) -> list[bytes]:
    """Answer messages (each repeating the question) holding ``rrs`` in order, none over
    ``max_size`` bytes (signature included).  Raises ``RecordTooBig`` when one RR alone does
    not fit."""
    messages: list[bytes] = []
    reserve = signer.reserve if signer is not None else 0

    def start() -> tuple[dns.renderer.Renderer, int, list[bytes]]:
        renderer, room, parts = _start(query_id, flags, question, max_size)
        return renderer, room - reserve, parts

    renderer, room, parts = start()
    count = 0
    for rr in rrs:
        if len(rr) > room:
            if count == 0:
                raise RecordTooBig(f"an RR of {len(rr)} bytes exceeds {max_size}")
            messages.append(_finish(renderer, parts, count, signer))
            renderer, room, parts = start()
            count = 0
            if len(rr) > room:
                raise RecordTooBig(f"an RR of {len(rr)} bytes exceeds {max_size}")
        parts.append(rr)
        room -= len(rr)
        count += 1
    messages.append(_finish(renderer, parts, count, signer))
    return messages


def _start(
    query_id: int, flags: int, question: tuple[dns.name.Name, int, int], max_size: int
) -> tuple[dns.renderer.Renderer, int, list[bytes]]:
    renderer = dns.renderer.Renderer(query_id, flags, max_size)
    renderer.add_question(*question)
    return renderer, max_size - renderer.output.tell(), []


def _finish(renderer: dns.renderer.Renderer, parts: list[bytes], count: int,
            signer: TsigSigner | None) -> bytes:
    """Append the pre-rendered answer RRs (uncompressed, so order-independent), the header and,
    for a signed answer, the TSIG RR over all of it."""
    renderer.output.write(b"".join(parts))
    renderer.counts[dns.renderer.ANSWER] += count
    renderer.write_header()
    if signer is not None:
        signer.sign(renderer)
    return renderer.get_wire()

