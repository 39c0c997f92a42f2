"""Keeping secondary zones in step with the masters (mdns): the RFC 1996 / RFC 1034 refresh cycle.

A refresh of a served zone asks a master for an IXFR from the served serial (RFC 1995: mdns answers
with the difference, so a one-record change to a large zone moves one record, or with the SOA alone
when nothing is newer). Only if that fails is the SOA asked: NO_ZONE means the zone was deleted
there (mdns refuses zones being deleted), so it is dropped here too; a newer serial (RFC 1982)
means a full transfer, the difference having not applied. A zone not served yet is transferred
whole.  Either way the new version is a new zone object, parsed and indexed in slices of the
event loop (``dnswire.inbound``, ``ZoneStore.put``) while the old one keeps answering, then
swapped in by one assignment.  Refreshes of one zone never overlap: a NOTIFY arriving
during a transfer only marks the zone for one more check afterwards, so a burst of NOTIFYs costs
one or two transfers, not one each.  Without NOTIFY, each zone is re-checked at its SOA refresh
interval (SOA retry after a failure).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import dns.name
import dns.zone

from openkeel_designate.dnswire.client import DnsTransferError, SoaStatus, axfr, ixfr, query_soa
from openkeel_designate.domain.serial import serial_gt
from openkeel_designate.nameserver.zones import ZoneStore

log = logging.getLogger(__name__)

# mdns sends a transfer's first message only once the zone is read and rendered — signed for
# the first time, a 100,000-record zone takes it a minute or more — so the first message may
# take this long; after it, each message gets ``xfr_timeout``.  The whole transfer of such a
# zone (400,000 signed records, parsed in slices) is bounded by ``XFR_LIFETIME``.  A refresh
# is a task of its own per zone: a slow zone delays no other.
XFR_FIRST_TIMEOUT = 180.0
XFR_LIFETIME = 900.0

Master = tuple[str, int]


class Refresher:
    """Per-zone coalesced refreshes plus a periodic timer over the served zones."""

    def __init__(
        self,
        store: ZoneStore,
        masters: list[Master],
        *,
        soa_timeout: float = 2.0,
        xfr_timeout: float = 10.0,
        xfr_first_timeout: float = XFR_FIRST_TIMEOUT,
        xfr_lifetime: float = XFR_LIFETIME,
        tick: float = 0.5,
        default_retry: float = 60.0,
    ):
        self.store = store
        self.masters = list(masters)
        self.soa_timeout = soa_timeout
        self.xfr_timeout = xfr_timeout
        self.xfr_first_timeout = xfr_first_timeout
        self.xfr_lifetime = xfr_lifetime
        self.tick = tick
        self.default_retry = default_retry
        self._running: dict[dns.name.Name, asyncio.Task] = {}
        self._again: dict[dns.name.Name, Master | None] = {}
        self._due: dict[dns.name.Name, float] = {}
        self._timer: asyncio.Task | None = None

    def start(self) -> None:
        self._timer = asyncio.ensure_future(self._periodic())

    async def stop(self) -> None:
        tasks = list(self._running.values()) + ([self._timer] if self._timer else [])
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._running.clear()
        self._timer = None

    def request(self, name: dns.name.Name, prefer: Master | None = None) -> None:
        """Check ``name`` soon; ``prefer`` is the master that sent a NOTIFY, asked first."""
        if name in self._running:
            self._again[name] = prefer
            return
        task = asyncio.ensure_future(self._run(name, prefer))
        self._running[name] = task
        task.add_done_callback(lambda _: self._running.pop(name, None))

    async def idle(self) -> None:
        """Wait until no refresh is in flight (tests and orderly shutdown)."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def _run(self, name: dns.name.Name, prefer: Master | None) -> None:
        while True:
            try:
                ok = await self.refresh(name, prefer)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("refresh of %s failed", name)
                ok = False
            self._schedule(name, ok)
            if name not in self._again:
                return
            prefer = self._again.pop(name)

    async def refresh(self, name: dns.name.Name, prefer: Master | None = None) -> bool:
        """One check of ``name`` against the masters; whether some master gave a usable answer."""
        for host, port in self._ordered(prefer):
            served = self.store.get(name)
            if served is not None:
                # A served zone is asked for its difference at once: the IXFR answer starts
                # with the master's SOA, the SOA alone when nothing changed, so a SOA query
                # before it cost mdns a read and a round trip on every change. Only when the
                # IXFR fails is the SOA asked, to tell a zone deleted at the master from one
                # whose difference does not apply (then transferred whole).
                if await self._incremental(served.zone, host, port):
                    return True
                result = await query_soa(name, host, port, timeout=self.soa_timeout)
                if result.status is SoaStatus.ERROR:
                    continue
                if result.status is SoaStatus.NO_ZONE:
                    if await self.store.drop(name):
                        log.info("zone %s dropped: master %s:%s no longer serves it", name,
                                 host, port)
                    return True
                if not serial_gt(result.serial, served.serial):
                    return True
            # A zone not served yet is transferred without asking for its SOA first: the AXFR
            # starts with it, and a master without the zone refuses the transfer as it would
            # have answered the SOA. A burst of new zones costs mdns one query each, not two.
            try:
                zone = await axfr(name, host, port, timeout=self.xfr_timeout,
                                  first_timeout=self.xfr_first_timeout,
                                  lifetime=self.xfr_lifetime)
            except (OSError, DnsTransferError) as exc:
                log.warning("transfer of %s from %s:%s failed: %s", name, host, port, exc)
                continue
            await self.store.put(zone)
            log.info("zone %s transferred from %s:%s", name, host, port)
            return True
        return False

    async def _incremental(self, zone: dns.zone.Zone, host: str, port: int) -> bool:
        """IXFR from the served zone to a new version, swapped in; True also when the master
        has nothing newer (the same object comes back: nothing to swap). False: the master
        refused (the zone may be gone there) or the difference did not apply."""
        try:
            updated = await ixfr(zone, host, port, timeout=self.xfr_timeout,
                                 first_timeout=self.xfr_first_timeout,
                                 lifetime=self.xfr_lifetime)
        except (OSError, DnsTransferError) as exc:
            log.info("IXFR of %s from %s:%s failed (%s); asking its SOA", zone.origin, host,
                     port, exc)
            return False
        if updated is zone:
            return True
        served = await self.store.put(updated)
        log.info("zone %s updated to serial %s by IXFR from %s:%s", zone.origin, served.serial,
                 host, port)
        return True

    def _ordered(self, prefer: Master | None) -> list[Master]:
        if prefer is None or prefer not in self.masters:
            return self.masters
        return [prefer] + [master for master in self.masters if master != prefer]

    def _schedule(self, name: dns.name.Name, ok: bool) -> None:
        served = self.store.get(name)
        if served is None:
            self._due.pop(name, None)
            return
        soa = served.soa
        delay = soa.refresh if ok else min(soa.retry or self.default_retry, self.default_retry)
        self._due[name] = time.monotonic() + max(delay, 1)

    async def _periodic(self) -> None:
        while True:
            await asyncio.sleep(self.tick)
            now = time.monotonic()
            for name, due in list(self._due.items()):
                if name not in self.store:
                    self._due.pop(name, None)
                elif due <= now and name not in self._running:
                    self._due.pop(name, None)
                    with contextlib.suppress(Exception):
                        self.request(name)
