"""Reading an imported zone file into zone values and recordsets, bounded and validated.

Parsing goes through dnspython as Designate does (``relativize=False``, no origin check), so
the same files succeed and fail with the same messages (lifecycle.md §8).  Three things are
ours, because a zone file is untrusted input parsed on the server:

* **Bounded before it grows.**  The project's quotas (``Limits``) are checked while the file is
  read: a ``$GENERATE`` whose range alone would pass the record quota is refused before a
  single line is expanded, and reading stops at the first record beyond a quota — Designate
  expands everything first and only then finds the quota exceeded.  ``MAX_RECORDS`` bounds an
  import whatever the quotas say; the API's request size limit bounds the text.
* **Validated as the API validates.**  The zone's name, email, TTL and SOA timers go through
  the API's field rules, each recordset's name, TTL and type too (Designate checks none of
  them, so an SOA mailbox ``h.`` or a TTL of 2^32-1 became zones it could not serve).  Records
  stay as dnspython reads them, as in Designate (see ``_recordset``).  The first problem, in
  Designate's order (zone fields, then recordsets in file order), is the message.
* **Pure.**  ``parse`` touches neither the database nor the event loop, so ``zone_imports``
  runs it in a worker process (``central/offload.py``); its arguments and result pickle.

Exports are rendered by ``central/zonefile.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import dns.exception
import dns.grange
import dns.name
import dns.rdataclass
import dns.rdataset
import dns.rdatatype
import dns.tokenizer
import dns.transaction
import dns.zone
import dns.zonefile

from openkeel_designate.central import recordsets as recordset_rules
from openkeel_designate.domain import errors
from openkeel_designate.domain import fields

NO_ORIGIN = ("The $ORIGIN statement is required and must be the first statement in the "
             "zonefile.")
MALFORMED = "Malformed zonefile."
NO_SOA = "An SOA record is required."
OVER_QUOTA = "Quota exceeded during zone import."
UNDEFINED = "An undefined error occurred. "
# What one import may bring whatever the quotas say: ~300 MB and ~20 s of one core at most.
# dnspython re-copies an RRset on each record added to it, hence the lower bound per RRset.
MAX_RECORDS = 200_000
MAX_RECORDSET_RECORDS = 10_000
TOO_MANY = f"Zone file too large: more than {MAX_RECORDS} records."
TOO_MANY_IN_SET = f"Zone file too large: more than {MAX_RECORDSET_RECORDS} records in one RRset."
MANAGED_RECORDSETS = 2  # the SOA and apex NS every zone gets, counted by zone_recordsets
_MAX_SERIAL = 4294967295
_APEX_TYPES = (dns.rdatatype.SOA, dns.rdatatype.NS)


class ZoneFileError(Exception):
    """The file cannot become a zone; ``str()`` is the import's ERROR message."""


@dataclass(frozen=True)
class Limits:
    """The importing project's quotas (negative: unlimited), as ``quotas.effective`` gives them."""

    zone_records: int = -1
    zone_recordsets: int = -1
    recordset_records: int = -1


@dataclass(frozen=True)
class Rules:
    """Everything ``parse`` needs from configuration and quotas (picklable, no services)."""

    min_ttl: int
    supported_types: tuple[str, ...]
    max_recordset_name_len: int = 255
    limits: Limits = Limits()


class ParsedRecordSet(NamedTuple):
    name: str
    type: str
    ttl: int | None
    records: list[str]


@dataclass
class ParsedZone:
    values: dict[str, Any]
    recordsets: list[ParsedRecordSet] = field(default_factory=list)


def undefined(detail: str) -> str:
    return UNDEFINED + detail[:130]


def parse(text: str, rules: Rules) -> ParsedZone:
    """The zone values and recordsets of a zone file, or ZoneFileError with the message."""
    try:
        zone = _read(text, _Budget(rules.limits))
    except _Refused as exc:
        raise ZoneFileError(str(exc)) from None
    except dns.zone.UnknownOrigin as exc:
        raise ZoneFileError(NO_ORIGIN) from exc
    except dns.exception.SyntaxError as exc:
        raise ZoneFileError(MALFORMED) from exc
    except Exception as exc:  # anything else dnspython rejects, reported as Designate does
        raise ZoneFileError(undefined(str(exc))) from exc
    soa = zone.get_rdataset(zone.origin, "SOA") if zone.origin is not None else None
    if not soa:
        raise ZoneFileError(NO_SOA)
    try:
        return _zone(zone, soa, rules)
    except fields.FieldError as exc:
        raise ZoneFileError(undefined(exc.detail)) from None
    except errors.DesignateError as exc:
        raise ZoneFileError(undefined(_first_problem(exc))) from None


# --- reading, within the budget ----------------------------------------------------------------
class _Refused(Exception):
    """Reading stopped: a quota or ``MAX_RECORDS`` would be passed (``str()``: the message)."""


class _Budget:
    """Counts recordsets and records as dnspython stores them and refuses what passes a limit."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.records = 0
        self.recordsets = MANAGED_RECORDSETS

    def expect(self, count: int) -> None:
        """``count`` more records are about to come (a ``$GENERATE`` range): refuse them now."""
        self._check_records(self.records + count)

    def put(self, new_set: bool, added: int, size: int) -> None:
        if new_set:
            self.recordsets += 1
            if 0 <= self.limits.zone_recordsets < self.recordsets:
                raise _Refused(OVER_QUOTA)
        if 0 <= self.limits.recordset_records < size:
            raise _Refused(OVER_QUOTA)
        if size > MAX_RECORDSET_RECORDS:
            raise _Refused(TOO_MANY_IN_SET)
        self.records += added
        self._check_records(self.records)

    def _check_records(self, count: int) -> None:
        if 0 <= self.limits.zone_records < count:
            raise _Refused(OVER_QUOTA)
        if count > MAX_RECORDS:
            raise _Refused(TOO_MANY)


class _BoundedReader(dns.zonefile.Reader):
    """dnspython's zone file reader, counting every stored rdataset against a ``_Budget``."""

    def __init__(self, text: str, txn: dns.transaction.Transaction, budget: _Budget):
        super().__init__(dns.tokenizer.Tokenizer(text, "<string>"), dns.rdataclass.IN, txn)
        self._budget = budget
        self._sizes: dict[tuple[dns.name.Name, int, int], int] = {}
        txn.check_put_rdataset(self._count)

    def _generate_line(self) -> None:
        token = self.tok.get()
        self.tok.unget(token)
        try:
            start, stop, step = dns.grange.from_text(token.value)
        except Exception:  # not a range: dnspython's own parsing reports it
            pass
        else:
            self._budget.expect(len(range(start, stop + 1, step)))
        super()._generate_line()

    def _count(self, txn: dns.transaction.Transaction, name: dns.name.Name,
               rdataset: dns.rdataset.Rdataset) -> None:
        """A check dnspython calls with the whole RRset before storing it (deduplicated)."""
        if name == self.zone_origin and rdataset.rdtype in _APEX_TYPES:
            return  # replaced by the managed SOA and apex NS: no quota
        key = (name, rdataset.rdtype, rdataset.covers)  # Name compares case-insensitively
        before = self._sizes.get(key)
        self._budget.put(before is None, len(rdataset) - (before or 0), len(rdataset))
        self._sizes[key] = len(rdataset)


def _read(text: str, budget: _Budget) -> dns.zone.Zone:
    """``dns.zone.from_text(text, relativize=False, check_origin=False)``, within ``budget``."""
    zone = dns.zone.Zone(None, dns.rdataclass.IN, relativize=False)
    with zone.writer(True) as txn:
        try:
            _BoundedReader(text, txn, budget).read()
        except dns.zonefile.UnknownOrigin:
            raise dns.zone.UnknownOrigin from None
    return zone


# --- validation, in Designate's order ----------------------------------------------------------
def _zone(zone: dns.zone.Zone, soa: dns.rdataset.Rdataset, rules: Rules) -> ParsedZone:
    origin: dns.name.Name = zone.origin
    rdata = soa[0]
    ttl = soa.ttl if soa.ttl != 0 else rules.min_ttl
    result = ParsedZone({
        "name": fields.domain("name", origin.to_text()),
        "email": fields.email("email", mailbox_to_email(rdata.rname)),
        "ttl": fields.integer()("ttl", ttl),
        "serial": fields.integer(0, _MAX_SERIAL)("serial", rdata.serial),
        "refresh": fields.integer()("refresh", rdata.refresh),
        "retry": fields.integer()("retry", rdata.retry),
        "expire": fields.integer()("expire", rdata.expire),
        "type": "PRIMARY",
    })
    for name, rdataset in zone.iterate_rdatasets():
        recordset = _recordset(name, rdataset, rules)
        apex = name == origin and rdataset.rdtype in _APEX_TYPES
        if not apex:  # the SOA and apex NS are validated, then replaced by the managed ones
            result.recordsets.append(recordset)
    return result


def _recordset(name: dns.name.Name, rdataset: dns.rdataset.Rdataset,
               rules: Rules) -> ParsedRecordSet:
    """One recordset, its name, TTL and type checked as the API checks a recordset create.

    The records themselves are kept as dnspython writes them (``0 issue "ca.org"``, ``1 .
    alpn="h2"``): they are DNS data by construction, and Designate imports exactly these forms,
    though its API rules for typed input would refuse several of them (quoted CAA values, SVCB
    parameters, SRV owners without ``_service._proto``).
    """
    text = fields.hostname("name", name.to_text())
    ttl = fields.integer()("ttl", rdataset.ttl or None)
    rtype = dns.rdatatype.to_text(rdataset.rdtype)
    if len(text) > rules.max_recordset_name_len:
        raise errors.InvalidRecordSetName("Name too long")
    if rtype != "SOA":
        recordset_rules.supported_type(list(rules.supported_types), rtype)
    return ParsedRecordSet(text, rtype, ttl, [item.to_text() for item in rdataset])


def _first_problem(exc: errors.DesignateError) -> str:
    """The text of an API validation error: its first structured error, else its message."""
    if exc.errors:
        return str(exc.errors[0].get("message", exc.type))
    return exc.message or exc.type


def mailbox_to_email(rname: dns.name.Name) -> str:
    """``host\\.master.example.com.`` → ``host.master@example.com``, as Designate reads an rname.

    The first dot not escaped with a backslash becomes ``@``; escapes stay as dnspython writes
    them (``\\032`` for a space), so a mailbox that is no email fails the email rule visibly.
    """
    parts = rname.to_text(omit_final_dot=True).split(".")
    mailbox = ""
    for index, part in enumerate(parts):
        if part.endswith("\\"):
            mailbox += part[:-1] + "."
            continue
        mailbox += part
        domain = ".".join(parts[index + 1:])
        return f"{mailbox}@{domain}" if domain else mailbox
    return mailbox
