"""One RRset per owner name and type, and nothing beside a CNAME — whatever storage holds.

DNS owner names compare without regard to case (RFC 4343), so ``MiXeD.x.`` A and ``mixed.x.``
A are one RRset, and a CNAME at ``MIXED.x.`` beside them breaks RFC 1034 §3.6.2. Storage
refuses such rows since migration 0005 (which merged the same-type ones), but a CNAME written
beside other data in another case before it can remain. Served as stored, a BIND-style
secondary refuses the whole zone ("CNAME and other data") and dnspython keeps whichever came
last; here every served view (AXFR, single RRsets, the IXFR history) is made coherent first:

* records of one folded owner name and type become one RRset, spelled and timed as the least
  (spelling, TTL) among them: the same choice on every read, one TTL per RRset (RFC 2181 §5.2);
* a CNAME beside other data is left out (the other data stays, and a warning names it): the
  other records are the ones a zone apex or a delegation may need, a CNAME is one record;
* records of one RRset that are the same DNS data written differently (PTR ``WWW.x.`` and
  ``www.x.``, AAAA ``2001:DB8::1`` and ``2001:db8::1``) are served once: an RRset is a set
  (RFC 2181 §5), and a secondary may refuse a transfer that repeats a record. The API keeps
  every string as written, as Designate does (its mdns merges them through dnspython).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable

from openkeel_designate import slices
from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.domain import names, rrtypes
from openkeel_designate.slices import Work

log = logging.getLogger(__name__)


STEP = 1_000  # records handled between two yields of ``coherent_steps`` (under a millisecond)


def coherent(records: Iterable[ServedRecord], zone_name: str = "") -> list[ServedRecord]:
    """The records, in their order, with owner spellings and TTLs unified, repeated records
    and CNAME conflicts dropped; records with no collision come back as they were."""
    return slices.run(coherent_steps(records, zone_name))


def coherent_steps(records: Iterable[ServedRecord], zone_name: str = "") -> Work[list[ServedRecord]]:
    """``coherent`` as ``slices`` work: it yields after every ``STEP`` records of each pass, so
    that the worker's claim of a zone of 100,000 records leaves the loop to every other tenant
    between slices (``slices.drive``).

    Each name is folded once, and a record alone in its RRset (nearly every record of a
    large zone) is passed through without the set look-ups a collision needs."""
    records = list(records)
    folds: list[str] = []
    for start in range(0, len(records), STEP):
        folds.extend(names.key(record.name) for record in records[start:start + STEP])
        yield
    first: dict[tuple[str, str], ServedRecord] = {}
    sizes: dict[tuple[str, str], int] = {}
    for index, (record, folded) in enumerate(zip(records, folds)):
        if not index % STEP:
            yield
        rrset = (folded, record.type)
        held = first.get(rrset)
        if held is None:
            first[rrset] = record
            sizes[rrset] = 1
            continue
        sizes[rrset] += 1
        if (record.name, record.ttl) < (held.name, held.ttl):
            first[rrset] = record
    type_counts: dict[str, int] = {}
    for folded, _ in first:
        type_counts[folded] = type_counts.get(folded, 0) + 1
    yield
    shared = {folded for folded, count in type_counts.items() if count > 1}
    result = []
    seen: set[tuple[str, str, str]] = set()
    seen_data: set[tuple[str, str, bytes | str]] = set()
    for index, (record, folded) in enumerate(zip(records, folds)):
        if not index % STEP:
            yield
        if folded in shared and rrtypes.rules(record.type).exclusive:
            log.warning("zone %s: CNAME %s beside other data in another case is not served",
                        zone_name, record.name)
            continue
        if sizes[(folded, record.type)] == 1:
            result.append(record)
            continue
        if (folded, record.type, record.data) in seen:
            continue
        seen.add((folded, record.type, record.data))
        # rendering costs ~10 µs: only where it can matter
        same = (folded, record.type, same_data_key(record.type, record.data))
        if same in seen_data:
            continue
        seen_data.add(same)
        head = first[(folded, record.type)]
        if (head.name, head.ttl) != (record.name, record.ttl):
            record = ServedRecord(head.name, record.type, head.ttl, record.data)
        result.append(record)
    return result


@functools.lru_cache(maxsize=65536)
def same_data_key(rtype: str, data: str) -> bytes | str:
    """What two records of one type share exactly when they are the same DNS data: the
    canonical wire form (RFC 4034 §6.2, names folded to lower case), or the text itself for a
    record that cannot be rendered (mdns leaves those out anyway)."""
    record_type = rrtypes.get(rtype)
    if record_type is None:
        return data
    try:
        return record_type.render(data).to_digestable()
    except Exception:  # noqa: BLE001 - unrenderable text compares as text
        return data
