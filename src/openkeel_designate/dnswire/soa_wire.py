"""The worker's two UDP messages by hand: a question for a zone's SOA (a poll, or a NOTIFY) and
what its answer says (rcode, flags, the SOA's serial).

The worker sends a NOTIFY and at least one SOA poll to every nameserver at every push. Built
and read by dnspython, each exchange cost ~0.4 ms of CPU on the client side (its name objects,
enums, rrsets), against the ~0.05 ms a question of known shape needs (bench/README.md, "SOA
polls and NOTIFYs by hand"). Only these two shapes are written here; anything else (TCP, TSIG,
transfers) stays with dnspython.

An answer is read as far as the worker needs: the header, the question (it must be the one
asked, else the datagram answers some other query and is passed by, as dnspython's
``is_response`` would), and the answer section's SOA for the zone. Names are compared in any
case, compression pointers followed with a bound on their number. A datagram that cannot be
read raises ``dns.exception.FormError``, as dnspython would.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import dns.exception
import dns.flags
import dns.name
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype

_HEADER = struct.Struct("!HHHHHH")
_QUESTION_TAIL = struct.pack("!HH", dns.rdatatype.SOA, dns.rdataclass.IN)
_RR = struct.Struct("!HHIH")
_SERIAL = struct.Struct("!I")
# RFC 1035: a name is at most 255 octets; a pointer chain longer than that many hops loops.
_MAX_NAME = 255
_MAX_POINTERS = 127
# An error answer may leave the question out (dnspython's ``is_response`` accepts these too).
_ERRORS_WITHOUT_QUESTION = frozenset(
    {dns.rcode.FORMERR, dns.rcode.SERVFAIL, dns.rcode.NOTIMP, dns.rcode.REFUSED})


@dataclass(frozen=True, slots=True)
class Answer:
    """What an answer to a SOA question says: its rcode (the header's bits), its flags word
    (as dnspython's ``Message.flags``: opcode and rcode bits included), and the serial of the
    zone's SOA in the answer section (None without one)."""

    rcode: int
    flags: int
    serial: int | None


def question(name: dns.name.Name, query_id: int, *, notify: bool = False) -> bytes:
    """A query for ``name``'s SOA with no flags set (a poll), or the NOTIFY Designate sends
    (opcode NOTIFY, AA)."""
    flags = (dns.opcode.to_flags(dns.opcode.NOTIFY) | dns.flags.AA) if notify else 0
    return _HEADER.pack(query_id, flags, 1, 0, 0, 0) + name.to_wire() + _QUESTION_TAIL


def answer(data: bytes, asked: bytes) -> Answer | None:
    """The answer ``data`` gives to the question ``asked`` (built by ``question``); None when
    it is not an answer to it (another id or question, not a response)."""
    try:
        return _answer(data, asked)
    except (struct.error, IndexError) as exc:
        raise dns.exception.FormError(f"malformed answer: {exc}") from exc


def _answer(data: bytes, asked: bytes) -> Answer | None:
    query_id, flags, questions, answers, _, _ = _HEADER.unpack_from(data)
    asked_id, asked_flags = struct.unpack_from("!HH", asked)
    if query_id != asked_id or not flags & dns.flags.QR or \
            dns.opcode.from_flags(flags) != dns.opcode.from_flags(asked_flags):
        return None
    rcode = flags & 0xF
    zone = _asked_name(asked)
    offset = _HEADER.size
    if questions == 0:
        if rcode not in _ERRORS_WITHOUT_QUESTION:
            return None
    else:
        owner, offset = _name_at(data, offset)
        if questions != 1 or owner + data[offset:offset + 4] != zone + _QUESTION_TAIL:
            return None
        offset += 4
    serial = None
    if flags & dns.flags.TC:  # the caller asks again over TCP
        return Answer(rcode, flags, None)
    for _ in range(answers):
        owner, offset = _name_at(data, offset)
        rtype, rclass, _ttl, length = _RR.unpack_from(data, offset)
        offset += _RR.size
        end = offset + length
        if end > len(data):
            raise dns.exception.FormError("record data past the end of the message")
        if serial is None and rtype == dns.rdatatype.SOA and rclass == dns.rdataclass.IN \
                and owner == zone:
            _, at = _name_at(data, offset)  # MNAME
            _, at = _name_at(data, at)  # RNAME
            if at + _SERIAL.size > end:
                raise dns.exception.FormError("SOA record too short")
            (serial,) = _SERIAL.unpack_from(data, at)
        offset = end
    return Answer(rcode, flags, serial)


def _asked_name(asked: bytes) -> bytes:
    """The question's name in ``asked`` (``question`` writes it uncompressed), lowercased."""
    return asked[_HEADER.size:-len(_QUESTION_TAIL)].lower()


def _name_at(data: bytes, offset: int) -> tuple[bytes, int]:
    """The name at ``offset``, uncompressed and lowercased, and the offset just after it."""
    labels = bytearray()
    after = None
    pointers = 0
    while True:
        length = data[offset]
        if length & 0xC0 == 0xC0:
            if after is None:
                after = offset + 2
            pointers += 1
            if pointers > _MAX_POINTERS:
                raise dns.exception.FormError("compression pointers loop")
            offset = ((length & 0x3F) << 8) | data[offset + 1]
            continue
        if length & 0xC0:
            raise dns.exception.FormError("unknown label type")
        labels.append(length)
        if length == 0:
            break
        label = data[offset + 1:offset + 1 + length]
        if len(label) != length:
            raise dns.exception.FormError("label past the end of the message")
        labels += label
        if len(labels) >= _MAX_NAME:
            raise dns.exception.FormError("name too long")
        offset += 1 + length
    return bytes(labels).lower(), after if after is not None else offset + 1
