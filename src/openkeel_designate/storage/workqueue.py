"""The zone rows as a durable work queue: claim with a lease, then complete or fail.

A claim is a conditional UPDATE (``lease`` free or expired), so two workers — in one process or
on many hosts — never push the same zone at once, and a worker that dies simply lets its lease
expire.  Claiming also coalesces every change pending on the zone into one new serial
(RFC 1982 monotonic: max(unix time, old + 1)), rewrites the SOA and stamps pending records and
change batches with that serial; completion only marks ACTIVE what that serial covered, and only
if no newer change arrived meanwhile (``change_seq``).  Each new serial is also appended to the
zone's IXFR history (``zonehistory``), in the same transaction, so mdns never serves a serial it
has no history for; a large zone's step is made just before that transaction and used only if
the zone did not change meanwhile (``zonehistory.PreparedStep``).  On SQLite the claim and
completion of new zones go ``ahead`` of the API's writes queued (``write_turn.LocalTurns``): a
burst of creates was otherwise ACTIVE only long after its last POST.  Those of changes queue
as any write: the wait lets the changes of concurrent clients to one zone gather into one serial
(going ahead halved the throughput of ten clients writing recordsets into ten zones: a push per
change instead of per few).  An ERROR, a lease handed back or renewed go ahead (rare and short).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Collection, Iterable, Sequence
import os
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (ColumnElement, Select, and_, bindparam, case, func, not_, or_, select,
                        update)
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate import gcpause, slices
from openkeel_designate.slices import Work
from openkeel_designate.domain import names
from openkeel_designate.domain.rrtypes.soa import soa_data
from openkeel_designate.domain.serial import next_serial
from openkeel_designate.storage import arrays
from openkeel_designate.storage import changes as change_store
from openkeel_designate.storage import dnssec as dnssec_store
from openkeel_designate.storage import rows
from openkeel_designate.storage import zonehistory
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.database import (BOUNDED, Database, among, bounded, execute,
                                                 execute_count)
from openkeel_designate.storage.models import (
    PoolNsRecord,
    Record,
    RecordSet,
    Timestamp,
    Zone,
    ZoneChange,
    utcnow,
)
from openkeel_designate.storage.zonesource import SERVED, served_query, served_records_steps


# A claim transaction stops taking zones after this long; the rest go into the next one, so
# the API's writes are not held off while a large batch is prepared.
CLAIM_SLICE_SECONDS = 0.05
# A change of at most this many records (a POST's, not an import's) has its records' stamp
# and completion vouched small (``database.bounded``: on SQLite no thread crossing).
SMALL_CHANGE = 100
# A zone of fewer records is read whole for its IXFR history by one statement of the driver's
# own (``database.execute``); a larger one through SQLAlchemy in partitions, between which the
# loop serves others. At 100 (``SMALL_CHANGE``, as before), a zone that sequential POSTs had
# grown past it went through SQLAlchemy at every claim: 2,000 POSTs by wrk into one zone on
# PostgreSQL cost 2.61 ms of the server's CPU each before, 2.36 after (bench/README.md,
# "fewer round trips per zone").
READ_AT_ONCE = 2_000
# A zone whose newest snapshot is at least this large (zlib'd JSON, ~7 bytes a record: some
# 5,000 records) has its next IXFR step made before the claim's write transaction
# (``zonehistory.PreparedStep``); a smaller one is read inside it, as that costs less than a
# second read of the zone.
PREPARE_BYTES = 32_768
# ... and so has a zone without a snapshot yet (an import's first claim starts its history) once
# it holds this many records.
PREPARE_RECORDS = 5_000


@dataclass(frozen=True)
class ClaimedZone:
    id: str
    name: str
    pool_id: str
    type: str
    action: str
    serial: int
    change_seq: int
    hard_delete: bool
    attempts: int
    transferred: bool = False  # SECONDARY: content already pulled from a master once
    pending_since: datetime | None = None  # first unserved write: propagation is timed from it
    taken_over: bool = False  # the lease was another worker's, expired (it died or stalled)
    signed: bool = False  # DNSSEC on: mdns transfers it signed (read with the claim)
    small: bool = False  # at most SMALL_CHANGE records not ACTIVE: their writes are ``bounded``


def _claimable(now):
    return and_(
        Zone.deleted == zone_store.LIVE,
        among(Zone.status, zone_store.UNSERVED),
        or_(Zone.lease_expires_at.is_(None), Zone.lease_expires_at < now),
        or_(Zone.next_attempt_at.is_(None), Zone.next_attempt_at <= now),
    )


def _prepare_head(candidate: Any) -> tuple[ColumnElement, ...]:
    """Of a claim's candidate (the columns of ``candidate``), what says whether its step is
    worth preparing (``_large``): the size of its newest snapshot and, without one, whether it
    has ``PREPARE_RECORDS`` records (the one at that place looked up, no further); and whether
    its claim may patch the step instead (``_patchable``: its ``SMALL_CHANGE``-th record not
    ACTIVE looked up, no further). Columns of the candidates' read: a read of its own per
    candidate was a round trip each on PostgreSQL."""
    zone_id = candidate.c.id
    zc, r = ZoneChange.__table__, Record.__table__
    size = (select(func.length(zc.c.snapshot))
            .where(zc.c.zone_id == zone_id, zc.c.snapshot.is_not(None))
            .order_by(zc.c.id.desc()).limit(1).scalar_subquery())
    last = (select(r.c.id).where(r.c.zone_id == zone_id).limit(1)
            .offset(bindparam("last_record")).scalar_subquery())  # PREPARE_RECORDS - 1
    # looked up only without a snapshot: the size says enough otherwise
    many = case((size.is_(None), case((last.is_not(None), 1), else_=0)), else_=0)
    big_change = (select(r.c.id).where(r.c.zone_id == zone_id,
                                       among(r.c.status, zone_store.UNSERVED))
                  .limit(1).offset(SMALL_CHANGE - 1).scalar_subquery())
    patchable = case((and_(candidate.c.type == "PRIMARY", candidate.c.whole_step.is_(False),
                           big_change.is_(None)), 1), else_=0)
    return size.label("size"), many.label("many"), patchable.label("patchable")


def _claim_statements():  # noqa: ANN202 - prebuilt statements
    """The reads of a claim, built once: per claim only the values change.

    Every push starts with them (one claim per pushed serial), and building them per call, the
    ORM loading of the 30-column zone and the unit of work of its two updates cost more CPU than
    the statements; the SQL and its effect are the same. The zone is read as a frozen copy
    (``rows.frozen``) and written with explicit UPDATEs.
    """
    z = Zone.__table__
    now = bindparam("now")
    candidates = select(z.c.id, z.c.lease_owner, z.c.action, z.c.change_seq, z.c.type,
                        z.c.whole_step, z.c.updated_at).where(_claimable(now))

    def with_heads(found: Select) -> Select:
        """The candidates found, each with what says whether its step is worth preparing
        (``_prepare_steps``), read for those found only, whatever the engine's plan."""
        c = found.order_by(z.c.updated_at).limit(bindparam("limit")).subquery()
        return select(c.c.id, c.c.lease_owner, c.c.action, c.c.change_seq,
                      *_prepare_head(c)).order_by(c.c.updated_at)
    idle = with_heads(candidates)
    # by dialect name: the zones this worker is pushing, one parameter (``arrays.member``)
    busy = {dialect: with_heads(candidates.where(not_(pushing)))
            for dialect, pushing in arrays.member(z.c.id, "busy").items()}
    # The zone read with more columns, each a statement of its own before:
    # * whether it is signed;
    # * whether the change is small: the records not yet ACTIVE, which both the claim's stamp
    #   and the completion touch at most (records of an earlier push that failed included),
    #   counted no further than that (an import's 100,000 records are not walked to say they
    #   are many), before the claim sets the SOA record PENDING: one more;
    # * whether a signing epoch is due and whether change batches wait for their serial, so
    #   that the claim runs those UPDATEs only when they change something;
    # * whether the zone is small: its records, counted no further than ``READ_AT_ONCE``
    #   (the IXFR history then reads it at once, ``_served_set``);
    # * the serial of the IXFR history's newest snapshot (a new zone's base is written once);
    # * what a new serial's SOA needs: the SOA recordset and its MNAME, the pool's first NS.
    return idle, busy, _read_zone(z.c.id == bindparam("b_zone_id"), bindparam("b_zone_id"))


def _read_zone(which: ColumnElement[bool], counted: ColumnElement[str]) -> Select:
    """The read of the zones ``which`` picks, for their claim; ``counted``: the zone whose
    records the two capped counts walk (a bound id, since MariaDB refuses a derived table
    correlated with the outer query; or the outer zone's id, on PostgreSQL, where many zones
    are read at once, ``_READ_ZONES``)."""
    z, rs, ns, r = Zone.__table__, RecordSet.__table__, PoolNsRecord.__table__, Record.__table__
    # ``correlate``: a derived table is not correlated by itself; without it, the outer
    # zone's id would read as a zones table of its own, and the counts be of every zone
    unserved = select(r.c.id).where(
        r.c.zone_id == counted, among(r.c.status, zone_store.UNSERVED)).limit(SMALL_CHANGE
                                                                               ).correlate(z)
    count_unserved = select(func.count()).select_from(unserved.subquery()).scalar_subquery()
    some = select(r.c.id).where(r.c.zone_id == counted).limit(READ_AT_ONCE).correlate(z)
    count_some = select(func.count()).select_from(some.subquery()).scalar_subquery()
    soa_set = select(rs.c.id).where(rs.c.zone_id == z.c.id, rs.c.type == "SOA")
    mname = select(ns.c.hostname).where(ns.c.pool_id == z.c.pool_id).order_by(
        ns.c.priority, ns.c.created_at).limit(1)
    return select(*rows.table_columns(Zone), dnssec_store.is_signed(z.c.id),
                  count_unserved.label("unserved"), dnssec_store.epoch_due(z.c.id),
                  change_store.unstamped(z.c.id), zonehistory.latest_serial(z.c.id),
                  soa_set.scalar_subquery().label("soa_set_id"),
                  mname.scalar_subquery().label("mname"),
                  count_some.label("records")).where(which)


_CANDIDATES, _CANDIDATES_NOT_BUSY, _READ_ZONE = _claim_statements()


def _prepare_statements():  # noqa: ANN202 - prebuilt statements
    """A zone's SOA as served, read again inside the claim when a step was prepared."""
    return SERVED.where(RecordSet.type == "SOA")


_SERVED_SOA = _prepare_statements()


def _changed_statement() -> Select:
    """Every record at the owner names of the zone's records not ACTIVE, in any case, as
    ``SERVED`` reads them plus each record's action: the names a patched IXFR step reads
    (``zonehistory.record_patched_serial``). A record being deleted is returned too (and left
    out of what is served), so that its name still counts as changed."""
    rs, r = RecordSet.__table__.alias("changed_rs"), Record.__table__.alias("changed_r")
    zone_id = bindparam("b_zone_id")
    changed = select(rs.c.name_key).join(r, r.c.recordset_id == rs.c.id).where(
        r.c.zone_id == zone_id, among(r.c.status, zone_store.UNSERVED))
    return (select(RecordSet.name, RecordSet.type, func.coalesce(RecordSet.ttl, Zone.ttl),
                   Record.data, Record.action)
            .join(Record, Record.recordset_id == RecordSet.id)
            .join(Zone, Zone.id == RecordSet.zone_id)
            .where(RecordSet.zone_id == zone_id, RecordSet.name_key.in_(changed)))


_SERVED_CHANGED = _changed_statement()


# A zone's columns once every nameserver serves its change (a completion).
_ACTIVE = dict(status="ACTIVE", action="NONE", lease_owner=None, lease_expires_at=None,
               attempts=0, next_attempt_at=None, error_reason=None, pending_since=None)


def _write_statements():  # noqa: ANN202 - prebuilt statements
    """The writes of a claim and of a completion, built once, executed as Core statements.

    Built per call through the ORM session, each cost about a millisecond of CPU in building
    the expression, its cache key and the ORM's evaluation of the WHERE clause against the
    session (which holds no zone here): over a dozen of them made a claim cost more CPU than
    the API request that caused it (bench/worker_inprocess.py). Same SQL, same effect.

    Each sets ``updated_at`` itself (``b_now``) rather than leave it to the column's
    ``onupdate``, which only SQLAlchemy's execution fills in: on PostgreSQL asyncpg runs them
    (``database.execute``)."""
    z, r = Zone.__table__, Record.__table__
    zone_id, now = bindparam("b_zone_id"), bindparam("b_now", type_=Timestamp)
    take = update(z).where(z.c.id == zone_id, _claimable(now)).values(
        lease_owner=bindparam("b_owner"), lease_expires_at=bindparam("b_expires"), updated_at=now)
    # A zone made pending by a path that did not say when (e.g. a refresh) is pending from now.
    pending_since = func.coalesce(z.c.pending_since, now)
    # The claim's IXFR step compares the whole zone when ``whole_step`` says so: cleared here.
    new_serial = update(z).where(z.c.id == zone_id).values(
        serial=bindparam("b_serial"), increment_serial=False, pending_since=pending_since,
        whole_step=False, updated_at=now)
    since_now = update(z).where(z.c.id == zone_id, z.c.pending_since.is_(None)).values(
        pending_since=now, updated_at=now)
    # The records changed since the last claim. A record without a serial is always PENDING or
    # ERROR (every write of a record resets both together): saying so lets the index on
    # (zone_id, status) find them instead of walking the zone's records.
    stamp_records = update(r).where(
        r.c.zone_id == zone_id, among(r.c.status, zone_store.UNSERVED), r.c.serial.is_(None)
    ).values(serial=bindparam("b_serial"), updated_at=now)
    served_records = update(r).where(
        r.c.zone_id == zone_id, among(r.c.status, zone_store.UNSERVED), r.c.serial.is_not(None),
        r.c.serial <= bindparam("b_serial")).values(status="ACTIVE", action="NONE", updated_at=now)
    zone_active = update(z).where(z.c.id == zone_id, z.c.change_seq == bindparam("b_seq")).values(
        **_ACTIVE, updated_at=now)
    # The SOA record follows the new serial (``_rewrite_soa``).
    rs, set_id = RecordSet.__table__, bindparam("b_set_id")
    soa_record = update(r).where(r.c.recordset_id == set_id).values(
        data=bindparam("b_data"), serial=None, status="PENDING", action="UPDATE", updated_at=now)
    soa_set_version = update(rs).where(rs.c.id == set_id).values(
        version=rs.c.version + 1, updated_at=now)
    release = update(z).where(z.c.id == zone_id, z.c.lease_owner == bindparam("b_owner")).values(
        lease_owner=None, lease_expires_at=None, updated_at=now)
    # All but the records' stamps touch one row by key (``bounded``: on SQLite, no thread
    # crossing); those two touch as many records as the change has, a whole import's maybe
    # (vouched per execution, ``ClaimedZone.small``).
    return (bounded(take), bounded(new_serial), bounded(since_now), stamp_records,
            served_records, bounded(zone_active), bounded(soa_record), bounded(soa_set_version),
            bounded(release))


(_TAKE, _NEW_SERIAL, _PENDING_SINCE_NOW, _STAMP_RECORDS, _SERVED_RECORDS, _ZONE_ACTIVE,
 _SOA_RECORD, _SOA_SET_VERSION, _RELEASE) = _write_statements()
# PostgreSQL: the new serial and the SOA following it (``_rewrite_soa``) as one statement, the
# SOA's two writes as CTEs (two round trips less per claim of a change).
_NEW_SERIAL_AND_SOA = _NEW_SERIAL.add_cte(_SOA_RECORD.cte("soa_record")).add_cte(
    _SOA_SET_VERSION.cte("soa_set"))


def _together_statements():  # noqa: ANN202 - prebuilt statements
    """``_TAKE`` and ``_READ_ZONE`` of many zones (PostgreSQL: ids as one array), and their
    leases handed back (``_claim_together``)."""
    z = Zone.__table__
    ids = arrays.any_of(z.c.id, "b_zone_ids")
    now = bindparam("b_now", type_=Timestamp)
    take_all = update(z).where(ids, _claimable(now)).values(
        lease_owner=bindparam("b_owner"), lease_expires_at=bindparam("b_expires"),
        updated_at=now).returning(z.c.id)
    release_all = update(z).where(ids, z.c.lease_owner == bindparam("b_owner")).values(
        lease_owner=None, lease_expires_at=None, updated_at=now)
    # ``SERVED`` of many zones, each row with its zone last
    served_of_zones = served_query(arrays.any_of(RecordSet.zone_id, "b_zone_ids")).add_columns(
        RecordSet.zone_id)
    # ``_STAMP_RECORDS`` of many zones, each with its serial
    r = Record.__table__
    stamped = arrays.unnested("stamped", {"zone_id": z.c.id.type, "serial": r.c.serial.type})
    stamp_all = update(r).where(
        r.c.zone_id == stamped.c.zone_id, among(r.c.status, zone_store.UNSERVED),
        r.c.serial.is_(None)).values(serial=stamped.c.serial, updated_at=now)
    return take_all, _read_zone(ids, z.c.id), release_all, served_of_zones, stamp_all


_TAKE_ALL, _READ_ZONES, _RELEASE_ALL, _SERVED_OF_ZONES, _STAMP_ALL = _together_statements()


def _complete_all():  # noqa: ANN202 - a prebuilt statement
    """``_SERVED_RECORDS`` and ``_ZONE_ACTIVE`` of many pushes in one PostgreSQL statement:
    the pushes as arrays (zone, served serial, change counter; ``arrays.unnested``); the
    records' update a data-modifying CTE; the zones made ACTIVE returned."""
    z, r = Zone.__table__, Record.__table__
    now = bindparam("b_now", type_=Timestamp)
    pushed = arrays.unnested("pushed", {"zone_id": z.c.id.type, "serial": r.c.serial.type,
                                        "seq": z.c.change_seq.type})
    served = update(r).where(
        r.c.zone_id == pushed.c.zone_id, among(r.c.status, zone_store.UNSERVED),
        r.c.serial.is_not(None), r.c.serial <= pushed.c.serial,
    ).values(status="ACTIVE", action="NONE", updated_at=now).cte("served")
    return update(z).where(z.c.id == pushed.c.zone_id, z.c.change_seq == pushed.c.seq).values(
        **_ACTIVE, updated_at=now).returning(z.c.id).add_cte(served)


_COMPLETE_ALL = _complete_all()


async def claim(db: Database, owner: str, lease_seconds: int, limit: int,
                busy: Collection[str] = ()) -> list[ClaimedZone]:
    """Up to ``limit`` zones now owned by ``owner``, each prepared with its new serial.

    ``busy``: zones the caller is still pushing. Their lease may have run out (a loop starved
    of CPU renews late) but they are not claimable by the same worker: a second push of one
    zone beside the first would race it. Another worker may still take such a zone over.

    New zones are claimed many to a transaction (``_claim_slice``): one write turn per zone
    made a burst of creates wait behind the API's writes once per zone. On SQLite every zone
    is; on PostgreSQL and MariaDB a zone with changes has a transaction of its own."""
    params: dict = {"now": utcnow(), "limit": limit, "last_record": PREPARE_RECORDS - 1}
    query = _CANDIDATES
    if busy:
        query = _CANDIDATES_NOT_BUSY[db.backend]
        params["busy"] = arrays.listed(db.backend, sorted(busy))
    # A point read (``Database.point_reads``): on SQLite no thread hop; the UPDATE of each
    # claim checks again that the zone is still claimable.
    [found] = await db.point_reads([(query, params)])
    candidates = [(row.id, row.lease_owner, row.action) for row in found]
    prepared = await _prepare_steps(db, [row for row in found if row.action != "DELETE"])
    claimed: list[ClaimedZone] = []
    while candidates:
        used, taken = await db.transaction(
            lambda s, c=candidates: _claim_slice(s, c, owner, lease_seconds, prepared),
            ahead=all(action == "CREATE" for _, _, action in candidates), plain=True)
        claimed += taken
        candidates = candidates[used:]
    return claimed


async def _prepare_steps(db: Database, heads: list[Any]) -> dict[str, zonehistory.PreparedStep]:
    """The next IXFR step of each large zone among the candidates read (``heads``: rows of
    ``_CANDIDATES``), made outside any write transaction (``zonehistory.PreparedStep`` says why
    and when the claim may use it)."""
    prepared = {}
    for head in heads:
        if not _large(head.size, bool(head.many)):
            continue
        if head.patchable and zonehistory.LAST_SETS.holds(head.id):
            continue  # its claim will likely patch the step: read nothing whole here
            # (should it not, it reads the zone inside, as after a write that came between)
        # change_seq was read first: a write after it shows as a newer one inside the claim.
        async with db.read() as session:
            base = await zonehistory.newest_snapshot(session, head.id)
            with gcpause.paused():  # the zone is read whole, as in ``_record_history``
                served = await _served_set(session, head.id)
                prepared[head.id] = await zonehistory.prepare_step(
                    head.id, head.change_seq, served, base)
    return prepared


def _large(snapshot_size: int | None, many_records: bool) -> bool:
    if snapshot_size is None:
        return many_records
    return snapshot_size >= PREPARE_BYTES


async def _claim_slice(session: AsyncSession, candidates: list[tuple[str, str | None, str]],
                       owner: str, lease_seconds: int,
                       prepared: dict[str, zonehistory.PreparedStep]
                       ) -> tuple[int, list[ClaimedZone]]:
    """Claim candidates in order until ``CLAIM_SLICE_SECONDS`` pass; how many were tried, and
    what was taken. The bound keeps the write turn short when the zones are large (a claim
    reads a changed zone whole for its IXFR history).

    On a database that locks rows (PostgreSQL, MariaDB), a zone with changes is claimed in a
    transaction of its own. Its claim holds the zone's row until it commits, and the tenant's
    next write into the zone waits for that. With ten clients each writing its own zone, one
    transaction for all ten held every zone for the whole claim: 220 of about 1,650 POSTs
    waited 22.9 ms on average (bench/README.md, "Issue 13, session of 2026-12-07 (20:05-)").
    New zones are still claimed together (a burst of creates; a write into a new zone makes it
    a zone with changes). On SQLite, one writer at a time, every write waits for the claim's
    transaction whatever it holds, so fewer transactions are better."""
    started, tried = time.monotonic(), 0
    taken = []
    assert session.bind is not None
    dialect = session.bind.dialect.name
    if dialect == "postgresql":
        together = list(itertools.takewhile(
            lambda c: c[0] not in prepared and c[2] == "CREATE", candidates))
        if len(together) > 1:
            tried, taken = await _claim_together(session, together, owner, lease_seconds,
                                                 started)
            if tried < len(together) or time.monotonic() - started > CLAIM_SLICE_SECONDS:
                return tried, taken
    for tried, (zone_id, previous_owner, action) in enumerate(candidates[tried:], tried + 1):
        result = await _claim_one(session, zone_id, owner, lease_seconds, prepared.get(zone_id))
        if result is not None:
            taken.append(_taken_from(result, previous_owner, owner))
        if time.monotonic() - started > CLAIM_SLICE_SECONDS:
            break
        if dialect != "sqlite" and action != "CREATE":
            break  # the next zone in a transaction of its own (the docstring says why)
    return tried, taken


def _taken_from(claimed: ClaimedZone, previous_owner: str | None, owner: str) -> ClaimedZone:
    return dataclasses.replace(
        claimed, taken_over=previous_owner is not None and previous_owner != owner)


async def _claim_together(session: AsyncSession, candidates: list[tuple[str, str | None, str]],
                          owner: str, lease_seconds: int, started: float
                          ) -> tuple[int, list[ClaimedZone]]:
    """``_claim_one`` of candidates without a prepared step, their leases taken by one
    statement and the zones read by one (PostgreSQL): two round trips per claim instead of
    two per zone, which in a burst of creates each waited for the loop behind the API's
    requests (a claim of 16 zones took up to 0.3 s; bench/README.md, "fewer round trips per
    zone"). Prepared in order until ``CLAIM_SLICE_SECONDS`` pass, as one by one; the zones
    taken but not prepared by then are handed back in the same transaction. Returns how
    many candidates were tried, and what was taken."""
    now = utcnow()
    found = await execute(session, _TAKE_ALL, {
        "b_zone_ids": [zone_id for zone_id, _, _ in candidates], "b_now": now, "b_owner": owner,
        "b_expires": now + timedelta(seconds=lease_seconds)})
    reads = {}
    if found:
        reads = {read.id: read for read in await execute(
            session, _READ_ZONES, {"b_zone_ids": [row.id for row in found]})}
    fresh = [read for read in reads.values() if _starts_history(read)]
    ready = {}
    if len(fresh) > 1:
        ready = {claimed.id: claimed for claimed in await _prepare_new(session, fresh, now)}
    taken, tried = [], 0
    for tried, (zone_id, previous_owner, _action) in enumerate(candidates, 1):
        claimed, read = ready.pop(zone_id, None), reads.pop(zone_id, None)
        if claimed is None and read is not None:
            claimed = await _prepare_claimed(session, read, now)
        if claimed is not None:
            taken.append(_taken_from(claimed, previous_owner, owner))
        if time.monotonic() - started > CLAIM_SLICE_SECONDS:
            break
    # Prepared already, they are kept (a later slice finds them leased and passes them by).
    previous = {zone_id: previous_owner for zone_id, previous_owner, _ in candidates}
    taken += [_taken_from(claimed, previous[zone_id], owner) for zone_id, claimed in ready.items()]
    unprepared = [zone_id for zone_id in reads if zone_id not in ready]
    if unprepared:
        await execute(session, _RELEASE_ALL, {"b_zone_ids": unprepared, "b_owner": owner,
                                              "b_now": now})
    return tried, taken


def _starts_history(read: Any) -> bool:
    """Whether the claim of this zone (a row of ``_READ_ZONES``) does no more than start its
    IXFR history at its serial and stamp its records: a new small zone in a burst of
    creates, which ``_prepare_new`` prepares with the others."""
    return (read.action == "CREATE" and read.type == "PRIMARY" and not read.increment_serial
            and read.pending_since is not None and read.history_serial is None
            and read.records < SMALL_CHANGE and not read.unstamped)


async def _prepare_new(session: AsyncSession, reads: list[Any], now: datetime
                       ) -> list[ClaimedZone]:
    """``_prepare_claimed`` of new small zones (``_starts_history``) by three statements for
    them all: their served records read, their histories started (``zonehistory.
    record_new_bases``), their records stamped; in a burst of creates these were three
    round trips per zone, each waiting its turn on a loop busy with the API's requests."""
    zones = [rows.frozen(Zone, read) for read in reads]
    ids = [zone.id for zone in zones]
    by_zone: dict[str, list] = {zone_id: [] for zone_id in ids}
    for row in await execute(session, _SERVED_OF_ZONES, {"b_zone_ids": ids}):
        by_zone[row.zone_id].append(row[:-1])
    await zonehistory.record_new_bases(session, [
        (zone.id, zone.serial, await slices.drive(_served_set_steps([by_zone[zone.id]], zone.id)))
        for zone in zones])
    await execute(session, _STAMP_ALL, {"b_zone_id": ids, "b_serial": [z.serial for z in zones],
                                        "b_now": now})
    return [_claimed(zone, read) for zone, read in zip(zones, reads)]


async def _claim_one(session: AsyncSession, zone_id: str, owner: str, lease_seconds: int,
                     prepared: zonehistory.PreparedStep | None = None) -> ClaimedZone | None:
    now = utcnow()
    taken = await execute_count(session, _TAKE, {
        "b_zone_id": zone_id, "b_now": now, "b_owner": owner,
        "b_expires": now + timedelta(seconds=lease_seconds)})
    if taken != 1:
        return None
    [read] = await execute(session, _READ_ZONE, {"b_zone_id": zone_id})
    return await _prepare_claimed(session, read, now, prepared)


async def _prepare_claimed(session: AsyncSession, read: Any, now: datetime,
                           prepared: zonehistory.PreparedStep | None = None) -> ClaimedZone:
    """What a claim does to a zone whose lease it took (``read``: the zone as ``_READ_ZONE``
    reads it): its new serial and SOA, its IXFR history, its records stamped."""
    zone = rows.frozen(Zone, read)
    zone_id = zone.id
    # the SOA record the claim makes PENDING is the one more than those counted
    small = read.unserved < SMALL_CHANGE
    small_zone = read.records < READ_AT_ONCE
    pending_since = zone.pending_since or now
    if zone.increment_serial and zone.action != "DELETE":
        old_serial = zone.serial
        zone = dataclasses.replace(zone, serial=next_serial(zone.serial, int(time.time())),
                                   increment_serial=False, pending_since=pending_since)
        await _new_serial(session, zone, read.soa_set_id, read.mname, now)
        await _record_history(session, zone.id, old_serial, zone.serial,
                              _unchanged(prepared, zone.change_seq), small_zone=small_zone,
                              patched=_patchable(read))
        if read.epoch_due:
            await dnssec_store.advance_epoch(session, zone.id, zone.serial, int(time.time()))
    else:
        if zone.pending_since is None:
            zone = dataclasses.replace(zone, pending_since=pending_since)
            await execute(session, _PENDING_SINCE_NOW, {"b_zone_id": zone_id, "b_now": now})
        if zone.action == "DELETE":
            await zonehistory.forget(session, zone.id)
        elif zone.type == "PRIMARY":  # created or imported: the history starts at this serial
            await _record_base(session, zone.id, zone.serial, read.history_serial,
                               _unchanged(prepared, zone.change_seq), small_zone=small_zone)
    await execute(session, _STAMP_RECORDS, {"b_zone_id": zone.id, "b_serial": zone.serial,
                                            "b_now": now}, BOUNDED if small else {})
    if read.unstamped:
        await change_store.stamp_serial(session, zone.id, zone.serial)
    return _claimed(zone, read)


def _claimed(zone: Any, read: Any) -> ClaimedZone:
    """The claim of ``zone`` (its frozen copy as the claim left it) as the worker pushes it;
    ``read``: the zone as the claim read it (``_READ_ZONE``)."""
    return ClaimedZone(zone.id, zone.name, zone.pool_id, zone.type, zone.action, zone.serial,
                       zone.change_seq, zone.hard_delete, zone.attempts,
                       zone.transferred_at is not None, zone.pending_since,
                       signed=bool(read.signed), small=read.unserved < SMALL_CHANGE)


def _unchanged(prepared: zonehistory.PreparedStep | None,
               change_seq: int) -> zonehistory.PreparedStep | None:
    """``prepared`` if the zone was not written since (else it is read again in the claim)."""
    return prepared if prepared is not None and prepared.change_seq == change_seq else None


def _patchable(read: Any) -> bool:
    """Whether the claim of this zone (a row of ``_READ_ZONE``) may make its IXFR step from the
    names changed alone (``zonehistory.record_patched_serial``): a primary zone, a small change,
    and no write since the last step that the records not ACTIVE do not show (``whole_step``)."""
    return read.type == "PRIMARY" and read.unserved < SMALL_CHANGE and not read.whole_step


async def _record_history(session: AsyncSession, zone_id: str, old_serial: int,
                          new_serial: int, prepared: zonehistory.PreparedStep | None = None, *,
                          small_zone: bool = False, patched: bool = False) -> None:
    """The IXFR step of a new serial. ``patched``: from the names changed alone
    (``_patchable``), if this process holds the set of the last step. Else the zone is read
    whole, so the collector is paused (``gcpause``): otherwise the rows alive across the slices
    set off a full collection. ``prepared``: made before this transaction from the zone at its
    current ``change_seq``; it stands only if the SOA this claim rewrote is, serial aside,
    still the one it read (the pool's first NS, the SOA's MNAME, may have changed without a
    zone write). ``small_zone`` as for ``_served_set``."""
    prepared = await _same_soa(session, zone_id, prepared)
    if prepared is None and patched and await zonehistory.record_patched_serial(
            session, zone_id, old_serial, new_serial, lambda: _changed_names(session, zone_id)):
        return
    with gcpause.paused():
        served = prepared.served if prepared is not None else await _served_set(
            session, zone_id, small_zone)
        await zonehistory.record_serial(session, zone_id, old_serial, new_serial, served,
                                        prepared)


async def _same_soa(session: AsyncSession, zone_id: str,
                    prepared: zonehistory.PreparedStep | None
                    ) -> zonehistory.PreparedStep | None:
    """``prepared`` if the zone's SOA as served now is, serial aside, the one it read."""
    if prepared is None or await _served_soa(session, zone_id) != prepared.soa:
        return None
    return prepared


async def _served_soa(session: AsyncSession, zone_id: str) -> set[zonehistory.Row]:
    """The zone's SOA as ``_served_set`` has it."""
    found = await execute(session, _SERVED_SOA, {"b_zone_id": zone_id})
    return slices.run(_served_set_steps([found], zone_id))


async def _record_base(session: AsyncSession, zone_id: str, serial: int, latest: int | None,
                       prepared: zonehistory.PreparedStep | None = None, *,
                       small_zone: bool = False) -> None:
    """The history's start at ``serial``; ``latest``: the serial of the zone's newest snapshot
    as the claim read it; ``prepared`` as for ``_record_history`` (only its served set and
    encoding count here); ``small_zone`` as for ``_served_set``."""
    if latest == serial:
        return  # a retry: the history already starts here (one indexed read, no zone read)
    with gcpause.paused():  # as in ``_record_history``: the zone is read whole
        prepared = await _same_soa(session, zone_id, prepared)
        if prepared is None:
            await zonehistory.record_base(session, zone_id, serial,
                                          await _served_set(session, zone_id, small_zone),
                                          after=latest)
        else:
            await zonehistory.record_base(session, zone_id, serial, prepared.served,
                                          after=latest, snapshot=prepared.snapshot)


async def _changed_names(session: AsyncSession,
                         zone_id: str) -> tuple[set[str], set[zonehistory.Row]]:
    """The folded owner names of the zone's records not ACTIVE, and what is served at them
    now, as ``_served_set`` has it (coherence is per folded name: the rows of these names are
    all it needs). A small change's names: read at once, on SQLite on the loop's thread."""
    found = await execute(session, _SERVED_CHANGED, {"b_zone_id": zone_id}, BOUNDED)
    keys = {names.key(row.name) for row in found}
    served = [row[:4] for row in found if row.action != "DELETE"]
    return keys, slices.run(_served_set_steps([served], zone_id))


async def _served_set(session: AsyncSession, zone_id: str,
                      small_zone: bool = False) -> set[zonehistory.Row]:
    """What mdns serves of the zone now, the SOA without its serial: the content the history
    compares (a step that changes the SOA's email or TTL then says so).

    ``small_zone``: the zone has fewer than ``READ_AT_ONCE`` records, read at once (on
    PostgreSQL by asyncpg itself, ``database.execute``); else in partitions, between which the
    loop serves others (a zone of 100,000 records)."""
    if small_zone:
        parts: Iterable = [await execute(session, SERVED, {"b_zone_id": zone_id})]
    else:
        # Core, not the ORM's execution: the same rows without its per-row loading.
        result = await (await session.connection()).execute(SERVED, {"b_zone_id": zone_id})
        parts = result.partitions(zonehistory.STEP)
    return await slices.drive(_served_set_steps(parts, zone_id))


def _served_set_steps(parts: Iterable, zone_id: str) -> Work[set[zonehistory.Row]]:
    """In ``slices``: the whole zone goes through here on every claim of it, beside every
    other tenant's requests on the same loop."""
    served = yield from served_records_steps(parts, zone_id)
    rows: set[zonehistory.Row] = set()
    for start in range(0, len(served), zonehistory.STEP):
        rows.update(zonehistory.history_row(r.name, r.type, r.ttl, r.data)
                    for r in served[start:start + zonehistory.STEP])
        yield
    return rows


async def _new_serial(session: AsyncSession, zone,  # noqa: ANN001 - a frozen zone
                      soa_set_id: str | None, mname: str | None, now: datetime) -> None:
    """The zone's new serial (``zone.serial``) stored, and the SOA record following it and the
    zone's email (``_rewrite_soa``; never re-flags the zone): one statement on PostgreSQL."""
    params = {"b_zone_id": zone.id, "b_serial": zone.serial, "b_now": now}
    assert session.bind is not None
    if soa_set_id is None or mname is None or session.bind.dialect.name != "postgresql":
        await execute(session, _NEW_SERIAL, params)
        await _rewrite_soa(session, zone, soa_set_id, mname, now)
        return
    await execute(session, _NEW_SERIAL_AND_SOA, {
        **params, "b_set_id": soa_set_id, "b_data": soa_data(zone, mname)})


async def _rewrite_soa(session: AsyncSession, zone,  # noqa: ANN001 - a frozen zone
                       soa_set_id: str | None, mname: str | None, now: datetime) -> None:
    """The SOA record follows the zone's serial and email (never re-flags the zone).
    ``soa_set_id`` and ``mname``: as the claim's read of the zone found them."""
    if soa_set_id is None or mname is None:
        return
    await execute(session, _SOA_RECORD, {"b_set_id": soa_set_id, "b_data": soa_data(zone, mname),
                                         "b_now": now})
    await execute(session, _SOA_SET_VERSION, {"b_set_id": soa_set_id, "b_now": now})


async def complete(db: Database, claimed: ClaimedZone, owner: str, served_serial: int) -> bool:
    """Every nameserver serves ``served_serial``: mark what it covers ACTIVE (or the zone gone).

    Returns False when a newer change arrived meanwhile (the zone stays PENDING and is claimed
    again at once).
    """
    return (await complete_many(db, [(claimed, served_serial)], owner))[0]


async def complete_many(db: Database, served: Sequence[tuple[ClaimedZone, int]],
                        owner: str) -> list[bool]:
    """``complete`` for many pushes at once (the worker's ends of a burst).

    On PostgreSQL the pushes of changes (not deletes) are completed by one statement that is
    its own transaction (``_COMPLETE_ALL``, ``Database.write_alone``): no BEGIN and COMMIT
    round trips at the end of every push. What it leaves (a zone written again meanwhile,
    handed back; a delete) goes in one transaction after it: its lease held a moment longer
    changes nothing. Elsewhere, and for a zone twice in one batch (not the worker's way: it
    never pushes a zone twice at once), every push in one transaction, one by one."""
    ahead = all(c.action == "CREATE" for c, _ in served)
    changed = [(claimed, serial) for claimed, serial in served if claimed.action != "DELETE"]
    if not db.writes_alone or len({claimed.id for claimed, _ in changed}) < len(changed):
        async def each(session: AsyncSession) -> list[bool]:
            return [await _complete_one(session, claimed, owner, serial)
                    for claimed, serial in served]
        return await db.transaction(each, ahead=ahead, plain=True)
    active = await _complete_together(db, changed) if changed else set()
    left = [(claimed, serial) for claimed, serial in served
            if claimed.action == "DELETE" or claimed.id not in active]

    async def rest(session: AsyncSession) -> dict[str, bool]:
        done = {}
        for claimed, serial in left:
            if claimed.action == "DELETE":
                done[claimed.id] = await _complete_one(session, claimed, owner, serial)
            else:
                done[claimed.id] = False
                await _release(session, claimed.id, owner)
        return done

    finished = await db.transaction(rest, ahead=ahead, plain=True) if left else {}
    return [finished.get(claimed.id, claimed.id in active) for claimed, _ in served]


async def _complete_together(db: Database, changed: Sequence[tuple[ClaimedZone, int]]
                             ) -> set[str]:
    """``_complete_one`` of pushes of changes, distinct zones, in one statement
    (``_COMPLETE_ALL``, ``Database.write_one``): the ids of the zones it made ACTIVE. Two
    round trips to PostgreSQL less per zone in a burst, and alone, two less per batch."""
    found = await db.write_one(_COMPLETE_ALL, {
        "b_zone_id": [claimed.id for claimed, _ in changed],
        "b_serial": [serial for _, serial in changed],
        "b_seq": [claimed.change_seq for claimed, _ in changed], "b_now": utcnow()})
    return {row[0] for row in found}


async def _complete_one(session: AsyncSession, claimed: ClaimedZone, owner: str,
                        served_serial: int) -> bool:
    if claimed.action == "DELETE":
        done = await zone_store.mark_deleted(session, claimed.id, claimed.change_seq)
    else:
        now = utcnow()
        await execute(session, _SERVED_RECORDS, {"b_zone_id": claimed.id,
                                                 "b_serial": served_serial, "b_now": now},
                      BOUNDED if claimed.small else {})
        done = await execute_count(session, _ZONE_ACTIVE, {
            "b_zone_id": claimed.id, "b_seq": claimed.change_seq, "b_now": now}) == 1
    if not done:
        await _release(session, claimed.id, owner)
    return done


async def fail(db: Database, claimed: ClaimedZone, owner: str, reason: str,
               retry_in: float) -> bool:
    """The push did not reach enough nameservers: ERROR with the reason, retried later.

    Returns False when a newer change arrived meanwhile (the zone stays PENDING).
    """
    async def work(session: AsyncSession) -> bool:
        now = utcnow()
        result = await session.execute(update(Zone).where(
            Zone.id == claimed.id, Zone.change_seq == claimed.change_seq,
        ).values(status="ERROR", error_reason=reason[:2000], attempts=Zone.attempts + 1,
                 next_attempt_at=now + timedelta(seconds=retry_in), lease_owner=None,
                 lease_expires_at=None))
        if result.rowcount == 1 and claimed.action != "DELETE":
            await session.execute(update(Record).where(
                Record.zone_id == claimed.id, Record.status == "PENDING",
                Record.serial <= claimed.serial).values(status="ERROR"))
        if result.rowcount != 1:
            await _release(session, claimed.id, owner)
        return result.rowcount == 1

    return await db.transaction(work, ahead=True)


async def superseded(db: Database, claimed: ClaimedZone) -> bool:
    """Whether a newer change (or a delete) arrived since the claim, or the zone is gone."""
    async with db.read() as session:
        seq = (await session.execute(select(Zone.change_seq).where(
            Zone.id == claimed.id, Zone.deleted == zone_store.LIVE))).scalar_one_or_none()
    return seq != claimed.change_seq


async def release(db: Database, claimed: ClaimedZone, owner: str) -> None:
    """Hand the zone back at once so the newer change is claimed without waiting."""
    await db.transaction(lambda session: _release(session, claimed.id, owner), ahead=True)


async def renew(db: Database, claimed: ClaimedZone, owner: str, lease_seconds: int) -> None:
    async def work(session: AsyncSession) -> None:
        await session.execute(update(Zone).where(
            Zone.id == claimed.id, Zone.lease_owner == owner).values(
            lease_expires_at=utcnow() + timedelta(seconds=lease_seconds)))

    await db.transaction(work, ahead=True)


async def release_all(db: Database, owner: str) -> None:
    """Graceful shutdown: hand every held zone back at once."""
    async def work(session: AsyncSession) -> None:
        await session.execute(update(Zone).where(Zone.lease_owner == owner).values(
            lease_owner=None, lease_expires_at=None))

    await db.transaction(work)


async def release_dead_local(db: Database, hostname: str) -> int:
    """Leases held by processes of this host that no longer exist are freed at once.

    Owners are ``host:pid:nonce``; after a crash and restart on the same host there is no need
    to wait for the dead process's leases to expire.
    """
    prefix = f"{hostname}:"

    async def work(session: AsyncSession) -> int:
        owners = (await session.execute(select(Zone.lease_owner).where(
            Zone.lease_owner.like(prefix + "%")).distinct())).scalars().all()
        dead = [o for o in owners if not _pid_alive(o[len(prefix):].split(":")[0])]
        if not dead:
            return 0
        result = await session.execute(update(Zone).where(Zone.lease_owner.in_(dead)).values(
            lease_owner=None, lease_expires_at=None))
        return result.rowcount

    return await db.transaction(work)


def _pid_alive(pid_text: str) -> bool:
    try:
        os.kill(int(pid_text), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


async def _release(session: AsyncSession, zone_id: str, owner: str) -> None:
    await execute(session, _RELEASE, {"b_zone_id": zone_id, "b_owner": owner, "b_now": utcnow()})
