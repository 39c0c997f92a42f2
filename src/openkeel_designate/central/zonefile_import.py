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
  runs it in a worker process (``offload.py``); its arguments and result pickle.

Exports are rendered by ``central/zonefile.py``.
"""

from __future__ import annotations

import marshal
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

from openkeel_designate import gcpause
from openkeel_designate.central import zonefile_plain
from openkeel_designate.domain import errors
from openkeel_designate.domain import fields, names, recordset_types, rrtypes
from openkeel_designate.storage import keys

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
    # ``parse_packed``: the recordsets with their new keys, marshalled a slice at a time, and
    # their totals (recordsets, records, largest recordset, lowest TTL); ``recordsets`` empty.
    packed: list[bytes] | None = None
    totals: tuple[int, int, int, int | None] | None = None


def undefined(detail: str) -> str:
    return UNDEFINED + detail[:130]


def parse(text: str, rules: Rules) -> ParsedZone:
    """The zone values and recordsets of a zone file, or ZoneFileError with the message.

    The cyclic garbage collector is paused meanwhile: reading builds hundreds of thousands of
    small lists and tuples, none in a cycle, and the collections they trigger took ~40% of the
    time of a 100,000-record file.
    """
    with gcpause.paused():
        return _parse(text, rules)


def parse_packed(text: str, rules: Rules, slice_size: int) -> ParsedZone:
    """``parse``, plus the keys of the rows the import will insert, packed for the trip back.

    Run in the import's worker process.  Ids and hashes (``keys.new_keys``) cost ~1 s of CPU
    for 100,000 records: made here, beside the parse, not on the event loop.  The result is
    ``marshal``-led by slices of ``slice_size`` recordsets, each an element of ``packed``:
    ``(name, type, ttl, records, recordset id, [(record id, hash), ...])`` tuples.  As named
    tuples the same data took ~3.7 s to pickle here and ~3.6 s to unpickle in the server (its
    garbage collector running over the 400,000 new objects while the executor's thread held
    the interpreter); a slice is unpacked only when it is inserted (milliseconds).
    """
    parsed = parse(text, rules)
    with gcpause.paused():
        sets = parsed.recordsets
        made = keys.new_keys([recordset.records for recordset in sets])
        parsed.packed = [
            marshal.dumps([(*sets[index], *made[index])
                           for index in range(start, min(start + slice_size, len(sets)))])
            for start in range(0, len(sets), slice_size)]
        parsed.totals = (len(sets), sum(len(rs.records) for rs in sets),
                         max((len(rs.records) for rs in sets), default=0),
                         min((rs.ttl for rs in sets if rs.ttl is not None), default=None))
        parsed.recordsets = []
    return parsed


def _parse(text: str, rules: Rules) -> ParsedZone:
    try:
        read = read_zone(text, rules.limits)
    except _Refused as exc:
        raise ZoneFileError(str(exc)) from None
    except dns.zone.UnknownOrigin as exc:
        raise ZoneFileError(NO_ORIGIN) from exc
    except dns.exception.SyntaxError as exc:
        raise ZoneFileError(MALFORMED) from exc
    except Exception as exc:  # anything else dnspython rejects, reported as Designate does
        raise ZoneFileError(undefined(str(exc))) from exc
    if read.soa is None:
        raise ZoneFileError(NO_SOA)
    try:
        return _zone(read, rules)
    except fields.FieldError as exc:
        raise ZoneFileError(undefined(exc.detail)) from None
    except errors.DesignateError as exc:
        raise ZoneFileError(undefined(_first_problem(exc))) from None


def read_zone(text: str, limits: Limits) -> zonefile_plain.ReadZone:
    """The file's RRsets within ``limits``: the fast reader for a plain file, else dnspython.

    Both give the same result on a plain file (``zonefile_plain``); dnspython alone decides
    everything else, errors included.
    """
    try:
        return zonefile_plain.read(text, _Budget(limits).put)
    except zonefile_plain.Unsure:
        return read_with_dnspython(text, limits)


def read_with_dnspython(text: str, limits: Limits) -> zonefile_plain.ReadZone:
    """dnspython's reading of any file, as ``dns.zone.from_text`` would, within ``limits``."""
    zone = _read(text, _Budget(limits))
    origin: dns.name.Name | None = zone.origin
    if origin is None:
        return zonefile_plain.ReadZone("", None)
    soa = zone.get_rdataset(origin, "SOA")
    values = None
    if soa:
        rdata = soa[0]
        values = (soa.ttl, rdata.rname.to_text(omit_final_dot=True), rdata.serial,
                  rdata.refresh, rdata.retry, rdata.expire)
    read = zonefile_plain.ReadZone(origin.to_text(), values)
    for name, rdataset in zone.iterate_rdatasets():
        apex = name == origin and rdataset.rdtype in _APEX_TYPES
        read.rdatasets.append((name.to_text(), dns.rdatatype.to_text(rdataset.rdtype),
                               rdataset.ttl, [item.to_text() for item in rdataset], apex))
    return read


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
def _zone(read: zonefile_plain.ReadZone, rules: Rules) -> ParsedZone:
    assert read.soa is not None
    soa_ttl, rname, serial, refresh, retry, expire = read.soa
    ttl = soa_ttl if soa_ttl != 0 else rules.min_ttl
    result = ParsedZone({
        "name": fields.domain("name", read.origin),
        "email": fields.email("email", mailbox_to_email(rname)),
        "ttl": fields.integer()("ttl", ttl),
        "serial": fields.integer(0, _MAX_SERIAL)("serial", serial),
        "refresh": fields.integer()("refresh", refresh),
        "retry": fields.integer()("retry", retry),
        "expire": fields.integer()("expire", expire),
        "type": "PRIMARY",
    })
    supported = list(rules.supported_types)
    hostname, integer = fields.hostname, fields.integer()
    # delegation points (a DS stands only beside an NS; central/recordsets.py)
    ns_owners = {names.key(name) for name, rtype, *_ in read.rdatasets if rtype == "NS"}
    for name, rtype, rttl, records, apex in read.rdatasets:
        recordset = _recordset(name, rtype, rttl, records, rules, supported, hostname, integer)
        if rrtypes.rules(rtype).delegation_only:
            recordset_types.check_delegation_point(
                rtype, name, read.origin, ["NS"] if names.key(name) in ns_owners else [])
        if not apex:  # the SOA and apex NS are validated, then replaced by the managed ones
            result.recordsets.append(recordset)
    return result


def _recordset(name: str, rtype: str, ttl: int, records: list[str], rules: Rules,
               supported: list[str], hostname: Any, integer: Any) -> ParsedRecordSet:
    """One recordset, its name, TTL and type checked as the API checks a recordset create.

    The records themselves are kept as dnspython writes them (``0 issue "ca.org"``, ``1 .
    alpn="h2"``): they are DNS data by construction, and Designate imports exactly these forms,
    though its API rules for typed input would refuse several of them (quoted CAA values, SVCB
    parameters, SRV owners without ``_service._proto``).
    """
    text = hostname("name", name)
    checked_ttl = integer("ttl", ttl or None)
    if len(text) > rules.max_recordset_name_len:
        raise errors.InvalidRecordSetName("Name too long")
    if rtype != "SOA":
        recordset_types.supported_type(supported, rtype)
    return ParsedRecordSet(text, rtype, checked_ttl, records)


def _first_problem(exc: errors.DesignateError) -> str:
    """The text of an API validation error: its first structured error, else its message."""
    if exc.errors:
        return str(exc.errors[0].get("message", exc.type))
    return exc.message or exc.type


def mailbox_to_email(rname: str) -> str:
    """``host\\.master.example.com`` → ``host.master@example.com``, as Designate reads an rname.

    ``rname`` is the SOA's mailbox as dnspython writes it, without the final dot.  The first dot
    not escaped with a backslash becomes ``@``; escapes stay as dnspython writes them (``\\032``
    for a space), so a mailbox that is no email fails the email rule visibly.
    """
    parts = rname.split(".")
    mailbox = ""
    for index, part in enumerate(parts):
        if part.endswith("\\"):
            mailbox += part[:-1] + "."
            continue
        mailbox += part
        domain = ".".join(parts[index + 1:])
        return f"{mailbox}@{domain}" if domain else mailbox
    return mailbox
