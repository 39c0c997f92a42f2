"""The worker: claim pending zones, push them to every target, confirm every nameserver serves
the new serial, then report ACTIVE (or ERROR with the reason, retried with back-off).

Where Designate sleeps 5 s before its first SOA poll and polls every 15 s, this worker NOTIFYs
at once and polls with a short, growing back-off (2 ms doubling up to 0.1 s), re-sending the
NOTIFY now and then in case a UDP packet was lost.  The first poll waits for most of the time
the pool's nameservers took for the last pushes (``first_wait``): a nameserver that takes 15 ms
to transfer a change was polled at 0, 2, 6, 14 and 30 ms, four polls wasted and the change
confirmed 15 ms after it was served; now at about 10, 12 and 16 ms.  A wake-up from central
makes it start within a millisecond; a periodic sweep makes that hint unnecessary for
correctness.

Signed zones get a longer window, but only from nameservers that keep answering
(``[dnssec] confirm_timeout``, see ``_limit``).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
import os
import socket
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from oslo_config import cfg

from openkeel_designate.backends import backend_for, builtin, needs_signing
from openkeel_designate.backends.base import (
    BackendError,
    PermanentBackendError,
    Target,
    ZoneRef,
)
from openkeel_designate.central.notifications import Notifier
from openkeel_designate.central.zones import announce_status
from openkeel_designate.dnswire.client import SoaStatus, query_soa, send_notify
from openkeel_designate.domain import errors
from openkeel_designate.domain.serial import serial_ge
from openkeel_designate.storage import catalogzones
from openkeel_designate.storage import pools as pool_store
from openkeel_designate.storage import wakeup, workqueue
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.workqueue import ClaimedZone
from openkeel_designate.worker import observations
from openkeel_designate.worker import secondary
from openkeel_designate.worker.batches import Batcher

LOG = logging.getLogger(__name__)
SWEEP_SECONDS = 0.5
FIRST_POLL_DELAY = 0.002
MAX_POLL_DELAY = 0.1
RENOTIFY_SECONDS = 1.0
# At most ``STREAM_CLAIMS`` claims that take zones in any ``COALESCE_SECONDS`` while a push is
# in flight, so that a stream of commits is claimed together (one sweep, serial, push and
# transfer per zone per window) instead of one per commit: a push (worker, mdns IXFR, the
# built-in nameserver's update) costs more CPU than the API request that caused it, and on a
# small host it competes with the API.
# Changes that come one at a time are claimed at once; the last change of a stream waits at
# most ``COALESCE_SECONDS`` (bench/README.md, "Recordset writes under a stream"). With one
# claim per window, a tenant's next change made soon after the last went ACTIVE waited for the
# rest of the window: zone POST -> ACTIVE p50 85 ms instead of 46 ms (40 samples each), hence
# the second claim.  It is kept for that tenant only: a window holds after one claim when the
# claims took ``STREAM_ZONES`` zones or more (ten clients each writing its own zone), or when
# a push of the window found a newer change of its zone at its end (a stream into one zone:
# that tenant did not wait for ACTIVE). Either way a second claim pushed the same zones twice
# for the same changes (bench/README.md, "Issue 13, session of 2026-12-04 night"). A wake-up
# that finds every push ended is that tenant's too, however many claims the window saw
# (bench/README.md, "A wake-up with no push in flight is claimed at once").
COALESCE_SECONDS = 0.1
STREAM_CLAIMS = 2
STREAM_ZONES = 4
# When the claims of the last ``BUSY_COALESCE_SECONDS`` took ``STREAM_ZONES`` or more zones with
# changes (several tenants writing at once), the window is that long instead: each of those
# pushes costs more CPU than the few changes it carries, and pushing each zone five times a
# second instead of ten left the API more of the process. Ten clients writing ten zones went
# from 268-275 to 354-357 POSTs per s on SQLite, each change ACTIVE up to 0.1 s later
# (bench/README.md, "A longer claim window when many zones change"). New zones never take the
# long window: a burst of creates was no sooner ACTIVE with it.
BUSY_COALESCE_SECONDS = 0.2
# When the claims of the last ``BUSY_COALESCE_SECONDS`` took no zone with changes (a burst of
# zone creates or deletes), the window is this short: each new zone is pushed once whatever
# the window, so waiting gathers nothing for it and only held the last zones of a burst back.
# 100 zone creates by 10 clients (two API processes) were all ACTIVE 0.23-0.33 s after the
# last POST instead of 0.34-0.54 s on SQLite, and 1,000 by 20 after 7.4-7.9 s instead of
# 8.9-9.0 s on PostgreSQL (bench/README.md, "A shorter claim window while only new zones are
# claimed").
NEW_ZONES_COALESCE_SECONDS = 0.05
MAX_RETRY_SECONDS = 60.0
# The first SOA poll of a push waits ``FIRST_WAIT_SHARE`` of the median time the last
# ``RECENT_PUSHES`` pushes of the same pool and action took to be confirmed, at most
# ``MAX_FIRST_WAIT``. The median, not a mean: on a loaded host most pushes are served in 10-20 ms
# and a few in 100 ms, and a mean pulled up by those made most first polls late.
FIRST_WAIT_SHARE = 0.7
RECENT_PUSHES = 9
MAX_FIRST_WAIT = 0.05


def confirmation_time(took: float, polls: int) -> float:
    """What a push says of the time its nameservers took: confirmed at the first poll, they
    served the change some time before it, so less is kept (else the wait, the loop's lag and
    the poll itself would only ever add up, and the first poll drift later and later)."""
    return took * FIRST_WAIT_SHARE if polls == 1 else took


def first_wait(recent: Sequence[float]) -> float:
    """Seconds before the first SOA poll, given recent confirmation times (none yet: at once)."""
    if not recent:
        return 0.0
    median = sorted(recent)[len(recent) // 2]  # the upper one of an even count
    return min(FIRST_WAIT_SHARE * median, MAX_FIRST_WAIT)


@dataclass
class PoolPlan:
    """What the worker needs of a pool, cached briefly (pools change rarely)."""

    targets: list[Target]
    nameservers: list[tuple[str, int]]
    also_notifies: list[tuple[str, int]]
    loaded_at: float
    catalog: str | None = None  # RFC 9432 catalog zone of the pool: targets follow it
    needs_signing: bool = False  # a target's backend checks signed zones (ZoneRef.signed)


def _describe(result) -> str:
    if result.status == SoaStatus.SUCCESS:
        return f"serves serial {result.serial}"
    if result.status == SoaStatus.NO_ZONE:
        return "has no such zone"
    return "does not answer"


class Superseded(Exception):
    """A newer change arrived while pushing: stop and let it be claimed at once."""


class PushFailed(Exception):
    """Not enough targets or nameservers took the change before the deadline."""


class Worker:
    def __init__(self, conf: cfg.ConfigOpts, db: Database, notifier: Notifier | None = None):
        self.conf = conf
        self.db = db
        self.notifier = notifier
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._wake = asyncio.Event()
        self._pools: dict[str, PoolPlan] = {}
        self._running: set[str] = set()
        self._states: dict[str, dict[str, str]] = {}  # zone id → nameserver → last answer
        self._seen: dict[str, observations.PushObservations] = {}  # zone id → answers, saved
        # zone name → set when a nameserver of this process changed what it serves of the zone
        # (``served_here``), for the pushes in flight
        self._served_here: dict[str, asyncio.Event] = {}
        # (pool id, action) → the last seconds from NOTIFY to every nameserver confirmed
        self._recent: dict[tuple[str, str], collections.deque[float]] = \
            collections.defaultdict(lambda: collections.deque(maxlen=RECENT_PUSHES))
        self._tasks: set[asyncio.Task] = set()
        self._stopping = False
        # Pushes that end together write their end together (see ``batches``).
        self._completions: Batcher[tuple[ClaimedZone, int], bool] = Batcher(
            lambda served: workqueue.complete_many(self.db, served, self.owner))
        self._observations: Batcher[observations.PushObservations, None] = Batcher(
            lambda pushes: observations.save(self.db, pushes))
        # (monotonic time, zones taken, of them zones with changes) of the last claims that
        # took zones, oldest first
        self._last_claims: collections.deque[tuple[float, int, int]] = \
            collections.deque(maxlen=STREAM_CLAIMS)
        # monotonic time a push last ended with a newer change of its zone waiting
        self._overtaken_at = float("-inf")
        worker = conf["service:worker"]
        self.concurrency = worker.concurrency
        self.deadline = float(worker.poll_timeout)
        self.signed_deadline = max(self.deadline, float(conf["dnssec"].confirm_timeout))
        self.lease_seconds = max(3, worker.lease_seconds)

    def wake(self) -> None:
        """Called by central after a commit; safe from any coroutine of this loop."""
        self._wake.set()

    def has_room(self) -> bool:
        """Whether a wake-up now would let this worker claim another zone: running, with
        fewer pushes than ``concurrency`` (central then announces nothing to other
        processes, ``Services.wake_worker``)."""
        return not self._stopping and len(self._running) < self.concurrency

    def served_here(self, zone_name: str) -> None:
        """A nameserver in this process (the built-in one) now serves another version of the
        zone, or no longer serves it: a push waiting for it polls at once.

        A hint, as ``wake`` is: the SOA poll still decides. Without it the first poll of the
        built-in nameserver came 7-12 ms after it served the change (the adaptive first wait,
        then the back-off), a third of a zone's way to ACTIVE."""
        event = self._served_here.get(zone_name.lower())
        if event is not None:
            event.set()

    async def run(self) -> None:
        listener = wakeup.Listener(self.db, self.wake)
        try:
            await listener.start()
        except Exception:
            LOG.exception("no cross-process wake-ups; sweeping every %.1f s", SWEEP_SECONDS)
        try:
            await self._serve()
        finally:
            await listener.stop()

    async def _serve(self) -> None:
        try:
            released = await workqueue.release_dead_local(self.db, socket.gethostname())
            if released:
                LOG.info("took back %d zones leased by a dead process of this host", released)
        except Exception:
            LOG.exception("could not check leases of dead local processes")
        while not self._stopping:
            try:
                await asyncio.wait_for(self._wake.wait(), SWEEP_SECONDS)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            if self._stopping:
                break
            # One more turn of the loop before the claim, whose statements run on the loop's
            # thread (storage/sqlite_driver.py): the API's answer to the request that
            # committed goes first. It is written at the end of the turn that committed
            # (api/listener.OneWritePerTurn), and the wake-up reaches here two turns later.
            # This was a 1 ms timer (1.1-1.4 ms here): zone created -> ACTIVE by the
            # server's clock 9.1-10.3 ms against 10.6-13.3 ms with it, the 202 as soon
            # (bench/README.md, "The worker's claim one turn after its wake-up").
            await asyncio.sleep(0)
            waited = False
            while (wait := self._window_left()) > 0 and not self._stopping:
                await asyncio.sleep(wait)
                waited = True
            if waited:
                self._wake.clear()
            if self._stopping:
                break
            try:
                await self._claim_and_start()
            except errors.ServiceUnavailable as exc:  # the database is restarting: keep sweeping
                LOG.warning("worker sweep: %s", exc)
                await asyncio.sleep(0.5)
            except Exception:
                LOG.exception("worker sweep failed")
                await asyncio.sleep(0.5)

    async def stop(self) -> None:
        """Finish nothing new; wait briefly for pushes in flight, then release the rest."""
        self._stopping = True
        self._wake.set()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)
        for task in self._tasks:
            task.cancel()
        try:
            await workqueue.release_all(self.db, self.owner)
        except Exception:
            LOG.exception("could not release leases on shutdown")

    def _window_left(self) -> float:
        """Seconds until the next claim may take zones; <= 0: now.

        Now when the last window saw no claim, or when its claims took fewer than
        ``STREAM_ZONES`` zones, no push of it was overtaken by a newer change, and either it
        saw one claim or every push has ended. A tenant who waits for each change to go
        ACTIVE before the next is no stream: each of its changes has a push of its own
        whatever the window (held, the third change of such a tenant within 100 ms waited up
        to 17 ms, recordset POST -> ACTIVE p50 +2-5 ms in ``propagation.py``).

        The window is ``COALESCE_SECONDS``, ``BUSY_COALESCE_SECONDS`` while many zones with
        changes are being claimed, or ``NEW_ZONES_COALESCE_SECONDS`` while only zones without
        changes (new or deleted) are."""
        now = time.monotonic()
        changed = sum(count for at, _, count in self._last_claims
                      if at > now - BUSY_COALESCE_SECONDS)
        if changed >= STREAM_ZONES:
            window = BUSY_COALESCE_SECONDS
        elif changed == 0:
            window = NEW_ZONES_COALESCE_SECONDS
        else:
            window = COALESCE_SECONDS
        since = now - window
        recent = [(at, zones) for at, zones, _ in self._last_claims if at > since]
        if not recent:
            return 0.0
        streaming = ((len(recent) >= STREAM_CLAIMS and bool(self._running))
                     or self._overtaken_at > since
                     or sum(zones for _, zones in recent) >= STREAM_ZONES)
        return recent[0][0] + window - now if streaming else 0.0

    async def _claim_and_start(self) -> None:
        free = self.concurrency - len(self._running)
        if free <= 0:
            return
        claimed_now = await workqueue.claim(self.db, self.owner, self.lease_seconds, free,
                                            busy=self._running)
        if claimed_now:
            changed = sum(1 for claimed in claimed_now if claimed.action == "UPDATE")
            self._last_claims.append((time.monotonic(), len(claimed_now), changed))
        for claimed in claimed_now:
            self._running.add(claimed.id)
            task = asyncio.create_task(self._process(claimed))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _keep_lease(self, claimed: ClaimedZone) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            await workqueue.renew(self.db, claimed, self.owner, self.lease_seconds)

    async def _process(self, claimed: ClaimedZone) -> None:
        keeper = asyncio.create_task(self._keep_lease(claimed))
        self._seen[claimed.id] = observations.PushObservations(claimed)
        # before any target is told, so that a change served at once is not missed
        self._served_here[claimed.name.lower()] = asyncio.Event()
        outcome = "failed"
        limit = self.deadline
        try:
            limit = self._limit(claimed)
            served = await asyncio.wait_for(self._push(claimed, limit > self.deadline), limit)
            finished = await self._completions.submit((claimed, served))
            LOG.info("zone %s %s serial %s: %s", claimed.name, claimed.action, claimed.serial,
                     "done" if finished else "newer change pending")
            outcome = "done" if finished else "superseded"
            if finished:
                await self._announce(claimed)
            else:
                self._overtaken_at = time.monotonic()
        except Superseded:
            outcome = "superseded"
            self._overtaken_at = time.monotonic()
            LOG.info("zone %s %s superseded by a newer change", claimed.name, claimed.action)
            await workqueue.release(self.db, claimed, self.owner)
        except (PushFailed, asyncio.TimeoutError, BackendError) as exc:
            reason = str(exc) or self._timeout_reason(claimed, limit)
            retry_in = min(MAX_RETRY_SECONDS, 2.0 ** min(claimed.attempts, 6))
            LOG.warning("zone %s %s failed: %s (retry in %.0f s)", claimed.name, claimed.action,
                        reason, retry_in)
            await self._fail(claimed, reason, retry_in)
        except Exception:
            LOG.exception("zone %s: unexpected failure", claimed.name)
            await self._fail(claimed, "internal error", 5.0)
        finally:
            keeper.cancel()
            self._served_here.pop(claimed.name.lower(), None)
            self._running.discard(claimed.id)
            self._states.pop(claimed.id, None)
            self._wake.set()
            observations.finished(claimed, claimed.pool_id, outcome)
            await self._observations.submit(self._seen.pop(claimed.id))

    async def _fail(self, claimed: ClaimedZone, reason: str, retry_in: float) -> None:
        if await workqueue.fail(self.db, claimed, self.owner, reason, retry_in):
            await self._announce(claimed)

    async def _announce(self, claimed: ClaimedZone) -> None:
        """The status change as ``dns.zone.update``; losing the event never fails the push."""
        try:
            await announce_status(self.db, self.notifier, claimed.id)
        except Exception:
            LOG.exception("could not announce the status of zone %s", claimed.name)

    def _limit(self, claimed: ClaimedZone) -> float:
        """How long the push of this change may take: ``poll_timeout``, or for a zone signed
        with DNSSEC up to ``[dnssec] confirm_timeout`` (see ``_poll``: only while every
        nameserver still waiting keeps answering).

        Why: a signed zone's version is signed by mdns when a nameserver transfers it.  Most
        versions re-use the kept signatures and take no longer than unsigned ones, but the
        first signing of a large zone (DNSSEC just turned on, or any change after mdns lost
        its signatures by restarting) signs every RRset, and the transfer is four times the
        records: a 100,000-record zone took minutes, and the zone went ERROR on the way to
        ACTIVE and was only retried into ACTIVE.  The time is proportional to the zone, so no
        fixed window fits every size, and the worker cannot see mdns's progress (it may run
        elsewhere).  What it can see is the nameserver: one that answers with the older serial
        is up and, told by NOTIFY, pulling.  So the window is extended for those only; a
        nameserver that is down or never answers makes the zone ERROR within ``poll_timeout``
        as for any zone, and the extension is bounded, so a nameserver that answers but never
        takes the change still ends in ERROR (later)."""
        if (claimed.action == "DELETE" or self.signed_deadline <= self.deadline
                or claimed.type == "SECONDARY"):
            return self.deadline
        return self.signed_deadline if claimed.signed else self.deadline

    # --- one push -----------------------------------------------------------------------------
    async def _push(self, claimed: ClaimedZone, patient: bool = False) -> int:
        """Apply on every target and wait for the nameservers; returns the serial they serve.

        ``patient`` (a signed zone, ``_limit``): the whole push may take longer than
        ``poll_timeout``, but the targets' steps are still bounded by it and the nameservers'
        wait only runs on while they answer."""
        if claimed.type == "SECONDARY" and claimed.action != "DELETE":
            try:
                serial = await secondary.refresh(
                    self.db, claimed.id, claimed.name, claimed.serial, claimed.transferred,
                    float(self.conf["service:worker"].xfr_timeout))
            except secondary.TransferFailed as exc:
                raise PushFailed(f"transfer from the masters failed: {exc}") from exc
            claimed = dataclasses.replace(claimed, serial=serial)
        plan = await self._plan(claimed.pool_id)
        delete = claimed.action == "DELETE"
        signed = (not delete and plan.needs_signing
                  and claimed.signed)
        ref = ZoneRef(claimed.id, claimed.name, claimed.serial, signed)
        started = time.monotonic()
        await self._bounded(claimed, patient, self._on_every_target(
            plan, claimed, lambda backend, target: self._apply_once(
                backend, target, claimed, ref, plan.catalog)))
        served = await self._poll(plan, claimed, delete, started if patient else None)
        if signed:
            # Serving the serial is not enough when a server keeps the zone wrongly (PowerDNS
            # without DNSSEC in its backend drops the signatures): ERROR then, not ACTIVE.
            await self._bounded(claimed, patient, self._on_every_target(
                plan, claimed, lambda backend, target: backend.check_served(ref)))
        for host, port in plan.also_notifies:
            asyncio.create_task(self._quiet_notify(claimed.name, host, port))
        return served

    async def _bounded(self, claimed: ClaimedZone, patient: bool, step):
        """A step of a patient push that has nothing to do with signing: ``poll_timeout``, as
        the whole push of an unsigned zone has (which ``_process`` bounds already)."""
        if not patient:
            return await step
        try:
            return await asyncio.wait_for(step, self.deadline)
        except asyncio.TimeoutError:
            raise PushFailed(self._timeout_reason(claimed, self.deadline)) from None

    async def _on_every_target(self, plan: PoolPlan, claimed: ClaimedZone, call) -> None:
        """``call(backend, target)`` on every target at once; enough of them must succeed."""
        results = await asyncio.gather(*(self._apply(t, claimed, call) for t in plan.targets),
                                       return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        self._require(len(plan.targets) - len(failures), len(plan.targets),
                      lambda: "; ".join(str(f) for f in failures))

    async def _apply(self, target: Target, claimed: ClaimedZone, call) -> None:
        """``call(backend, target)`` until it succeeds or fails permanently."""
        backend = backend_for(target)
        state = self._states.setdefault(claimed.id, {})
        where = f"target {target.type} {target.notify_host}:{target.notify_port}"
        delay = 0.05
        while True:
            state[where] = "did not answer"
            try:
                await call(backend, target)
                del state[where]
                self._seen[claimed.id].target(target, None)
                return
            except PermanentBackendError as exc:
                state[where] = f"refused: {exc}"
                self._seen[claimed.id].target(target, exc, permanent=True)
                raise
            except (BackendError, OSError) as exc:
                LOG.info("%s for %s: %s (retrying)", where, claimed.name, exc)
                state[where] = f"failed: {exc}"
                self._seen[claimed.id].target(target, exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _apply_once(self, backend, target: Target, claimed: ClaimedZone,
                          ref: ZoneRef, catalog: str | None) -> None:
        if catalog is not None and backend.follows_catalog:
            # With a catalog zone the servers learn membership from it (RFC 9432): no backend
            # call, a NOTIFY for the catalog on create/delete, for the member on update.
            name = claimed.name if claimed.action == "UPDATE" else catalog
            await send_notify(name, target.notify_host, target.notify_port,
                              timeout=self._dns_timeout)
            return
        if claimed.action == "DELETE":
            await backend.delete_zone(ref, claimed.hard_delete)
            return
        if claimed.action == "CREATE":
            await backend.create_zone(ref)
        else:
            await backend.update_zone(ref)
        if not backend.sends_notify:
            await send_notify(claimed.name, target.notify_host, target.notify_port,
                              timeout=self._dns_timeout)

    async def _poll(self, plan: PoolPlan, claimed: ClaimedZone, delete: bool,
                    patient_since: float | None = None) -> int:
        """Poll every nameserver until enough serve the serial (or, deleting, none has it).

        Every second without success the targets are told again: a NOTIFY (UDP may be lost),
        or, when a nameserver says it has no such zone at all, the zone is created again
        (Designate's NO_ZONE → CREATE), so a server that lost its data heals by itself.

        ``patient_since`` (a signed zone's push began then, ``_limit``): past ``poll_timeout``
        the wait goes on only while every nameserver still waited for has answered a SOA
        within the last ``poll_timeout``; one silent that long fails the push, with the same
        reason as an unsigned zone's timeout.
        """
        pending = dict.fromkeys(plan.nameservers)
        confirmed: list[int] = []
        state = self._states.setdefault(claimed.id, {})
        delay = FIRST_POLL_DELAY
        started = last_nudge = time.monotonic()
        heard = dict.fromkeys(pending, patient_since or 0.0)  # last SOA answer of each
        kind = (claimed.pool_id, claimed.action)
        wait = first_wait(self._recent[kind])
        if wait > 0:
            await self._until_served_here(claimed.name, wait)
        polls = 0
        while True:
            polls += 1
            answers = await asyncio.gather(*(self._soa(claimed.name, h, p) for h, p in pending))
            for (host, port), result in zip(list(pending), answers):
                state[f"{host}:{port}"] = _describe(result)
                self._seen[claimed.id].soa(host, port, result)
                if result.status == SoaStatus.SUCCESS:
                    heard[(host, port)] = time.monotonic()
                if delete and result.status == SoaStatus.NO_ZONE:
                    del pending[(host, port)]
                    confirmed.append(0)
                elif not delete and result.status == SoaStatus.SUCCESS and serial_ge(
                        result.serial, claimed.serial):
                    del pending[(host, port)]
                    confirmed.append(result.serial)
            if self._enough(len(confirmed), len(plan.nameservers)):
                self._recent[kind].append(confirmation_time(time.monotonic() - started, polls))
                return min(confirmed) if confirmed and not delete else claimed.serial
            now = time.monotonic()
            if patient_since is not None and now - patient_since > self.deadline and any(
                    now - heard[ns] > self.deadline for ns in pending):
                raise PushFailed(self._timeout_reason(claimed, self.deadline))
            if time.monotonic() - last_nudge > RENOTIFY_SECONDS:
                last_nudge = time.monotonic()
                if await workqueue.superseded(self.db, claimed):
                    raise Superseded()
                lost = not delete and any(r.status == SoaStatus.NO_ZONE for r in answers)
                for target in plan.targets:
                    asyncio.create_task(self._nudge(target, claimed, plan.catalog, lost))
            await self._until_served_here(claimed.name, delay)
            delay = min(delay * 2, MAX_POLL_DELAY)

    async def _until_served_here(self, zone_name: str, seconds: float) -> None:
        """Sleep ``seconds``, or less if a nameserver of this process changes what it serves
        of the zone meanwhile (``served_here``; a change before the wait ends it at once)."""
        event = self._served_here.get(zone_name.lower())
        if event is None:
            await asyncio.sleep(seconds)
            return
        try:
            await asyncio.wait_for(event.wait(), seconds)
        except asyncio.TimeoutError:
            return
        event.clear()

    async def _nudge(self, target: Target, claimed: ClaimedZone, catalog: str | None,
                     recreate: bool) -> None:
        """Tell a target again: a lost NOTIFY (or delete) must not cost the whole timeout."""
        backend = backend_for(target)
        ref = ZoneRef(claimed.id, claimed.name, claimed.serial)
        try:
            if claimed.action == "DELETE" or catalog is not None:
                await self._apply_once(backend, target, claimed, ref, catalog)
                return
            if recreate:
                await backend.restore_zone(ref)
        except (BackendError, OSError) as exc:
            LOG.info("telling %s again about %s: %s", target.type, claimed.name, exc)
            return
        await self._quiet_notify(claimed.name, target.notify_host, target.notify_port)

    async def _soa(self, zone_name: str, host: str, port: int):
        return await query_soa(zone_name, host, port, timeout=self._dns_timeout,
                               tcp=self.conf["service:worker"].all_tcp)

    async def _quiet_notify(self, zone_name: str, host: str, port: int) -> None:
        try:
            await send_notify(zone_name, host, port, timeout=self._dns_timeout)
        except OSError as exc:
            LOG.debug("NOTIFY %s to %s:%s: %s", zone_name, host, port, exc)

    def _timeout_reason(self, claimed: ClaimedZone, seconds: float) -> str:
        answers = self._states.get(claimed.id, {})
        wanted = "no zone" if claimed.action == "DELETE" else f"serial {claimed.serial}"
        seen = "; ".join(f"{where} {answer}" for where, answer in sorted(answers.items()))
        return (f"{claimed.action} not confirmed within {seconds:.0f} s: wanted {wanted}; "
                f"{seen or 'no target or nameserver answered'}")

    @property
    def _dns_timeout(self) -> float:
        return self.conf["service:worker"].dns_timeout

    def _enough(self, good: int, total: int) -> bool:
        if total == 0:
            return True
        return good * 100 >= total * self.conf["service:worker"].threshold_percentage

    def _require(self, good: int, total: int, why) -> None:
        if not self._enough(good, total):
            raise PushFailed(f"{total - good} of {total} targets failed: {why()}")

    async def _plan(self, pool_id: str) -> PoolPlan:
        plan = self._pools.get(pool_id)
        if plan is not None and time.monotonic() - plan.loaded_at < 5.0:
            return plan
        async with self.db.read() as session:
            detail = await pool_store.detail(session, pool_id)
            catalog = await catalogzones.fqdn_of(session, pool_id)
        if detail is None:
            raise PushFailed(f"pool {pool_id} does not exist")
        targets = [Target(id=t.id, type=t.type, description=t.description,
                          masters=tuple((m.host, m.port) for m in masters),
                          options=builtin.target_options(options, self.conf)
                          if t.type == "builtin" else options, tsigkey_id=t.tsigkey_id)
                   for t, options, masters in detail.targets]
        plan = PoolPlan(targets=targets,
                        nameservers=[(n.host, n.port) for n in detail.nameservers],
                        also_notifies=[(a.host, a.port) for a in detail.also_notifies],
                        loaded_at=time.monotonic(), catalog=catalog,
                        needs_signing=any(needs_signing(t) for t in targets))
        self._pools[pool_id] = plan
        return plan
