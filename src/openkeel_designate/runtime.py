"""Composition root: configuration → database, central services, and the chosen roles, all as
asyncio tasks of one process.

Roles: ``api`` (REST, with central in-process), ``worker``, ``mdns``, ``producer``,
``nameserver`` (the built-in authoritative server), ``sink`` (Nova/Neutron notifications).
``serve`` with no ``--roles`` runs them all.  The sink is in that default set but does nothing
unless ``[service:sink] enabled_notification_handlers`` names a handler, so the embedded default
needs no broker; an unreachable broker is logged and retried while the other roles serve.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import TYPE_CHECKING

import uvicorn
from oslo_config import cfg

from openkeel_designate.api.app import create_app
from openkeel_designate.api.auth import AuthConfigError
from openkeel_designate.central import pools as central_pools
from openkeel_designate.central import secondary
from openkeel_designate.central import task_runner
from openkeel_designate.central.notifications import drain
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.config import database_url, parse_hostport
from openkeel_designate.mdns.server import MdnsServer
from openkeel_designate.storage.keyring import SqlKeyring
from openkeel_designate.nameserver.server import BuiltinNameserver
from openkeel_designate.producer.service import Producer
from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.zonesource import SqlZoneSource
from openkeel_designate.worker.service import Worker

if TYPE_CHECKING:
    from openkeel_designate.sink.service import Sink

LOG = logging.getLogger(__name__)
ALL_ROLES = ("api", "worker", "mdns", "producer", "nameserver", "sink")
# Designate's service names in /v2/service_statuses for our roles (the api hosts central).
HEARTBEAT_NAMES = {"api": "central", "worker": "worker", "mdns": "mdns", "producer": "producer"}


def open_database(conf: cfg.ConfigOpts) -> Database:
    storage = conf["storage:sqlalchemy"]
    return Database(database_url(conf), pool_size=storage.max_pool_size,
                    max_overflow=storage.max_overflow, pool_timeout=storage.pool_timeout,
                    recycle=storage.connection_recycle_time)


class Runtime:
    """Everything one ``serve`` process runs; ``start`` then ``wait`` then ``stop``."""

    def __init__(self, conf: cfg.ConfigOpts, roles: list[str] | None = None):
        self.conf = conf
        self.roles = list(roles or ALL_ROLES)
        self.db = open_database(conf)
        self.services = Services(conf=conf, db=self.db, policy=Policy(conf))
        self.worker: Worker | None = None
        self.producer: Producer | None = None
        self.sink: Sink | None = None
        self._servers: list[uvicorn.Server] = []
        self._apps: list = []
        self._dns: list = []
        self._tasks: list[asyncio.Task] = []
        self._stopped = asyncio.Event()

    async def start(self) -> None:
        if self.db.backend == "sqlite":
            await asyncio.to_thread(migrate.upgrade, self.db.url)
        elif not await asyncio.to_thread(migrate.is_current, self.db.url):
            raise SystemExit("the database schema is not current: run "
                             "'openkeel-designate manage --config-file FILE database sync' first")
        await central_pools.ensure_default_pool(self.services)
        if "nameserver" in self.roles:
            await self._start_nameserver()
        if "mdns" in self.roles:
            mdns = MdnsServer(
                SqlZoneSource(self.db),
                [parse_hostport(v, 5354) for v in self.conf["service:mdns"].listen],
                self.conf["service:central"].default_pool_id,
                max_message_size=self.conf["service:mdns"].max_message_size,
                tcp_recv_timeout=self.conf["service:mdns"].tcp_recv_timeout,
                keyring=SqlKeyring(self.db),
                enforce_tsig=self.conf["service:mdns"].query_enforce_tsig,
                on_notify=lambda name, sender: secondary.on_notify(self.services, name, sender))
            await mdns.start()
            self._dns.append(mdns)
        if "worker" in self.roles:
            self.worker = Worker(self.conf, self.db, self.services.notifier)
            self.services.wake_listeners.append(self.worker.wake)
            self._tasks.append(asyncio.create_task(self.worker.run()))
        if "sink" in self.roles and self.conf["service:sink"].enabled_notification_handlers:
            await self._start_sink()
        if "api" in self.roles:
            await self._start_api()
            self._tasks.append(asyncio.create_task(task_runner.sweep_forever(self.services)))
        names = [HEARTBEAT_NAMES[r] for r in self.roles if r in HEARTBEAT_NAMES]
        self.producer = Producer(self.services, self.worker.owner if self.worker else
                                 f"{self.conf.host}:{os.getpid()}", names)
        self.producer.start(run_cluster_jobs="producer" in self.roles)
        LOG.info("openkeel-designate serving roles %s", ",".join(self.roles))

    async def _start_nameserver(self) -> None:
        from openkeel_designate.config import parse_hostport as hp

        masters = [hp(v, 5354) for v in self.conf["service:mdns"].listen]
        data_dir = os.path.join(os.path.abspath(self.conf.state_path), "nameserver")
        os.makedirs(data_dir, exist_ok=True)
        server = BuiltinNameserver(
            [hp(v, 5300) for v in self.conf["service:nameserver"].listen], masters, data_dir)
        await server.start()
        self._dns.append(server)

    async def _start_sink(self) -> None:
        # Imported here: oslo.messaging costs most of a second and drags in eventlet, which a
        # server without notification handlers has no use for.
        from openkeel_designate.sink.service import Sink

        self.sink = Sink(self.services, self.conf)
        await self.sink.start()

    async def _start_api(self) -> None:
        try:
            app = create_app(self.services)
        except AuthConfigError as exc:  # e.g. keystone without auth_url: refuse to serve
            raise SystemExit(str(exc)) from exc
        self._apps.append(app)
        for address in self.conf["service:api"].listen:
            host, port = parse_hostport(address, 9001)
            config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                                    access_log=False, lifespan="off", server_header=False)
            server = uvicorn.Server(config)
            server.install_signal_handlers = lambda: None  # the runtime owns the signals
            self._servers.append(server)
            self._tasks.append(asyncio.create_task(server.serve()))
        for server in self._servers:
            while not server.started:
                await asyncio.sleep(0.01)

    def request_stop(self) -> None:
        self._stopped.set()

    async def wait(self) -> None:
        await self._stopped.wait()

    async def stop(self) -> None:
        """Graceful: stop taking requests, let pushes in flight finish or release them."""
        for server in self._servers:
            server.should_exit = True
        if self.sink is not None:
            await self.sink.stop()
        if self.worker is not None:
            await self.worker.stop()
        if self.producer is not None:
            await self.producer.stop()
        for server in self._dns:
            await server.stop()
        for task in self._tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for app in self._apps:
            await app.state.auth.aclose()  # the Keystone client's connections
        await drain(self.services.notifier)
        await self.db.dispose()


async def serve(conf: cfg.ConfigOpts, roles: list[str] | None = None) -> None:
    runtime = Runtime(conf, roles)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runtime.request_stop)
    await runtime.start()
    try:
        await runtime.wait()
    finally:
        await runtime.stop()
