"""Turning served records into wire RRs, and packing RRs into size-bounded messages.

A zone transfer is dominated by rendering: parsing a stored record string through dnspython costs
about 10 µs, so ``ZoneWire`` renders the common cases (owner names, addresses) without it and
the rest through the record-type registry.  A transfer is built in two steps so that its costly
half can be kept (``xfrcache``): ``split`` groups the RRs into the answer sections of messages
of at most ``max_size`` bytes, and ``assemble`` puts each asker's header and question around
them — with dnspython's ``Renderer`` for a signed answer, whose every message gets its TSIG
signature, chained over a multi-message transfer as RFC 8945 §5.3.1 requires (each message's
room shrunk by the signature's size).
"""

from __future__ import annotations

import io
import logging
import re
import socket
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
from openkeel_designate.domain import names, rrtypes

log = logging.getLogger(__name__)

_RR_FIXED = struct.Struct("!HHIH")
_HEADER = struct.Struct("!HHHHHH")  # RFC 1035 §4.1.1: id, flags, QD/AN/NS/AR counts


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


QUESTION_POINTER = b"\xc0\x0c"  # RFC 1035 §4.1.4: the name at offset 12, the question's
_A, _AAAA = dns.rdatatype.A, dns.rdatatype.AAAA


class ZoneWire:
    """Renders the RRs of one transfer of ``zone``: each owner name under the zone as its own
    labels followed by a pointer to the question (which is the zone's name, at offset 12 of
    every message of a transfer), each rdata uncompressed (RFC 3597 §4).

    The pointer saves ~15 bytes an RR (a quarter of a zone of A records), and both it and the
    address fast path spare dnspython's text parsers, which were two thirds of a cold
    transfer's time.  Only valid in answers whose question names the zone: AXFR and IXFR.
    """

    def __init__(self, zone: str):
        self.zone = names.key(zone)
        self.suffix = "." + self.zone
        self._owners: dict[str, bytes] = {}

    def owner(self, text: str) -> bytes:
        owner = self._owners.get(text)
        if owner is None:
            owner = self._owners[text] = self._owner(text)
        return owner

    def _owner(self, text: str) -> bytes:
        lowered = names.key(text)
        if lowered == self.zone:
            return QUESTION_POINTER
        if not lowered.endswith(self.suffix):
            return dns.name.from_text(text).to_wire()  # not under the zone: never compressed
        prefix = text[:-len(self.suffix)]
        if prefix.isascii() and "\\" not in prefix:
            if "." not in prefix and 0 < len(prefix) < 64:  # one label: most owners
                return bytes((len(prefix),)) + prefix.encode() + QUESTION_POINTER
            labels = prefix.split(".")
            if all(0 < len(label) < 64 for label in labels):
                return (b"".join(bytes((len(label),)) + label.encode() for label in labels)
                        + QUESTION_POINTER)
        relative = dns.name.from_text(text).relativize(dns.name.from_text(self.zone))
        return b"".join(bytes((len(label),)) + label for label in relative.labels) + QUESTION_POINTER

    def wire(self, record: ServedRecord) -> bytes | None:
        """The RR's wire form, or None (logged) when the record cannot be rendered."""
        try:
            rdtype, data = _rdata_wire(record)
            return self.owner(record.name) + _RR_FIXED.pack(rdtype, 1, record.ttl, len(data)) + data
        except Exception as exc:
            log.warning("skipping unrenderable record %s %s %r: %s", record.name, record.type,
                        record.data, exc)
            return None

    def wires(self, records: Iterable[ServedRecord]) -> list[bytes]:
        """Wire RRs of the records; an unrenderable stored record is left out, never fatal."""
        return [rr for rr in map(self.wire, records) if rr is not None]


_FAMILIES = {"A": socket.AF_INET, "AAAA": socket.AF_INET6}


def _canonical_address(family: int, text: str) -> bytes | None:
    """The packed address when ``text`` is written exactly as the C library prints it."""
    try:
        packed = socket.inet_pton(family, text)
    except (OSError, ValueError):
        return None
    return packed if socket.inet_ntop(family, packed) == text else None


# Plain absolute names (letters, digits, ``-``, ``_``, a leading ``*``; no escapes) and TXT
# strings of printable ASCII without quote or backslash: text dnspython reads literally, so
# their wire form is the text's bytes with length prefixes.
_PLAIN_NAME = re.compile(r"(?:(?:\*|[A-Za-z0-9_-]+)\.)+\Z")
_PLAIN_MX = re.compile(r"([0-9]{1,5}) ((?:(?:\*|[A-Za-z0-9_-]+)\.)+)\Z")
_PLAIN_TXT = re.compile(r'"[ !#-\[\]-~]*"(?: "[ !#-\[\]-~]*")*\Z')
_NAME_TYPES = {"CNAME": dns.rdatatype.CNAME, "NS": dns.rdatatype.NS,
               "PTR": dns.rdatatype.PTR}
_TXT_TYPES = {"TXT": dns.rdatatype.TXT, "SPF": dns.rdatatype.SPF}
_MX = dns.rdatatype.MX


def _name_wire(text: str) -> bytes | None:
    """The uncompressed wire form of a plain absolute name, or None (dnspython decides)."""
    if not _PLAIN_NAME.match(text):
        return None
    labels = text[:-1].split(".")
    if any(len(label) > 63 for label in labels) or len(text) > 254:
        return None  # dnspython refuses it: let it say so
    return b"".join(bytes((len(label),)) + label.encode() for label in labels) + b"\0"


def _plain_wire(rtype: str, data: str) -> tuple[int, bytes] | None:
    """(type code, rdata wire) of the commonest record texts without dnspython — a cold
    transfer of a large zone spent most of its time in ``dns.rdata.from_text`` — or None when
    the text is not in the plain forms above. A test holds every result equal to dnspython's.
    """
    family = _FAMILIES.get(rtype)
    if family is not None:
        packed = _canonical_address(family, data)
        return None if packed is None else (
            (_A if family == socket.AF_INET else _AAAA), packed)
    code = _NAME_TYPES.get(rtype)
    if code is not None:
        name = _name_wire(data)
        return None if name is None else (code, name)
    if rtype == "MX":
        match = _PLAIN_MX.match(data)
        if match is None or int(match.group(1)) > 65535:
            return None
        name = _name_wire(match.group(2))
        return None if name is None else (_MX, int(match.group(1)).to_bytes(2, "big") + name)
    code = _TXT_TYPES.get(rtype)
    if code is not None and _PLAIN_TXT.match(data):
        strings = data[1:-1].split('" "')
        if any(len(string) > 255 for string in strings):
            return None
        return code, b"".join(bytes((len(string),)) + string.encode() for string in strings)
    return None


def _rdata_wire(record: ServedRecord) -> tuple[int, bytes]:
    """(type code, rdata wire); plain texts (addresses, names, TXT strings) skip dnspython
    (the result is the same, a test holds them equal), anything else goes through the
    registry."""
    if record.wire is not None:
        return dns.rdatatype.from_text(record.type), record.wire
    plain = _plain_wire(record.type, record.data)
    if plain is not None:
        return plain
    rdata = render_rdata(record)
    return rdata.rdtype, rdata.to_wire()


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
    room = room_for(question, max_size, signer)
    return assemble(query_id, flags, question, split(rrs, room), max_size, signer)


def question_wire(question: tuple[dns.name.Name, int, int]) -> bytes:
    name, rdtype, rdclass = question
    return name.to_wire() + struct.pack("!HH", rdtype, rdclass)


def room_for(question: tuple[dns.name.Name, int, int], max_size: int,
             signer: TsigSigner | None) -> int:
    """Bytes left for answer RRs in one message: the size less header, question and signature."""
    reserve = signer.reserve if signer is not None else 0
    return max_size - _HEADER.size - len(question_wire(question)) - reserve


def split(rrs: Iterable[bytes], room: int) -> tuple[tuple[int, bytes], ...]:
    """The RRs, in order, grouped into answer sections of at most ``room`` bytes:
    (RR count, wire) each; at least one section, even for no RR."""
    sections: list[tuple[int, bytes]] = []
    parts: list[bytes] = []
    left = room
    for rr in rrs:
        if len(rr) > left:
            if not parts or len(rr) > room:
                raise RecordTooBig(f"an RR of {len(rr)} bytes exceeds the {room} bytes of a message")
            sections.append((len(parts), b"".join(parts)))
            parts, left = [], room
        parts.append(rr)
        left -= len(rr)
    sections.append((len(parts), b"".join(parts)))
    return tuple(sections)


def assemble(query_id: int, flags: int, question: tuple[dns.name.Name, int, int],
             sections: Iterable[tuple[int, bytes]], max_size: int,
             signer: TsigSigner | None = None) -> list[bytes]:
    """One message per answer section: header, the question, the section, and for a signed
    answer the TSIG RR over all of it (the sections never hold a signature: they are shared
    between askers and keys)."""
    if signer is None:
        head = question_wire(question)
        return [_HEADER.pack(query_id, flags, 1, count, 0, 0) + head + body
                for count, body in sections]
    messages = []
    for count, body in sections:
        renderer = dns.renderer.Renderer(query_id, flags, max_size)
        renderer.add_question(*question)
        renderer.output.write(body)
        renderer.counts[dns.renderer.ANSWER] += count
        renderer.write_header()
        signer.sign(renderer)
        messages.append(renderer.get_wire())
    return messages
