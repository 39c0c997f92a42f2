"""Incremental transfer bodies (RFC 1995 §4) from a zone's recorded deltas.

Consecutive deltas are condensed into one (RFC 1995 §5: a record added then removed within the
range never travels), so a client that is many serials behind still gets one difference sequence:
new SOA, old SOA, removed RRs, new SOA, added RRs, new SOA.
"""

from __future__ import annotations

from collections.abc import Iterable

import dns.message
import dns.rdatatype

from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneDelta


def requested_serial(query: dns.message.Message) -> int | None:
    """The client's serial from the IXFR query's authority SOA (None: no usable SOA)."""
    for rrset in query.authority:
        if rrset.rdtype == dns.rdatatype.SOA and len(rrset) > 0:
            return int(rrset[0].serial)
    return None


def condense(deltas: Iterable[ZoneDelta]) -> tuple[list[ServedRecord], list[ServedRecord]]:
    """The net (removed, added) over consecutive deltas, each in a stable order."""
    removed: dict[ServedRecord, None] = {}
    added: dict[ServedRecord, None] = {}
    for delta in deltas:
        for record in delta.removed:
            if record in added:
                del added[record]
            else:
                removed[record] = None
        for record in delta.added:
            if record in removed:
                del removed[record]
            else:
                added[record] = None
    return list(removed), list(added)


def soa_at(deltas: list[ZoneDelta], current: ServedRecord, serial: int) -> ServedRecord | None:
    """The SOA the client at ``serial`` holds: the oldest SOA the chain says was replaced,
    else the current one's fields, with ``serial`` (None: an SOA that does not parse)."""
    soa = next((d.old_soa for d in deltas if d.old_soa is not None), current)
    fields = soa.data.split()
    if len(fields) != 7:
        return None
    fields[2] = str(serial)
    return ServedRecord(soa.name, soa.type, soa.ttl, " ".join(fields))


def complete_chain(deltas: list[ZoneDelta] | None, since: int, current: int) -> bool:
    """Whether ``deltas`` lead from ``since`` to ``current`` without a gap."""
    if not deltas or deltas[0].from_serial != since or deltas[-1].serial != current:
        return False
    return all(a.serial == b.from_serial for a, b in zip(deltas, deltas[1:]))
