"""Reading an imported zone file into zone values and recordsets.

Parsing goes through dnspython exactly as Designate does (``relativize=False``,
``check_origin=False``), so the same files succeed and fail, with the same messages
(lifecycle.md §8).  Exports are rendered by ``central/zonefile.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import dns.exception
import dns.name
import dns.rdatatype
import dns.zone

from openkeel_designate.domain import rrtypes

NO_ORIGIN = ("The $ORIGIN statement is required and must be the first statement in the "
             "zonefile.")
MALFORMED = "Malformed zonefile."
NO_SOA = "An SOA record is required."
UNDEFINED = "An undefined error occurred. "


class ZoneFileError(Exception):
    """The file cannot become a zone; ``str()`` is the import's ERROR message."""


@dataclass
class ParsedRecordSet:
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


def parse(text: str, min_ttl: int, supported_types: list[str]) -> ParsedZone:
    """The zone values and recordsets of a zone file, or ZoneFileError with Designate's text."""
    try:
        parsed = dns.zone.from_text(text, relativize=False, check_origin=False)
    except dns.zone.UnknownOrigin as exc:
        raise ZoneFileError(NO_ORIGIN) from exc
    except dns.exception.SyntaxError as exc:
        raise ZoneFileError(MALFORMED) from exc
    except Exception as exc:  # anything else dnspython rejects, reported as Designate does
        raise ZoneFileError(undefined(str(exc))) from exc
    soa = parsed.get_rdataset(parsed.origin, "SOA") if parsed.origin is not None else None
    if not soa:
        raise ZoneFileError(NO_SOA)
    try:
        return _zone(parsed, soa, min_ttl, supported_types)
    except ZoneFileError:
        raise
    except Exception as exc:
        raise ZoneFileError(undefined(str(exc))) from exc


def _zone(parsed: dns.zone.Zone, soa, min_ttl: int, supported_types: list[str]) -> ParsedZone:
    origin: dns.name.Name = parsed.origin
    rdata = soa[0]
    result = ParsedZone({
        "name": origin.to_text(), "email": mailbox_to_email(rdata.rname),
        "ttl": soa.ttl if soa.ttl != 0 else min_ttl, "serial": rdata.serial,
        "refresh": rdata.refresh, "retry": rdata.retry, "expire": rdata.expire,
        "type": "PRIMARY",
    })
    for name, rdataset in parsed.iterate_rdatasets():
        rtype = dns.rdatatype.to_text(rdataset.rdtype)
        if rtype == "SOA" or (rtype == "NS" and name == origin):
            continue  # replaced by the managed SOA and apex NS
        record_type = rrtypes.get(rtype)
        if record_type is None or rtype not in supported_types:
            raise ZoneFileError(undefined(f"'{rtype}' is not a supported record type"))
        records: list[str] = []
        for item in rdataset:
            data = item.to_text()
            if not record_type.is_valid(data):
                raise ZoneFileError(undefined(f"'{data}' is not a '{rtype}' Record"))
            if data not in records:
                records.append(data)
        result.recordsets.append(
            ParsedRecordSet(name.to_text(), rtype, rdataset.ttl or None, records))
    return result


def mailbox_to_email(rname: dns.name.Name) -> str:
    """``host\\.master.example.com.`` → ``host.master@example.com``: the first unescaped dot."""
    labels = [label.decode() for label in rname.labels if label]
    if len(labels) < 2:
        return ".".join(labels)
    return labels[0] + "@" + ".".join(labels[1:])
