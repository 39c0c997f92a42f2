"""A fast reader for plain zone files, giving exactly what dnspython's reader gives, or giving up.

dnspython reads a zone file one character at a time and builds an rdata object and a
copy-on-write zone version per record: about 1 ms of CPU a record, minutes for a
100,000-record import.  Most imported files are plain — one ``$ORIGIN``, ``$TTL``, one record a
line (or a parenthesised SOA), names without escapes, printable ASCII — and for those this
module computes the same result with string operations: the same owner and rdata texts
(dnspython's ``to_text``), the same TTLs (``$TTL``, last stated TTL, SOA minimum), the same
RRsets in the same order (owners by first appearance, RRsets by last addition, duplicates
merged), and the same calls to the quota budget in file order.

Anything it does not know to be plain raises ``Unsure`` — escapes, ``$GENERATE``, a second
``$ORIGIN``, CNAME beside other data, RRsets whose records have different TTLs, names that only
differ in case, unknown classes, TTLs with units, bad syntax of any kind — and the caller reads
the whole file again with dnspython, which then decides (and words any error).  So a file is
refused or accepted exactly as before; this only makes the common case fast.  Types without a
fast form here (CAA, SSHFP, NAPTR ...) are read by dnspython's own rdata parser, one record at a
time.  ``tests/unit/test_zonefile_plain.py`` compares both readers on many forms.
"""

from __future__ import annotations

import re
import socket
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import dns.exception
import dns.ipv6
import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.ttl


class Unsure(Exception):
    """Not a plain file: read it with dnspython instead."""


@dataclass
class ReadZone:
    """What a reader found: the origin, the apex SOA's values and every RRset in zone order.

    ``rdatasets`` holds ``(owner text, type text, ttl, record texts, at apex as SOA/NS)``.
    """

    origin: str
    soa: tuple[int, str, int, int, int, int] | None  # ttl, rname (no final dot), serial, timers
    rdatasets: list[tuple[str, str, int, list[str], bool]] = field(default_factory=list)


# Budget callback: (new RRset?, records added, RRset size) -> None, raising to refuse.
Put = Callable[[bool, int, int], None]

_ODD = re.compile(r"[^\t\n\x20-\x7e]|\\")  # control, non-ASCII, escapes: dnspython's business
_NAME = re.compile(r"[A-Za-z0-9_*/-]+(?:\.[A-Za-z0-9_*/-]+)*\.?\Z")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = re.compile(rf"{_OCTET}(?:\.{_OCTET}){{3}}\Z")
_IPV6_HEX = re.compile(r"[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}\Z")
_QUOTED_LINE = re.compile(r'[ \t]+|"([^"]*)"|([()])|(;.*)|([^ \t";()]+)')
_MAX_TTL = 2**32 - 1
_OTHER_CLASSES = {"CH", "CHAOS", "HS", "HESIOD", "NONE", "ANY", "RESERVED0"}
# Types whose node or set rules dnspython applies beyond "a set of rdatas" (singletons, CNAME
# neighbours, signatures): left to dnspython.  CNAME and SOA are handled (one record each).
_NOT_PLAIN = {"DNAME", "NSEC", "NSEC3", "NXT", "KEY", "SIG", "RRSIG"}
_TXT_TYPES = {"TXT", "SPF"}
_NAME_TYPES = {"CNAME", "NS", "PTR"}
_FAST_TYPES = {"A", "AAAA", "MX", "SRV", "SOA", *_NAME_TYPES}
_types: dict[str, str] = {}  # token as written -> dnspython's type text


def read(text: str, put: Put) -> ReadZone:
    """The zone of a plain ``text`` (``Unsure`` if it is not plain); ``put`` as dnspython's
    reader would call the budget, in file order (its exception propagates)."""
    if _ODD.search(text):
        raise Unsure
    try:
        return _Reader(put).read(text)
    except (IndexError, ValueError, KeyError, OverflowError, StopIteration, OSError,
            dns.exception.DNSException):
        raise Unsure from None


class _Quoted(str):
    """A token written between double quotes (a TXT string, a CAA value)."""


class _Reader:
    def __init__(self, put: Put):
        self.put = put
        self.origin = ""  # absolute text, as written
        self.origin_key = ""  # lowercased, for comparisons
        self.last_name: str | None = None
        self.last_ttl: int | None = None
        self.default_ttl: int | None = None
        self.default_from_soa = False
        self.seen_record = False
        self.soa: tuple[int, str, int, int, int, int] | None = None
        self.soa_minimum = 0
        self.soa_values: tuple[str, int, int, int, int] = ("", 0, 0, 0, 0)
        self.origin_name: dns.name.Name | None = None
        # owner key -> (owner text, {type text: [ttl, records, lowered records or None]})
        self.nodes: dict[str, tuple[str, dict[str, list]]] = {}

    # --- lines -----------------------------------------------------------------------------
    def read(self, text: str) -> ReadZone:
        lines = iter(text.split("\n"))
        for line in lines:
            if not line or line[0] == ";":
                continue
            tokens = self._tokens(line, lines)
            if not tokens:
                continue
            if line[0] in " \t":  # no owner: the last one
                if self.last_name is None:
                    raise Unsure
                self._record(self.last_name, tokens)
                continue
            first = tokens[0]
            if first[0] == "$" and type(first) is str:
                self._directive(first.upper(), tokens[1:])
            else:
                self._record(self._owner(first), tokens[1:])
        zone = ReadZone(self.origin, self.soa)
        origin_key = self.origin_key
        for key, (owner, sets) in self.nodes.items():
            for rtype, (ttl, records, _lowered) in sets.items():
                apex = key == origin_key and rtype in ("SOA", "NS")
                zone.rdatasets.append((owner, rtype, ttl, records, apex))
        return zone

    def _tokens(self, line: str, lines: Iterator[str]) -> list[str]:
        """The tokens of one record, joining the lines of a parenthesised one."""
        tokens, depth = _split(line, 0)
        while depth:
            more, depth = _split(next(lines), depth)
            tokens += more
        return tokens

    def _directive(self, name: str, args: list[str]) -> None:
        if len(args) != 1 or type(args[0]) is not str:
            raise Unsure
        value = args[0]
        if name == "$TTL":
            self.default_ttl = dns.ttl.from_text(value)
            self.default_from_soa = False
        elif name == "$ORIGIN" and not self.origin and not self.seen_record:
            if value == "." or not value.endswith(".") or not _NAME.match(value) \
                    or len(value) > 254 or _long_label(value):
                raise Unsure
            self.origin, self.origin_key = value, value.lower()
        else:  # $GENERATE, $INCLUDE, $UNICODE, a second $ORIGIN ...
            raise Unsure

    # --- records ---------------------------------------------------------------------------
    def _owner(self, token: str) -> str:
        if type(token) is not str or not self.origin:
            raise Unsure
        owner = self.last_name = self._name(token)
        return owner

    def _record(self, owner: str, tokens: list[str]) -> None:
        """``tokens``: what follows the owner: [ttl] [class] [ttl] type rdata."""
        if not self.origin:
            raise Unsure
        self.seen_record = True
        owner_key = owner.lower()
        if owner_key != self.origin_key and not owner_key.endswith("." + self.origin_key):
            raise Unsure  # dnspython skips records outside the zone: let it
        index = 0
        word = _word(tokens, 0)
        ttl = None
        if word.isdigit():
            ttl = self._ttl(word)
            index = 1
            word = _word(tokens, 1)
        elif word[0].isdigit():
            raise Unsure  # a TTL with units
        upper = word.upper()
        if upper == "IN":
            index += 1
            word = _word(tokens, index)
            upper = word.upper()
        elif upper in _OTHER_CLASSES or upper.startswith("CLASS"):
            raise Unsure
        if ttl is None:
            if word.isdigit():
                ttl = self._ttl(word)
                index += 1
                upper = _word(tokens, index).upper()
            elif word[0].isdigit():
                raise Unsure
            else:
                ttl = self._implicit_ttl()
        rtype = _types.get(upper)
        if rtype is None:
            rtype = dns.rdatatype.to_text(dns.rdatatype.from_text(upper))
            _types[upper] = rtype
        if rtype in _NOT_PLAIN:
            raise Unsure
        data = self._rdata(rtype, tokens[index + 1:])
        if rtype == "SOA":
            if owner_key != self.origin_key:
                raise Unsure
            if self.default_ttl is None:  # no $TTL yet: the SOA minimum is the default
                self.default_ttl = self.soa_minimum
                self.default_from_soa = True
                if ttl is None:
                    ttl = self._implicit_ttl()
        if ttl is None:
            raise Unsure  # "Missing default TTL value"
        if rtype == "SOA":
            self.soa = (ttl, *self.soa_values)
        self._add(owner, owner_key, rtype, ttl, data)

    def _ttl(self, word: str) -> int:
        ttl = int(word)
        if ttl > _MAX_TTL:
            raise Unsure
        self.last_ttl = ttl
        return ttl

    def _implicit_ttl(self) -> int | None:
        """dnspython's rule (RFC 2308 mode): $TTL, else the last stated TTL, else the SOA's."""
        if self.last_ttl is not None and (self.default_ttl is None or self.default_from_soa):
            return self.last_ttl
        return self.default_ttl

    def _name(self, token: str) -> str:
        """The absolute text of a name written in the file (relative to the origin)."""
        if token == "@":
            return self.origin
        if not _NAME.match(token) or _long_label(token):
            raise Unsure
        text = token if token[-1] == "." else f"{token}.{self.origin}"
        if len(text) > 254:
            raise Unsure
        return text

    def _rdata(self, rtype: str, tokens: list[str]) -> str:
        if rtype in _TXT_TYPES:
            if not tokens or any(len(value) > 255 for value in tokens):
                raise Unsure
            return " ".join(f'"{value}"' for value in tokens)
        if rtype not in _FAST_TYPES:
            # Any other type: dnspython's own rdata parser on the record's fields (no escapes,
            # no line breaks: the same tokens its zone file reader would have handed it).
            rest = " ".join(f'"{value}"' if type(value) is not str else value
                            for value in tokens)
            if self.origin_name is None:
                self.origin_name = dns.name.from_text(self.origin)
            return dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.from_text(rtype), rest,
                                       self.origin_name, False, self.origin_name).to_text()
        if not all(type(value) is str for value in tokens):
            raise Unsure
        count = len(tokens)
        if rtype == "A" and count == 1:
            if not _IPV4.match(tokens[0]):
                raise Unsure
            return tokens[0]
        if rtype == "AAAA" and count == 1:
            return _ipv6(tokens[0])
        if rtype in _NAME_TYPES and count == 1:
            return self._name(tokens[0])
        if rtype == "MX" and count == 2:
            return f"{_uint(tokens[0], 0xFFFF)} {self._name(tokens[1])}"
        if rtype == "SRV" and count == 4:
            numbers = " ".join(str(_uint(word, 0xFFFF)) for word in tokens[:3])
            return f"{numbers} {self._name(tokens[3])}"
        if rtype == "SOA" and count == 7:
            mname, rname = self._name(tokens[0]), self._name(tokens[1])
            serial = _uint(tokens[2], _MAX_TTL)
            timers = [dns.ttl.from_text(word) for word in tokens[3:]]
            self.soa_minimum = timers[3]
            self.soa_values = (rname[:-1], serial, *timers[:3])
            return f"{mname} {rname} {serial} {' '.join(str(t) for t in timers)}"
        raise Unsure  # wrong number of fields: dnspython words the error

    def _add(self, owner: str, owner_key: str, rtype: str, ttl: int, data: str) -> None:
        node = self.nodes.get(owner_key)
        if node is None:
            node = self.nodes[owner_key] = (owner, {})
        sets = node[1]
        entry = sets.pop(rtype, None)  # re-inserted last: dnspython replaces the RRset
        budgeted = not (owner_key == self.origin_key and rtype in ("SOA", "NS"))
        if entry is None:
            if sets and (rtype == "CNAME" or "CNAME" in sets):
                raise Unsure  # CNAME and other data: dnspython drops one of them
            sets[rtype] = [ttl, [data], None]
            if budgeted:
                self.put(True, 1, 1)
            return
        sets[rtype] = entry
        records = entry[1]
        if entry[0] != ttl or rtype in ("CNAME", "SOA"):
            raise Unsure  # the smallest TTL wins / a singleton replaced: dnspython's rules
        lowered = entry[2]
        if lowered is None:
            lowered = entry[2] = {record.lower() for record in records}
        low = data.lower()
        added = 0
        if low in lowered:
            if data not in records:
                raise Unsure  # equal as DNS data but written differently
        else:
            records.append(data)
            lowered.add(low)
            added = 1
        if budgeted:
            self.put(False, added, len(records))


def _split(line: str, depth: int) -> tuple[list[str], int]:
    """Tokens of one physical line (comments dropped) and the parenthesis depth after it; one
    level of parentheses at most (deeper or unbalanced: dnspython's business)."""
    if '"' not in line:
        code = line.split(";", 1)[0] if ";" in line else line
        if "(" not in code and ")" not in code:
            return code.split(), depth
        for char in code:
            if char == "(" or char == ")":
                depth += 1 if char == "(" else -1
                if depth not in (0, 1):
                    raise Unsure
        return code.replace("(", " ").replace(")", " ").split(), depth
    tokens: list[str] = []
    pos, end = 0, len(line)
    while pos < end:
        match = _QUOTED_LINE.match(line, pos)
        if match is None:  # an unterminated quote
            raise Unsure
        pos = match.end()
        quoted, paren, comment, word = match.groups()
        if quoted is not None:
            tokens.append(_Quoted(quoted))
        elif word is not None:
            tokens.append(word)
        elif paren is not None:
            depth += 1 if paren == "(" else -1
            if depth not in (0, 1):
                raise Unsure
        elif comment is not None:
            break
    return tokens, depth


def _word(tokens: list[str], index: int) -> str:
    """An unquoted token (IndexError when the record ends early: not plain)."""
    value = tokens[index]
    if type(value) is not str:
        raise Unsure
    return value


def _long_label(token: str) -> bool:
    return len(token) > 63 and any(len(label) > 63 for label in token.split("."))


def _ipv6(text: str) -> str:
    """``dns.ipv6.canonicalize``, faster for the forms both it and the C library accept alike
    (hex groups and one ``::``; the rest goes to dnspython)."""
    if not _IPV6_HEX.match(text) or text.count("::") > 1 \
            or ("::" not in text and text.count(":") != 7):
        return dns.ipv6.canonicalize(text)
    chunks = ["%x" % group for group in struct.unpack("!8H", socket.inet_pton(socket.AF_INET6, text))]
    # dnspython's choice: the first longest run of two or more zero groups becomes "::", and
    # ::a.b.c.d / ::ffff:a.b.c.d are written with the IPv4 address.
    best_start = best_len = 0
    start = -1
    for index in range(9):
        if index < 8 and chunks[index] == "0":
            if start < 0:
                start = index
        elif start >= 0:
            if index - start > best_len:
                best_start, best_len = start, index - start
            start = -1
    if best_len <= 1:
        return ":".join(chunks)
    if best_start == 0 and (best_len == 6 or best_len == 5 and chunks[5] == "ffff"):
        return dns.ipv6.canonicalize(text)
    return ":".join(chunks[:best_start]) + "::" + ":".join(chunks[best_start + best_len:])


def _uint(word: str, largest: int) -> int:
    if not word.isdigit():
        raise Unsure
    value = int(word)
    if value > largest:
        raise Unsure
    return value
