"""What every record type module provides.

A record type validates one record string exactly as Designate 23.0.0 does (the stored string is
kept verbatim; validation only decides accept / reject) and may constrain the recordset name.
Rendering for DNS always goes through dnspython (``render``), never by hand.
"""

from __future__ import annotations

import re
from typing import ClassVar

import dns.rdata
import dns.rdataclass
import dns.rdatatype

# Designate's "domain" field: absolute, labels <= 63, no leading/trailing hyphen, no wildcard.
DOMAIN_RE = re.compile(r"^(?!.{255,})(?:(?!\-)[A-Za-z0-9_\-]{1,63}(?<!\-)\.)+\Z")
# Default recordset-name rule: like DOMAIN_RE but a leading "*" label is allowed.
HOSTNAME_RE = re.compile(r"^(?!.{255,})(?:(?:^\*|(?!\-)[A-Za-z0-9_\-]{1,63})(?<!\-)\.)+\Z")


def is_domain(value: str, max_len: int = 255) -> bool:
    """A Designate "domain" field: absolute name with a trailing dot."""
    return isinstance(value, str) and len(value) <= max_len and bool(DOMAIN_RE.match(value))


def split_exact(value: str, count: int, sep: str = " ") -> list[str] | None:
    """``value`` split on every ``sep`` when that yields exactly ``count`` parts, else None.

    Designate unpacks ``value.split(' ')`` into a fixed number of fields, so a doubled or
    trailing space makes an extra (empty) field and the record is rejected.
    """
    parts = value.split(sep)
    return parts if len(parts) == count else None


def strip_wrapping_quotes(value: str) -> str:
    """``value`` without one pair of surrounding double quotes (a lone ``"`` becomes empty)."""
    if value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value


def canonical_int(value: str, low: int, high: int) -> bool:
    """An integer written canonically (no sign, no leading zero, no spaces) within bounds."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return False
    return repr(number) == value and low <= number <= high


def loose_int(value: str, low: int, high: int) -> bool:
    """An integer as Python's ``int()`` accepts it (``+5`` and `` 5`` too) within bounds."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return False
    return low <= number <= high


class RecordType:
    """One DNS record type as the API sees it. Subclasses live one per module."""

    name: ClassVar[str]
    # When set, a recordset of this type may hold at most this many records (CNAME: 1).
    max_records: ClassVar[int | None] = None
    # Record types that cannot be created through the API (SOA).
    api_creatable: ClassVar[bool] = True

    def is_valid(self, data: str) -> bool:
        """Whether one record string is acceptable for this type."""
        raise NotImplementedError

    def is_valid_name(self, name: str) -> bool:
        """Whether a recordset of this type may carry this (absolute) name."""
        return bool(HOSTNAME_RE.match(name))

    def render(self, data: str) -> dns.rdata.Rdata:
        """The rdata served on the DNS side for a stored record string (dnspython parses it)."""
        return dns.rdata.from_text(
            dns.rdataclass.IN, self.rdatatype(), data, relativize=False
        )

    def rdatatype(self) -> dns.rdatatype.RdataType:
        """This type's dnspython code (for types that build their rdata by hand)."""
        return dns.rdatatype.from_text(self.name)
