"""Composition root: configuration → database, central services, and the chosen roles, all as
asyncio tasks of one process — except the API with ``[service:api] workers`` above 1, which then
runs in that many child processes (``api_workers``).

Roles: ``api`` (REST, with central in-process), ``worker``, ``mdns``, ``producer``,
``nameserver`` (the built-in authoritative server), ``sink`` (Nova/Neutron notifications),
``externaldns`` (ExternalDNS's webhook provider).  ``serve`` with no ``--roles`` runs them all.
The sink is in that default set but does nothing unless ``[service:sink]
enabled_notification_handlers`` names a handler, so the embedded default needs no broker; an
unreachable broker is logged and retried while the other roles serve.  Likewise the webhook
starts with the default set only when ``[service:externaldns] project_id`` names its project.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
from typing import TYPE_CHECKING

import uvicorn
from oslo_config import cfg

from openkeel_designate import api_workers
from openkeel_designate.api.app import create_app
from openkeel_designate.api.auth import AuthConfigError
from openkeel_designate.api.listener import server_config
from openkeel_designate.central import pools as central_pools
from openkeel_designate.central import health, secondary
from openkeel_designate.central.notifications import drain
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate import schema_child
from openkeel_designate.config import database_url, parse_hostport
from openkeel_designate.externaldns import app as externaldns_app
from openkeel_designate.mdns.server import MdnsServer
from openkeel_designate.storage.keyring import SqlKeyring
from openkeel_designate.nameserver.server import BuiltinNameserver
from openkeel_designate.observability import api_children, metrics
from openkeel_designate.observability.listener import MetricsListener, Probes
from openkeel_designate.observability.loop import LoopLagProbe
from openkeel_designate.producer.service import Producer
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.zonesource import SqlZoneSource
from openkeel_designate.storage import dnssec_kek
from openkeel_designate.mdns.signing import SigningSource
from openkeel_designate.worker import tasks
from openkeel_designate.worker.service import Worker

if TYPE_CHECKING:
    from openkeel_designate.sink.service import Sink

LOG = logging.getLogger(__name__)
ALL_ROLES = ("api", "worker", "mdns", "producer", "nameserver", "sink", "externaldns")
# Designate's service names in /v2/service_statuses for our roles (the api hosts central).
HEARTBEAT_NAMES = {"api": "central", "worker": "worker", "mdns": "mdns", "producer": "producer"}
# How long a stop waits for loops and listeners to end by themselves before cancelling them.
STOP_GRACE_SECONDS = 5.0


def freeze_startup_heap() -> None:
    """Move what start-up built out of the cyclic garbage collector's sight (``gc.freeze``).

    Modules, classes, routes, policies, the ORM's mappers and the zones the nameserver loaded are
    ~140,000 container objects that live as long as the process. A full collection walks every
    tracked object, so each took 77-86 ms on the 2-core test machine, and CPython runs one
    whenever enough new objects have survived: a stall of that length for every request on the
    loop at that moment; 8-15 ms once they are frozen (bench/README.md, "gc.freeze"). Frozen
    objects are skipped by collections; freed by reference counting they still are.
    Garbage first, so that none is frozen. What start-up made and later drops inside a reference
    cycle is then never collected: bounded by what start-up made, and start-up objects live on.
    """
    gc.collect()
    gc.freeze()


def open_database(conf: cfg.ConfigOpts) -> Database:
    storage = conf["storage:sqlalchemy"]
    return Database(database_url(conf), pool_size=storage.max_pool_size,
                    max_overflow=storage.max_overflow, pool_timeout=storage.pool_timeout,
                    recycle=storage.connection_recycle_time)


class Runtime:
    """Everything one ``serve`` process runs; ``start`` then ``wait`` then ``stop``.

    ``api_child``: this process is one of the ``[service:api] workers`` children
    (``api_workers``): the parent prepared the schema and owns the metrics listener, and the
    worker it wakes is the parent's. ``api_processes``: this process is that parent.
    """

    def __init__(self, conf: cfg.ConfigOpts, roles: list[str] | None = None,
                 api_child: api_workers.ChildChannel | None = None,
                 api_processes: api_workers.ApiProcesses | None = None):
        self.conf = conf
        self.roles = list(roles or ALL_ROLES)
        self.api_child = api_child
        self.api_processes = api_processes
        self._parent_watch: asyncio.Task | None = None
        self.db = open_database(conf)
        self.services = Services(conf=conf, db=self.db, policy=Policy(conf))
        self.task_runner = tasks.attach(self.services)
        self.worker: Worker | None = None
        self.producer: Producer | None = None
        self.sink: Sink | None = None
        self._servers: list[uvicorn.Server] = []
        self._apps: list = []
        self._dns: list = []
        self._tasks: list[asyncio.Task] = []
        self._stopped = asyncio.Event()
        self.metrics_listener: MetricsListener | None = None
        self.loop_lag = LoopLagProbe()

    async def start(self) -> None:
        self._check_roles()
        if self.api_child is None:
            await self._prepare_database()
            self._start_metrics()
        else:
            self.services.wake_listeners.append(self.api_child.wake)
            self.services.wakes_relayed = True
            self._parent_watch = self.api_child.watch_parent(self.request_stop)
            if self.api_child.metrics_dir is not None:
                writer = api_children.SnapshotWriter(self.api_child.metrics_dir)
                self._tasks.append(asyncio.create_task(writer.run(self._stopped)))
        if "nameserver" in self.roles:
            await self._start_nameserver()
        if "mdns" in self.roles:
            await self._start_mdns()
        if "worker" in self.roles:
            self.worker = Worker(self.conf, self.db, self.services.notifier)
            self.services.wake_listeners.append(self.worker.wake)
            self.services.local_worker_free = self.worker.has_room
            for server in self._dns:
                if isinstance(server, BuiltinNameserver):
                    server.store.changed_listeners.append(self.worker.served_here)
            self._tasks.append(asyncio.create_task(self.worker.run()))
        idle: list[str] = []  # asked for (by default) but with nothing to do as configured
        if "sink" in self.roles:
            if self.conf["service:sink"].enabled_notification_handlers:
                await self._start_sink()
            else:
                idle.append("sink")
        if "api" in self.roles:
            await self._start_api()
            self._tasks.append(asyncio.create_task(self.task_runner.sweep_forever()))
        if "externaldns" in self.roles and not await self._start_externaldns():
            idle.append("externaldns")
        names = [HEARTBEAT_NAMES[r] for r in self.roles if r in HEARTBEAT_NAMES]
        self.producer = Producer(self.services, self.worker.owner if self.worker else
                                 f"{self.conf.host}:{os.getpid()}", names)
        self.producer.start(run_cluster_jobs="producer" in self.roles)
        served = [r for r in self.roles if r not in idle]
        if self.api_processes is not None:
            await self.api_processes.start()
            served.append(f"api ({self.api_processes.count} processes, pids "
                          f"{','.join(map(str, self.api_processes.pids))})")
        if self.api_child is not None:
            self.api_child.ready()
            LOG.info("API process %d serving", os.getpid())
            return
        LOG.info("openkeel-designate serving roles %s%s", ",".join(served),
                 f" ({', '.join(idle)} not configured, off)" if idle else "")

    async def _prepare_database(self) -> None:
        if self.db.backend == "sqlite":
            await schema_child.run("upgrade", self.db.url)
        elif not await schema_child.run("check", self.db.url):
            raise SystemExit("the database schema is not current: run "
                             "'openkeel-designate manage --config-file FILE database sync' first")
        await central_pools.ensure_default_pool(self.services)

    def wake_here(self) -> None:
        """An API child's ``wake_worker``, relayed: this process's listeners (worker, mdns),
        and on PostgreSQL the announcement to other hosts when this worker has no room."""
        self.services.wake_worker()

    @property
    def every_role(self) -> bool:
        """The embedded default (``serve`` without ``--roles``), API processes counted."""
        api = {"api"} if self.api_processes is not None else set()
        return set(self.roles) | api == set(ALL_ROLES)

    def metrics_address(self) -> tuple[str, int] | None:
        """``[service:metrics] listen``; unset means on only in the embedded (all roles) mode."""
        listen = self.conf["service:metrics"].listen
        if listen is None:
            listen = ["127.0.0.1:9102"] if self.every_role else []
        return parse_hostport(listen[0], 9102) if listen else None

    def _start_metrics(self) -> None:
        """The listener is a convenience next to the roles: failing to bind is logged, not
        fatal (a second embedded server on one host must still serve DNS)."""
        self.loop_lag.start()
        metrics.UP.labels(",".join(self.roles)).set(1)
        if self.api_processes is not None:  # the API's requests are counted in the children
            for family in api_children.FAMILIES:
                metrics.REGISTRY.unregister(family)
            metrics.REGISTRY.register(api_children.ChildrenCollector(self.api_processes.metrics_dir))
        address = self.metrics_address()
        if address is None:
            return
        probes = Probes(asyncio.get_running_loop(),
                        checks={"database": lambda: health.check_database(self.db)},
                        refresh=self._refresh_gauges)
        try:
            self.metrics_listener = MetricsListener(address[0], address[1], probes)
        except OSError as exc:
            LOG.error("metrics listener on %s:%s not started: %s", *address, exc)
            return
        self.metrics_listener.start()
        LOG.info("metrics, /livez and /readyz on http://%s:%s/", address[0],
                 self.metrics_listener.port)

    async def _refresh_gauges(self) -> None:
        metrics.LOOP_LAG_MAX.set(self.loop_lag.take_worst())
        await health.refresh_gauges(self.db)

    async def _start_mdns(self) -> None:
        options = self.conf["service:mdns"]
        source = SqlZoneSource(self.db)
        try:
            mdns = MdnsServer(
                SigningSource(source, lambda: dnssec_kek.load(self.conf)),
                [parse_hostport(v, 5354) for v in options.listen],
                self.conf["service:central"].default_pool_id,
                max_message_size=options.max_message_size,
                tcp_recv_timeout=options.tcp_recv_timeout,
                keyring=SqlKeyring(self.db),
                enforce_tsig=options.query_enforce_tsig,
                max_udp_payload=options.max_udp_payload,
                max_udp_in_flight=options.max_udp_in_flight,
                udp_rate_limit=options.udp_rate_limit,
                udp_rate_limit_exempt=options.udp_rate_limit_exempt,
                peers=source.peer_hosts,
                zone_cache_ttl=options.zone_cache_ttl,
                transfer_cache_bytes=options.transfer_cache_size * 1024 * 1024,
                large_transfer_bytes=options.large_transfer_size * 1024 * 1024,
                large_transfer_seconds=options.large_transfer_seconds,
                on_notify=lambda name, sender: secondary.on_notify(self.services, name, sender))
        except ValueError as exc:  # a bad udp_rate_limit_exempt entry: refuse to serve
            raise SystemExit(str(exc)) from exc
        # Central's "a zone changed" hook: zones created or deleted here are seen at once.
        self.services.wake_listeners.append(mdns.zones_changed)
        await mdns.start()
        self._dns.append(mdns)

    async def _start_nameserver(self) -> None:
        from openkeel_designate.config import parse_hostport as hp

        masters = [hp(v, 5354) for v in self.conf["service:mdns"].listen]
        data_dir = os.path.join(os.path.abspath(self.conf.state_path), "nameserver")
        os.makedirs(data_dir, exist_ok=True)
        options = self.conf["service:nameserver"]
        try:
            server = BuiltinNameserver(
                [hp(v, 5300) for v in options.listen], masters, data_dir,
                keyring=SqlKeyring(self.db), allow_transfer=options.allow_transfer,
                max_udp_payload=options.max_udp_payload,
                max_udp_in_flight=options.max_udp_in_flight,
                udp_rate_limit=options.udp_rate_limit,
                udp_rate_limit_exempt=options.udp_rate_limit_exempt)
        except ValueError as exc:  # a bad allow_transfer / udp_rate_limit_exempt entry
            raise SystemExit(str(exc)) from exc
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
            server = uvicorn.Server(server_config(app, host, port, self.conf))
            server.install_signal_handlers = lambda: None  # the runtime owns the signals
            self._servers.append(server)
            if self.api_child is None:
                self._tasks.append(asyncio.create_task(server.serve()))
                continue
            try:  # one of several API processes: a socket of the port's SO_REUSEPORT group
                sock = api_workers.reuseport_socket(host, port)
            except OSError as exc:
                raise SystemExit(f"cannot listen on {host}:{port}: {exc}") from exc
            self._tasks.append(asyncio.create_task(server.serve(sockets=[sock])))
        for server in self._servers:
            while not server.started:
                await asyncio.sleep(0.01)

    def _check_roles(self) -> None:
        """Configuration errors of the roles asked for, before any listener opens: a process that
        refuses to start must not first answer on some of its ports."""
        if ("externaldns" in self.roles and not self.every_role
                and not self.conf["service:externaldns"].project_id):
            raise SystemExit("serve --roles externaldns needs [service:externaldns] "
                             "project_id: the project whose zones ExternalDNS manages")

    async def _start_externaldns(self) -> bool:
        """ExternalDNS's webhook and its /healthz: on when a project is named (True); off (False)
        in the default every-role mode without one (``_check_roles`` refused the rest)."""
        options = self.conf["service:externaldns"]
        if not options.project_id:
            return False
        await self._serve_http(externaldns_app.create_app(self.services),
                               parse_hostport(options.listen, 8888))
        await self._serve_http(externaldns_app.create_health_app(self.services),
                               parse_hostport(options.health_listen, 8080))
        LOG.info("ExternalDNS webhook for project %s on http://%s/ (health on http://%s/healthz)",
                 options.project_id, options.listen, options.health_listen)
        return True

    async def _serve_http(self, app: object, address: tuple[str, int]) -> None:
        """One more uvicorn listener with the API's limits, started before ``start`` returns."""
        server = uvicorn.Server(server_config(app, address[0], address[1], self.conf))
        server.install_signal_handlers = lambda: None  # the runtime owns the signals
        self._servers.append(server)
        self._tasks.append(asyncio.create_task(server.serve()))
        while not server.started:
            if self._tasks[-1].done():  # e.g. the address is taken: say so and stop
                raise SystemExit(f"cannot listen on {address[0]}:{address[1]}")
            await asyncio.sleep(0.01)

    def request_stop(self) -> None:
        self._stopped.set()

    async def wait(self) -> None:
        await self._stopped.wait()

    async def stop(self) -> None:
        """Graceful: stop taking requests, let pushes in flight finish or release them."""
        if self.api_processes is not None:
            await self.api_processes.stop(STOP_GRACE_SECONDS + 5.0)
        if self._parent_watch is not None:
            self._parent_watch.cancel()
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
        self.task_runner.stop()
        pending = [task for task in self._tasks if not task.done()]
        if pending:  # the worker's sweep may be in a statement: let it end rather than cut it
            await asyncio.wait(pending, timeout=STOP_GRACE_SECONDS)
        for task in pending:
            if not task.done():
                task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for app in self._apps:
            await app.state.auth.aclose()  # the Keystone client's connections
        await drain(self.services.notifier)
        await self.loop_lag.stop()
        if self.metrics_listener is not None:
            await asyncio.to_thread(self.metrics_listener.stop)
        await self.db.dispose()


async def serve(conf: cfg.ConfigOpts, roles: list[str] | None = None, *,
                config_files: list[str] | None = None, debug: bool = False,
                api_child_pipe: int | None = None, api_child_metrics: str | None = None) -> None:
    """One ``serve`` process; with ``[service:api] workers`` above 1 (and the api role), the
    parent of that many API processes (``api_workers``), or one of them (``api_child_pipe``)."""
    roles = list(roles or ALL_ROLES)
    workers = conf["service:api"].workers
    if api_child_pipe is not None:
        runtime = Runtime(conf, ["api"], api_child=api_workers.open_child_channel(
            api_child_pipe, api_child_metrics))
    elif "api" in roles and workers > 1:
        for address in conf["service:api"].listen:  # before any process, listener or folder
            api_workers.refuse_taken(*parse_hostport(address, 9001))
        argv = api_workers.child_argv(config_files or [], debug)
        processes = api_workers.ApiProcesses(workers, argv, on_wake=lambda: runtime.wake_here())
        runtime = Runtime(conf, [r for r in roles if r != "api"], api_processes=processes)
    else:
        runtime = Runtime(conf, roles)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runtime.request_stop)
    await runtime.start()
    freeze_startup_heap()
    try:
        await runtime.wait()
    finally:
        await runtime.stop()
