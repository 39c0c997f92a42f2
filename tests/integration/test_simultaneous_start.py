"""Roles started at the same instant on a fresh database all come up and stay up.

systemd starting every unit at boot, or a Kubernetes rollout, starts processes of every role
together on a database that was just synced (or, with SQLite, not even migrated yet). Every
start-up write — the SQLite migration, the default pool and its parts, heartbeat rows, the leases
of periodic jobs — is then raced by several processes. A process that loses such a race must
carry on, not exit with ``Duplicate resource``.

Each round: a fresh database, six ``serve`` processes (api, api, worker, worker,
mdns+nameserver, producer) all spawned before any is waited on, each with its own config file
(API port) but the same database and the same mdns/nameserver addresses (so whichever process
writes the default pool points it at the one built-in nameserver). Then: every process is
alive, there is exactly one default pool with one of each part, a zone created through one API
goes ACTIVE and is served, and no log shows a traceback.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import dns.message
import dns.query
import dns.rdatatype
import httpx
import pytest
from sqlalchemy import create_engine, pool, text

from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import sync_url
from support.databases import empty_database_url
from support.server import ServerProcess, free_port

pytestmark = pytest.mark.integration

ROLES = ("api", "api", "worker", "worker", "mdns,nameserver", "producer")
ROUNDS = 2
DEFAULT_POOL_ID = "794ccc2c-d751-44fe-b57f-8894c9f5c842"
# Every part of the embedded default pool, and how many rows it has when written once.
POOL_PARTS = {
    "pool_ns_records": "SELECT count(*) FROM pool_ns_records WHERE pool_id = :p",
    "pool_nameservers": "SELECT count(*) FROM pool_nameservers WHERE pool_id = :p",
    "pool_targets": "SELECT count(*) FROM pool_targets WHERE pool_id = :p",
    "pool_target_masters": "SELECT count(*) FROM pool_target_masters WHERE pool_target_id IN "
                           "(SELECT id FROM pool_targets WHERE pool_id = :p)",
    "pool_target_options": "SELECT count(*) FROM pool_target_options WHERE pool_target_id IN "
                           "(SELECT id FROM pool_targets WHERE pool_id = :p)",
}
EXPECTED_PARTS = {"pool_ns_records": 1, "pool_nameservers": 1, "pool_targets": 1,
                  "pool_target_masters": 1, "pool_target_options": 2}


@contextlib.contextmanager
def started_together(url: str) -> Iterator[list[ServerProcess]]:
    """Spawn one process per role on ``url`` before waiting on any; stop them all after."""
    mdns_port, ns_port = free_port(dns=True), free_port(dns=True)
    options = {"service:mdns": {"listen": f"127.0.0.1:{mdns_port}"},
               "service:nameserver": {"listen": f"127.0.0.1:{ns_port}"},
               # several processes share one database server: keep the connections modest
               "storage:sqlalchemy": {"max_overflow": 10},
               "heartbeat_emitter": {"heartbeat_interval": 1},
               "producer_task:periodic_check_service_status": {"interval": 1}}
    servers = [ServerProcess(options=options, database=url, roles=roles, project="okd-race")
               for roles in ROLES]
    try:
        started = time.monotonic()
        for server in servers:  # the barrier: nobody is waited on before all are running
            server.spawn()
        spawned = time.monotonic() - started
        for server in servers:
            server.wait_ready()
        print(f"\n{len(servers)} processes spawned within {spawned * 1000:.0f} ms, all serving "
              f"after {time.monotonic() - started:.1f} s")
        for server in servers:
            server.ns_port, server.mdns_port = ns_port, mdns_port
        yield servers
    finally:
        for server in servers:
            server.stop()


def pool_rows(url: str) -> tuple[int, dict[str, int]]:
    """(number of pools, rows of each part of the default pool) read straight from the tables."""
    engine = create_engine(sync_url(url), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            pools = conn.execute(text("SELECT count(*) FROM pools")).scalar_one()
            parts = {name: conn.execute(text(sql), {"p": DEFAULT_POOL_ID}).scalar_one()
                     for name, sql in POOL_PARTS.items()}
    finally:
        engine.dispose()
    return pools, parts


def zone_goes_active(server: ServerProcess, name: str) -> None:
    client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10)
    with client:
        zone = client.post("/v2/zones", json={"name": name, "email": f"h@{name[:-1]}"})
        assert zone.status_code == 202, zone.text
        zone_id = zone.json()["id"]
        deadline = time.monotonic() + 30
        while (status := client.get(f"/v2/zones/{zone_id}").json()["status"]) != "ACTIVE":
            assert status == "PENDING", f"zone went {status}"
            assert time.monotonic() < deadline, "the zone never went ACTIVE"
            time.sleep(0.05)
        listed = client.get("/v2/pools").json()["pools"]
        assert [p["id"] for p in listed] == [DEFAULT_POOL_ID]
    answer = dns.query.udp(dns.message.make_query(name, "SOA"), "127.0.0.1",
                           port=server.ns_port, timeout=2)
    assert answer.answer and answer.answer[0].rdtype == dns.rdatatype.SOA


def tracebacks(servers: list[ServerProcess]) -> list[str]:
    found = []
    for server in servers:
        log = server.log_path.read_text(errors="replace")
        if "Traceback" in log or "Duplicate resource" in log:
            found.append(f"--- {server.roles}:\n{server.log_tail(60)}")
    return found


@pytest.mark.parametrize("engine", ["sqlite", "postgresql", "mysql"])
def test_processes_of_every_role_started_at_once_all_come_up(engine: str) -> None:
    for round_ in range(ROUNDS):
        with empty_database_url(engine, prefix="okd-race-") as url:
            if engine != "sqlite":  # serve migrates SQLite itself, racing with the others
                migrate.upgrade(url)
            with started_together(url) as servers:
                time.sleep(2.5)  # heartbeats, leases and the first periodic jobs race too
                dead = [s.roles for s in servers if not s.is_running()]
                assert not dead, f"round {round_}: exited: {dead}\n" + "\n".join(tracebacks(servers))
                pools, parts = pool_rows(url)
                assert pools == 1, f"round {round_}: {pools} pools"
                assert parts == EXPECTED_PARTS, f"round {round_}: default pool parts {parts}"
                zone_goes_active(servers[1], f"race{round_}.{engine}.example.")
                assert all(s.is_running() for s in servers)
                problems = tracebacks(servers)
                assert not problems, "\n".join(problems)
                with ThreadPoolExecutor(len(servers)) as pool_:  # stop them together too
                    codes = list(pool_.map(lambda s: s.terminate(), servers))
                assert codes == [0] * len(servers), f"exit codes {codes} for {ROLES}"
                problems = tracebacks(servers)
                assert not problems, "after stop:\n" + "\n".join(problems)


@pytest.mark.parametrize("engine", ["sqlite", "postgresql", "mysql"])
def test_start_up_writes_raced_by_many_connections_land_once(engine: str) -> None:
    """The same writes, raced harder than process start-up can: N separate engines (as N
    processes) take one lease, write their first heartbeat and the default pool at once."""
    import asyncio

    from openkeel_designate import config
    from openkeel_designate.central import pools as central_pools
    from openkeel_designate.central import service_statuses
    from openkeel_designate.central.policy import Policy
    from openkeel_designate.central.services import Services
    from openkeel_designate.storage import leases
    from openkeel_designate.storage.database import Database

    contenders = 8

    async def race(url: str) -> tuple[list[bool], int]:
        conf = config.load([])
        dbs = [Database(url) for _ in range(contenders)]
        try:
            services = [Services(conf=conf, db=db, policy=Policy(conf)) for db in dbs]
            won = await asyncio.gather(*(leases.acquire(db, "race", f"owner{i}", 60)
                                         for i, db in enumerate(dbs)))
            await asyncio.gather(*(service_statuses.heartbeat(svc, ["worker", "central"])
                                   for svc in services))
            await asyncio.gather(*(central_pools.ensure_default_pool(svc) for svc in services))
            async with dbs[0].read() as session:
                rows = (await session.execute(text("SELECT count(*) FROM service_statuses"))
                        ).scalar_one()
            return list(won), rows
        finally:
            for db in dbs:
                await db.dispose()

    with empty_database_url(engine, prefix="okd-race-") as url:
        migrate.upgrade(url)
        won, heartbeat_rows = asyncio.run(race(url))
        assert won.count(True) == 1, won
        assert heartbeat_rows == 2
        pools, parts = pool_rows(url)
        assert (pools, parts) == (1, EXPECTED_PARTS)


@pytest.mark.parametrize("engine", ["sqlite", "postgresql", "mysql"])
def test_migrations_run_at_once_by_several_processes_take_turns(engine: str) -> None:
    """``database sync`` in the init step of every replica (or ``serve`` on one SQLite file):
    migrations started together on an empty database all succeed, and the schema is current."""
    code = "import sys; from openkeel_designate.storage import migrate; migrate.upgrade(sys.argv[1])"
    with empty_database_url(engine, prefix="okd-race-") as url:
        procs = [subprocess.Popen([sys.executable, "-c", code, url], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT) for _ in range(4)]
        outputs = [proc.communicate(timeout=120)[0].decode(errors="replace") for proc in procs]
        failed = [out for proc, out in zip(procs, outputs) if proc.returncode != 0]
        assert not failed, failed[0][-3000:]
        assert migrate.is_current(url)
        assert pool_rows(url)[0] == 0  # a sync writes the schema only, no pool
