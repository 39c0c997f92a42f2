"""Periodic housekeeping, each job under a database lease so it runs once per interval
across the cluster: heartbeats (every process), purge of soft-deleted zones, and marking
services DOWN when their heartbeats stop, the SOA-refresh check of secondary zones, the new
serials that renew signed zones' signatures (and remove rolled-over keys), and the ``dns.zone.exists`` audit when
notifications are configured.

Recovery of stuck zones needs no job here: a zone's lease simply expires and any worker claims
it again, and ERROR zones are retried by the worker with back-off.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta

from oslo_config import cfg

from openkeel_designate.central import dnssec, secondary, service_statuses, zone_exists
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.storage import leases
from openkeel_designate.storage import service_statuses as status_store
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import utcnow

LOG = logging.getLogger(__name__)

STOP_GRACE_SECONDS = 10.0


class Producer:
    def __init__(self, svc: Services, owner: str, roles: list[str]):
        self.svc = svc
        self.owner = owner
        self.roles = roles
        self._tasks: list[asyncio.Task] = []
        self._stopping = asyncio.Event()

    def start(self, run_cluster_jobs: bool) -> None:
        conf: cfg.ConfigOpts = self.svc.conf
        self._every(conf.heartbeat_emitter.heartbeat_interval, self.heartbeat, None)
        if run_cluster_jobs:
            self._every(conf["producer_task:zone_purge"].interval, self.purge, "zone_purge")
            self._every(conf["producer_task:periodic_check_service_status"].interval,
                        self.check_services, "periodic_check_service_status")
            self._every(conf["producer_task:periodic_secondary_refresh"].interval,
                        self.refresh_secondaries, "periodic_secondary_refresh")
            self._every(conf["producer_task:dnssec_refresh"].interval,
                        self.refresh_signatures, "dnssec_refresh")
            if self.svc.notifier is not None and self.svc.notifier.enabled:
                self._every(conf["producer_task:periodic_exists"].interval,
                            self.announce_existing, "periodic_exists")

    async def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """Let a job in flight finish before the loops end: a job cancelled in the middle of
        a statement leaves its connection to be reset by the pool's finaliser, which fails
        (and logs a traceback) on MariaDB. Only a job still running after ``grace`` is
        cancelled."""
        self._stopping.set()
        if self._tasks:
            _done, late = await asyncio.wait(self._tasks, timeout=grace)
            for task in late:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
        try:
            await service_statuses.heartbeat(self.svc, self.roles, "STOPPED")
        except Exception:
            LOG.exception("could not record STOPPED heartbeats")

    def _every(self, interval: float, job: Callable[[], Awaitable[None]],
               lease: str | None) -> None:
        async def loop() -> None:
            while not self._stopping.is_set():
                try:
                    if lease is None or await leases.acquire(self.svc.db, lease, self.owner,
                                                             interval * 0.9):
                        await job()
                except asyncio.CancelledError:
                    raise
                except errors.ServiceUnavailable as exc:
                    LOG.warning("periodic job %s: %s", job.__name__, exc)
                except Exception:
                    LOG.exception("periodic job %s failed", job.__name__)
                try:
                    await asyncio.wait_for(self._stopping.wait(), interval)
                except TimeoutError:
                    pass

        self._tasks.append(asyncio.create_task(loop()))

    async def heartbeat(self) -> None:
        await service_statuses.heartbeat(self.svc, self.roles, "UP")

    async def purge(self) -> None:
        conf = self.svc.conf["producer_task:zone_purge"]
        cutoff = utcnow() - timedelta(seconds=conf.time_threshold)
        count = await self.svc.db.transaction(
            lambda s: zone_store.purge(s, cutoff, conf.batch_size))
        if count:
            LOG.info("purged %d deleted zones", count)

    async def refresh_secondaries(self) -> None:
        count = await secondary.refresh_due(self.svc)
        if count:
            LOG.info("%d secondary zones due for a refresh", count)

    async def refresh_signatures(self) -> None:
        age = self.svc.conf["producer_task:dnssec_refresh"].refresh_age
        count = await dnssec.refresh_signatures(self.svc, age)
        if count:
            LOG.info("%d signed zones given a new serial to refresh their signatures", count)
        rolled = await dnssec.roll_zsks(self.svc, self.svc.conf.dnssec.zsk_rollover_period)
        if rolled:
            LOG.info("%d ZSK rollovers started (older than [dnssec] zsk_rollover_period)",
                     rolled)
        retired = await dnssec.retire_keys(self.svc)
        if retired:
            LOG.info("%d rolled-over DNSSEC keys removed", retired)

    async def announce_existing(self) -> None:
        conf = self.svc.conf["producer_task:periodic_exists"]
        count = await zone_exists.announce_existing(self.svc, conf.interval, conf.per_page)
        LOG.info("announced %d existing zones", count)

    async def check_services(self) -> None:
        threshold = self.svc.conf["producer_task:periodic_check_service_status"].time_threshold
        cutoff = utcnow() - timedelta(seconds=threshold)
        await self.svc.db.transaction(lambda s: status_store.mark_down(s, cutoff))
