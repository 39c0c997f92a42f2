"""The content of an RFC 9432 catalog zone (schema version 2), as served records.

Designate 23's layout: SOA, ``NS invalid.``, ``version.<catalog> TXT "2"`` and one member entry
``<zone id>.zones.<catalog> PTR <zone name>`` per member zone; the zone id is the unique label
RFC 9432 §4.1 asks for, stable for the life of the zone.  TTL 0: catalog records are never meant
for resolvers (RFC 9432 §4).
"""

from __future__ import annotations

from collections.abc import Iterable

from openkeel_designate.dnswire.zonedata import ServedRecord

CATALOG_TTL = 0


def catalog_records(fqdn: str, serial: int, refresh: int,
                    members: Iterable[tuple[str, str]]) -> list[ServedRecord]:
    """SOA first, then NS, version and the member PTRs (``members``: (zone id, zone name))."""
    retry = max(refresh // 4, 10)
    records = [
        ServedRecord(fqdn, "SOA", CATALOG_TTL,
                     f"invalid. hostmaster.invalid. {serial} {refresh} {retry} 604800 0"),
        ServedRecord(fqdn, "NS", CATALOG_TTL, "invalid."),
        ServedRecord(f"version.{fqdn}", "TXT", CATALOG_TTL, '"2"'),
    ]
    records.extend(ServedRecord(f"{zone_id}.zones.{fqdn}", "PTR", CATALOG_TTL, name)
                   for zone_id, name in members)
    return records
