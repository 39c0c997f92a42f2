"""What every record type module provides.

A record type validates one record string exactly as Designate 23.0.0 does (the stored string is
kept verbatim; validation only decides accept / reject) and declares the rules its recordsets
follow: name rules, exclusivity, a record limit, whether users may write it. The recordset
service asks the type for these instead of testing type names, so a type's rules live in its
module. Rendering for DNS always goes through dnspython (``render``), never by hand.
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
    """One DNS record type as the API sees it. Subclasses live one per module.

    A plain ``RecordType()`` carries the defaults: the rules for recordsets of a type without
    a module, which only a secondary zone's transfer can store.
    """

    name: ClassVar[str]
    # Where Designate 23.0.0 lists this type in the default ``[DEFAULT] supported_record_type``
    # (A is 1, TLSA 17): the registry orders that default by it. A new type takes the next one.
    rank: ClassVar[int]
    # When set, a recordset of this type may hold at most this many records (CNAME: 1).
    max_records: ClassVar[int | None] = None
    # Alone at its name (RFC 1034 §3.6.2, CNAME): no other recordset may share the name, and
    # so it may not stand at the zone apex, where the SOA and NS are.
    exclusive: ClassVar[bool] = False
    # Whether users may create, update or delete recordsets of this type (SOA: Designate
    # writes it itself).
    api_writable: ClassVar[bool] = True
    # Whether the recordset of this type at the zone apex is Designate's (NS: the pool's
    # nameservers): users may not update it, nor delete it without edit_managed_records.
    apex_managed: ClassVar[bool] = False
    # Left out of the default ``[DEFAULT] supported_record_type`` (an extension Designate does
    # not have, DS): until the operator lists it, it is refused as an unknown type is, so a
    # default deployment answers exactly as Designate.
    opt_in: ClassVar[bool] = False
    # Only at a delegation point: a name below the apex holding an NS recordset (DS, RFC 4035
    # §2.4); elsewhere the recordset is refused (``invalid_recordset_location``).
    delegation_only: ClassVar[bool] = False
    # The parent's side of a zone cut (NS, DS). Designate refuses any recordset at the name of
    # a child zone; once DS is enabled the parent may hold these there, the delegation (and
    # chain of trust) to its child zone (``central/recordsets.check_placement``).
    zone_cut: ClassVar[bool] = False

    def is_valid(self, data: str) -> bool:
        """Whether one record string is acceptable for this type."""
        raise NotImplementedError

    def is_valid_in(self, name: str | None, data: str) -> bool:
        """Whether one record string is acceptable in a recordset called ``name`` (None when
        the request names none). Most types judge the record alone; SVCB reads the name too."""
        return self.is_valid(data)

    def is_valid_name(self, name: str) -> bool:
        """Whether a recordset of this type may carry this (absolute) name.

        This is the name field's rule of Designate's recordset object: a refusal is a bare
        ``invalid_object`` ("name is invalid").
        """
        return bool(HOSTNAME_RE.match(name))

    def name_error(self, name: str) -> str | None:
        """Designate's message for a name its API refuses for this type, else None.

        Designate's API checks some names after the object validated, with a message of its
        own (``bad_request``), on create and again on update (TLSA: ``_port._protocol``).
        """
        return None

    def render(self, data: str) -> dns.rdata.Rdata:
        """The rdata served on the DNS side for a stored record string (dnspython parses it)."""
        return dns.rdata.from_text(
            dns.rdataclass.IN, self.rdatatype(), data, relativize=False
        )

    def rdatatype(self) -> dns.rdatatype.RdataType:
        """This type's dnspython code (for types that build their rdata by hand)."""
        return dns.rdatatype.from_text(self.name)
