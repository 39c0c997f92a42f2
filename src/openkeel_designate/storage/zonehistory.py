"""Per-zone change history for incremental zone transfer (IXFR, RFC 1995).

Why snapshots rather than a diff read off the records table: a record update rewrites ``data`` in
place and a recordset TTL change alters every served RR of the set without touching a record row,
so the records table alone cannot say what a secondary holds at the old serial.  Instead, when a
worker claim assigns a new serial, the served set (exactly what mdns puts in an AXFR, the SOA's
serial left out) is read and compared with the set stored at the previous serial; the difference becomes one
``zone_changes`` row.  Only the newest row of a zone keeps the full set (``snapshot``,
zlib-compressed JSON, a few bytes per record), so the storage cost is one snapshot per zone plus
the last ``KEEP`` differences.  The price is one extra read of the zone per serial — the same query
one AXFR costs — paid by the writer, never by a transfer, in ``slices`` so that a large zone's
claim leaves the loop to the other tenants.  Where the process holds the set it stored at the
previous serial, the claim reads instead only the owner names of the records not ACTIVE and
patches that set (``record_patched_serial``); a write that leaves no such record to name what it
changed (a deletion, the zone's TTL) marks the zone ``whole_step`` and the next claim reads it
whole.

Limit, and why it is safe: mdns serves live rows, so a secondary that transferred between a write
and its claim holds serial N plus some pending changes.  The N→N+1 difference may then remove what
it no longer has; a strict client (dnspython, BIND) rejects such an IXFR and falls back to AXFR, so
the result is one wasted round trip, never a wrong zone.
"""

from __future__ import annotations

import heapq
import json
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import orjson
from sqlalchemy import ColumnElement, bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate import slices
from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneDelta
from openkeel_designate.domain import names
from openkeel_designate.slices import Work
from openkeel_designate.storage.database import BOUNDED, Database, bounded, execute, execute_many
from openkeel_designate.storage.models import ZoneChange, utcnow

KEEP = 50
# A compressed snapshot up to this size (a zone of a few thousand records) is written by a
# statement vouched small (``database.bounded``); a larger one crosses to SQLite's thread.
SMALL_SNAPSHOT = 64 * 1024

Row = tuple[str, str, int, str]


def history_row(name: str, rtype: str, ttl: int, data: str) -> Row:
    """A served record as the history keeps it: the SOA with serial 0, since every step
    moves the serial and only its other fields are content (snapshots from before the SOA
    was kept have none: the first step after them just cannot tell the old SOA)."""
    if rtype == "SOA":
        fields = data.split()
        if len(fields) == 7:
            fields[2] = "0"
            data = " ".join(fields)
    return (name, rtype, ttl, data)


# Rows handled between two yields of the snapshot's ``slices`` work (a millisecond or two):
# a claim of a zone of 100,000 records stalled every tenant's API and DNS for 1.4 s without.
STEP = 2_000
_PACK = 1 << 18  # bytes of JSON compressed per step
_STRETCH = b",\n"  # between two stretches of STEP rows in a snapshot's JSON array


def encode_steps(rows: set[Row]) -> Work[bytes]:
    """The rows sorted, as one compact JSON array with a newline after every ``STEP`` rows,
    zlib level 1.

    The newlines let decoding parse a stretch at a time (one parse of 100,000 rows was 0.45 s)
    while the text stays the single JSON array every version reads: a worker of the version
    before decodes it whole, and a blob it wrote is one stretch here. JSON text never holds a
    raw newline (one in a value is escaped), so ``",\n"`` appears only between stretches.
    Level 1: written on every claim of the zone, read back only by the next one (level 6 made
    it a third smaller for four times the CPU)."""
    items = list(rows)
    runs = []
    for start in range(0, len(items), STEP):
        runs.append(sorted(items[start:start + STEP]))
        yield
    stretches: list[bytes] = []
    chunk: list[Row] = []
    for row in heapq.merge(*runs):
        chunk.append(row)
        if len(chunk) == STEP:
            stretches.append(orjson.dumps(chunk)[1:-1])
            chunk = []
            yield
    if chunk:
        stretches.append(orjson.dumps(chunk)[1:-1])
    packer = zlib.compressobj(1)
    parts = []
    text = b"[" + _STRETCH.join(stretches) + b"]"
    for start in range(0, len(text), _PACK):
        parts.append(packer.compress(text[start:start + _PACK]))
        yield
    parts.append(packer.flush())
    return b"".join(parts)


def decode_steps(blob: bytes) -> Work[set[Row]]:
    """The rows of a snapshot, a stretch of ``STEP`` rows per step."""
    rows: set[Row] = set()
    text = zlib.decompress(blob)
    yield
    for stretch in text[1:-1].split(_STRETCH):
        rows.update(tuple(item) for item in json.loads(b"[" + stretch + b"]"))  # type: ignore[misc]
        yield
    return rows


def _text(rows: set[Row]) -> str:
    return orjson.dumps(sorted(rows)).decode()


class LastSets:
    """The served set this process last stored as each zone's snapshot, with the blob it wrote.

    Decoding the snapshot was a sixth of a change's CPU in a zone of 8,000 records
    (bench/README.md, "Where a change to a large zone went"), and the worker that wrote a zone's snapshot is
    usually the one that claims the zone next. The set is used only when the blob read back is
    byte for byte the one it was stored with, so another worker's step, a base or a restored
    database is decoded as before. Bounded by rows in all (least recently stored go first);
    a zone larger than the bound is not kept.
    """

    def __init__(self, max_rows: int):
        self.max_rows = max_rows
        self._sets: OrderedDict[str, tuple[bytes, set[Row]]] = OrderedDict()
        self._rows = 0

    def get(self, zone_id: str, blob: bytes) -> set[Row] | None:
        kept = self._sets.get(zone_id)
        return kept[1] if kept is not None and kept[0] == blob else None

    def holds(self, zone_id: str) -> bool:
        """Whether a set of the zone is kept (whatever blob it was stored with)."""
        return zone_id in self._sets

    def put(self, zone_id: str, blob: bytes, rows: set[Row]) -> None:
        self.drop(zone_id)
        if len(rows) > self.max_rows:
            return
        self._sets[zone_id] = (blob, rows)
        self._rows += len(rows)
        while self._rows > self.max_rows:
            _, (_, oldest) = self._sets.popitem(last=False)
            self._rows -= len(oldest)

    def drop(self, zone_id: str) -> None:
        kept = self._sets.pop(zone_id, None)
        if kept is not None:
            self._rows -= len(kept[1])


# ~10 MB at most (a row is four short values): zones up to 50,000 records skip the decode.
LAST_SETS = LastSets(max_rows=50_000)


def content_rows(text: str) -> list[list]:
    """A step's stored rows without the SOA: what the change feed and the propagation view
    show (the SOA moves with every serial; ``history_row`` keeps it only for IXFR)."""
    return [row for row in json.loads(text) if row[1] != "SOA"]


def _records(text: str) -> tuple[ServedRecord, ...]:
    return tuple(ServedRecord(n, t, int(ttl), d) for n, t, ttl, d in json.loads(text))


def _delta(from_serial: int, serial: int, removed: str, added: str) -> ZoneDelta:
    """A stored step as mdns takes it: records without the SOA, a replaced SOA aside."""
    gone, new = _records(removed), _records(added)
    old_soa = next((r for r in gone if r.type == "SOA"), None)
    return ZoneDelta(from_serial, serial, tuple(r for r in gone if r.type != "SOA"),
                     tuple(r for r in new if r.type != "SOA"), old_soa)


def _statements():  # noqa: ANN202 - prebuilt statements
    """The history's reads and writes on every claim, built once (Core, no ORM unit of work):
    built per call they cost more CPU than the statements themselves."""
    zc = ZoneChange.__table__
    zone_id = bindparam("b_zone_id")
    of_zone = zc.c.zone_id == zone_id
    latest = (select(zc.c.id, zc.c.serial, zc.c.snapshot)
              .where(of_zone, zc.c.snapshot.is_not(None)).order_by(zc.c.id.desc()).limit(1))
    drop_snapshot = update(zc).where(of_zone, zc.c.snapshot.is_not(None)).values(snapshot=None)
    append = insert(zc).values(
        zone_id=zone_id, serial=bindparam("b_serial"), from_serial=bindparam("b_from"),
        removed=bindparam("b_removed"), added=bindparam("b_added"),
        snapshot=bindparam("b_snapshot"), created_at=bindparam("b_now"))
    # The steps older than the KEEP newest, in one statement (none while there are fewer:
    # the subquery is then NULL). MariaDB takes the subquery on the table it deletes from.
    oldest_kept = (select(zc.c.id).where(of_zone).order_by(zc.c.id.desc())
                   .offset(KEEP - 1).limit(1)).scalar_subquery()
    prune = delete(zc).where(of_zone, zc.c.id < oldest_kept)
    # mdns's reads for an IXFR: the chain of steps, then the differences from where it starts
    # (at most KEEP rows each)
    steps = select(zc.c.id, zc.c.serial, zc.c.from_serial).where(of_zone).order_by(zc.c.id)
    steps_from = (select(zc.c.from_serial, zc.c.serial, zc.c.removed, zc.c.added)
                  .where(of_zone, zc.c.id >= bindparam("b_first")).order_by(zc.c.id))
    # PostgreSQL: the three as one statement, the snapshot dropped and the oldest pruned by
    # CTEs. They see the rows as they were before the new one, so one fewer is kept of them.
    oldest_kept_before = (select(zc.c.id).where(of_zone).order_by(zc.c.id.desc())
                          .offset(KEEP - 2).limit(1)).scalar_subquery()
    appended = append.add_cte(drop_snapshot.cte("dropped")).add_cte(
        delete(zc).where(of_zone, zc.c.id < oldest_kept_before).cte("pruned"))
    return (latest, bounded(drop_snapshot), append, bounded(prune), appended, steps, steps_from)


(_LATEST, _DROP_SNAPSHOT, _APPEND, _PRUNE, _APPEND_AFTER, _STEPS, _STEPS_FROM) = _statements()


@dataclass(frozen=True)
class PreparedStep:
    """A large zone's next step (or, without a snapshot yet, its history's start), made before
    the claim's write transaction.

    On SQLite the claim holds the database's one write lock; reading, comparing and encoding a
    zone of 100,000 records inside it held every other tenant's write for over a second. The
    step is made instead from the served set read after ``change_seq`` (every write that
    changes what the zone serves bumps it, in the same transaction), against the newest
    snapshot as stored then (``base``). The claim uses it only if the zone's ``change_seq`` and
    SOA and the newest snapshot are still those: otherwise it reads the zone as before."""

    change_seq: int
    served: set[Row]
    soa: set[Row]  # the served set's SOA rows: the claim rewrites the SOA before the step
    snapshot: bytes  # ``served`` encoded
    base: bytes | None  # the newest snapshot when prepared, as stored; None: the zone had none
    removed: set[Row]
    added: set[Row]


async def prepare_step(zone_id: str, change_seq: int, served: set[Row],
                       base: bytes | None) -> PreparedStep:
    """The step from snapshot ``base`` to ``served`` (read after ``change_seq``), encoded.
    Without a snapshot (an imported zone's first claim) only ``served`` and its encoding count:
    the history starts there (``record_base``)."""
    previous = served if base is None else await _stored_set(zone_id, base)
    return PreparedStep(change_seq, served, {row for row in served if row[1] == "SOA"},
                        await slices.drive(encode_steps(served)), base,
                        previous - served, served - previous)


async def _stored_set(zone_id: str, blob: bytes) -> set[Row]:
    """The rows of a stored snapshot: remembered (``LAST_SETS``) when this process wrote that
    very blob, else decoded."""
    rows = LAST_SETS.get(zone_id, blob)
    return rows if rows is not None else await slices.drive(decode_steps(blob))


async def newest_snapshot(session: AsyncSession, zone_id: str) -> bytes | None:
    """The zone's newest snapshot as stored (the base of its next step), or None."""
    found = await execute(session, _LATEST, {"b_zone_id": zone_id})
    return found[0].snapshot if found else None


async def record_serial(session: AsyncSession, zone_id: str, old_serial: int, new_serial: int,
                        served: set[Row], prepared: PreparedStep | None = None) -> None:
    """Append the ``old_serial → new_serial`` step given the zone's served set (``history_row``).

    Without a snapshot at ``old_serial`` (a zone older than the history, or a serial that moved
    without a claim; a new zone has one from ``record_base``) the row is a base: it starts a new
    chain and IXFR from older serials falls back to AXFR. ``prepared``: made from ``served``
    (the caller checked that the zone is unchanged since); its difference is used when the
    newest snapshot is still the one it was made against.
    """
    found = await execute(session, _LATEST, {"b_zone_id": zone_id})
    latest = found[0] if found else None
    from_serial: int | None = None
    removed: set[Row] = set()
    added: set[Row] = set()
    if latest is not None and latest.serial == old_serial:
        if prepared is not None and latest.snapshot == prepared.base:
            removed, added = prepared.removed, prepared.added
        else:
            previous = await _stored_set(zone_id, latest.snapshot)
            removed, added = previous - served, served - previous
        from_serial = old_serial
    await _append(session, zone_id, new_serial, from_serial, removed, added, served,
                  after_snapshot=latest is not None,
                  snapshot=prepared.snapshot if prepared is not None else None)


async def record_patched_serial(session: AsyncSession, zone_id: str, old_serial: int,
                                new_serial: int,
                                changed: Callable[[], Awaitable[tuple[set[str], set[Row]]]]
                                ) -> bool:
    """``record_serial`` from the names changed alone, when this process holds the set it
    stored at ``old_serial`` (``LAST_SETS``); False, with nothing written, when it does not.

    ``changed()``: the folded owner names of the zone's records not ACTIVE (the claim's new SOA
    among them) and the served rows at those names now (``history_row``). Coherence is per
    folded owner name (``dnswire/coherence``), so the set at the new serial is the old one with
    those names' rows replaced: sound as long as every write that changes what a name serves
    leaves a record of that name not ACTIVE until its push is complete, or marks the zone
    ``whole_step`` (the caller does not come here then). A change then costs a read of its own
    names instead of the whole zone (bench/README.md, "the claim's step from the names
    changed")."""
    found = await execute(session, _LATEST, {"b_zone_id": zone_id})
    if not found or found[0].serial != old_serial:
        return False
    previous = LAST_SETS.get(zone_id, found[0].snapshot)
    if previous is None:
        return False
    keys, now_at = await changed()
    before_at = {row for row in previous if names.key(row[0]) in keys}
    await _append(session, zone_id, new_serial, old_serial, before_at - now_at,
                  now_at - before_at, (previous - before_at) | now_at, after_snapshot=True)
    return True


async def record_base(session: AsyncSession, zone_id: str, serial: int, served: set[Row], *,
                      after: int | None, snapshot: bytes | None = None) -> None:
    """Start the history at ``serial`` with the zone's served set (``history_row``).

    Called when a zone goes out without a new serial — its creation or import — and
    ``latest_serial`` is not already ``serial``, so that the first change after it is already a
    difference: a secondary that transferred the creation serial then gets that change by IXFR
    instead of the whole zone again. ``after``: ``latest_serial`` as read before (None: the
    zone has no history yet, as a new zone: nothing to clear or prune). ``snapshot``:
    ``served`` already encoded (``PreparedStep``)."""
    await _append(session, zone_id, serial, None, set(), set(), served,
                  after_snapshot=after is not None, snapshot=snapshot)


async def record_new_bases(session: AsyncSession, bases: list[tuple[str, int, set[Row]]]) -> None:
    """``record_base`` of zones that have no history yet (``after`` None), given as
    (zone id, serial, served set): their rows written by one ``executemany``, a round trip
    for them all on PostgreSQL (the claim of a burst of new zones, ``workqueue``)."""
    now = utcnow()
    written = []
    for zone_id, serial, served in bases:
        snapshot = await slices.drive(encode_steps(served))
        written.append((zone_id, served, snapshot, {
            "b_zone_id": zone_id, "b_serial": serial, "b_from": None, "b_removed": _text(set()),
            "b_added": _text(set()), "b_snapshot": snapshot, "b_now": now}))
    await execute_many(session, _APPEND, [params for *_, params in written])
    for zone_id, served, snapshot, _ in written:
        LAST_SETS.put(zone_id, snapshot, served)


async def _append(session: AsyncSession, zone_id: str, serial: int, from_serial: int | None,
                  removed: set[Row], added: set[Row], served: set[Row], *,
                  after_snapshot: bool, snapshot: bytes | None = None) -> None:
    """The new newest row, which alone keeps the snapshot; then the oldest beyond ``KEEP`` go.
    ``snapshot``: ``served`` already encoded (``PreparedStep``).
    ``after_snapshot``: an older row may still hold one (it is cleared first). Without one the
    zone has no rows at all (the newest row always keeps its snapshot, and ``forget`` removes
    them all), so there is nothing to prune either: a new zone's claim skips both statements."""
    if snapshot is None:
        snapshot = await slices.drive(encode_steps(served))
    params = {"b_zone_id": zone_id, "b_serial": serial, "b_from": from_serial,
              "b_removed": _text(removed), "b_added": _text(added),
              "b_snapshot": snapshot, "b_now": utcnow()}
    assert session.bind is not None
    # Kept before the commit: should it fail, the blob read back next time is another one.
    LAST_SETS.put(zone_id, snapshot, served)
    if after_snapshot and session.bind.dialect.name == "postgresql":
        await execute(session, _APPEND_AFTER, params)  # two round trips less per claim
        return
    if after_snapshot:
        await execute(session, _DROP_SNAPSHOT, {"b_zone_id": zone_id})
    # One row, but its snapshot is the whole zone: written on the loop's thread while small.
    await execute(session, _APPEND, params, BOUNDED if len(snapshot) <= SMALL_SNAPSHOT else {})
    if after_snapshot:
        await execute(session, _PRUNE, {"b_zone_id": zone_id})


def latest_serial(zone_id: ColumnElement[str]) -> ColumnElement[int | None]:
    """The serial of the zone's newest snapshot (the base of its next difference), or None: a
    column of the claim's read of the zone (a statement of its own before, on every claim of
    a new zone)."""
    zc = ZoneChange.__table__
    return (select(zc.c.serial).where(zc.c.zone_id == zone_id, zc.c.snapshot.is_not(None))
            .order_by(zc.c.id.desc()).limit(1).scalar_subquery().label("history_serial"))


_FORGET = delete(ZoneChange.__table__).where(ZoneChange.__table__.c.zone_id == bindparam("b_zone_id"))


async def forget(session: AsyncSession, zone_id: str) -> None:
    """A deleted zone needs no history."""
    LAST_SETS.drop(zone_id)
    await execute(session, _FORGET, {"b_zone_id": zone_id})


async def changes_since(db: Database, zone_id: str,
                        since_serial: int) -> list[ZoneDelta] | None:
    """The unbroken chain of steps from ``since_serial`` to the newest row, or None.

    Point reads (``Database.point_reads``): asked by every nameserver after every change, and
    at most ``KEEP`` rows each."""
    [steps] = await db.point_reads([(_STEPS, {"b_zone_id": zone_id})])
    start = next((i for i in range(len(steps) - 1, -1, -1)
                  if steps[i].from_serial == since_serial), None)
    if start is None:
        return None
    for before, after in zip(steps[start:], steps[start + 1:]):
        if after.from_serial != before.serial:
            return None
    [rows] = await db.point_reads(
        [(_STEPS_FROM, {"b_zone_id": zone_id, "b_first": steps[start].id})])
    return [_delta(int(f), int(s), r, a) for f, s, r, a in rows]
