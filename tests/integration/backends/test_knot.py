"""The knot driver against a real Knot DNS: its knotc transactions directly, then a full
propagation."""

from __future__ import annotations

import asyncio
import socket

import dns.message
import dns.query
import dns.rcode
import pytest

from openkeel_designate.backends import backend_for
from openkeel_designate.backends.base import (
    PermanentBackendError,
    Target,
    TransientBackendError,
    ZoneRef,
)
from support import knot as knot_support
from support.knot import KnotServer
from support.server import ServerProcess

pytestmark = pytest.mark.integration
MASTERS = (("127.0.0.1", 5354), ("127.0.0.2", 5355))


def target(knot: KnotServer, masters=MASTERS, **options: object) -> Target:
    base = {"socket": str(knot.socket), "host": "127.0.0.1", "port": knot.dns_port}
    return Target(id="t1", type="knot", masters=masters, options={**base, **options})


def conf(knot: KnotServer, item: str) -> str | None:
    """Knot's active configuration of ``item``, None when it has no such item."""
    done = knot.knotc("conf-read", item)
    if done.returncode != 0:
        assert "invalid identifier" in done.stdout + done.stderr, done
        return None
    return done.stdout


def assert_no_open_transaction(knot: KnotServer) -> None:
    assert knot.knotc("conf-begin").returncode == 0, "a transaction was left open"
    knot.knotc("conf-abort")


async def test_create_adds_a_secondary_with_remote_and_notify_acl(knot_server) -> None:
    backend = backend_for(target(knot_server))
    await backend.create_zone(ZoneRef("id1", "create.example."))
    zone = conf(knot_server, "zone[create.example.]")
    assert f"zone[create.example.].master = {backend.remote}" in zone
    assert f"zone[create.example.].acl = {backend.acl}" in zone
    assert "zone[create.example.].dnssec-signing = off" in zone
    remote = conf(knot_server, f"remote[{backend.remote}].address")
    assert "127.0.0.1@5354" in remote and "127.0.0.2@5355" in remote
    assert "notify" in conf(knot_server, f"acl[{backend.acl}].action")
    assert_no_open_transaction(knot_server)


async def test_create_twice_is_harmless(knot_server) -> None:
    backend = backend_for(target(knot_server))
    ref = ZoneRef("id2", "twice.example.")
    await backend.create_zone(ref)
    await backend.create_zone(ref)
    assert conf(knot_server, "zone[twice.example.].master").count("=") == 1


async def test_concurrent_creates_share_the_transaction_lock(knot_server) -> None:
    backend = backend_for(target(knot_server))
    names = [f"parallel{i}.example." for i in range(5)]
    await asyncio.gather(*(backend.create_zone(ZoneRef(f"p{i}", n)) for i, n in enumerate(names)))
    assert all(conf(knot_server, f"zone[{name}]") for name in names)


async def test_configured_remote_is_used_as_it_is(knot_server) -> None:
    own = target(knot_server, remote="operators-mdns")
    assert knot_server.knotc("conf-begin").returncode == 0
    knot_server.knotc("conf-set", "remote[operators-mdns]")
    knot_server.knotc("conf-set", "remote[operators-mdns].address", "127.0.0.9@53")
    assert knot_server.knotc("conf-commit").returncode == 0
    await backend_for(own).create_zone(ZoneRef("id3", "own-remote.example."))
    assert "= operators-mdns" in conf(knot_server, "zone[own-remote.example.].master")
    assert "127.0.0.9@53" in conf(knot_server, "remote[operators-mdns].address")


async def test_update_recreates_a_lost_zone(knot_server) -> None:
    ref = ZoneRef("id4", "update.example.")
    await backend_for(target(knot_server)).update_zone(ref)
    assert conf(knot_server, "zone[update.example.]") is not None
    await backend_for(target(knot_server)).update_zone(ref)


@pytest.mark.parametrize("hard", [False, True])
async def test_delete_removes_purging_on_hard_delete(knot_server, hard: bool) -> None:
    backend = backend_for(target(knot_server))
    ref = ZoneRef("id5", f"delete-{hard}.example.".lower())
    await backend.create_zone(ref)
    zone_file = knot_server.zones_dir / f"{ref.name.rstrip('.')}.zone"
    zone_file.write_text("; stands for a transferred copy\n")
    await backend.delete_zone(ref, hard_delete=hard)
    assert conf(knot_server, f"zone[{ref.name}]") is None
    assert zone_file.exists() is not hard
    await backend.delete_zone(ref, hard_delete=hard)
    assert_no_open_transaction(knot_server)


async def test_busy_server_is_transient_and_own_transaction_is_not_broken(knot_server) -> None:
    assert knot_server.knotc("conf-begin").returncode == 0
    try:
        with pytest.raises(TransientBackendError, match="too many transactions"):
            await backend_for(target(knot_server)).create_zone(ZoneRef("id6", "busy.example."))
    finally:
        assert knot_server.knotc("conf-abort").returncode == 0


async def test_failed_step_aborts_the_transaction(knot_server) -> None:
    bad = target(knot_server, masters=(("not-an-address", 53),))
    with pytest.raises(PermanentBackendError):
        await backend_for(bad).create_zone(ZoneRef("id7", "bad.example."))
    assert conf(knot_server, "zone[bad.example.]") is None
    assert_no_open_transaction(knot_server)


@pytest.mark.parametrize("operation", ["create", "update", "delete"])
async def test_server_down_is_transient(knot_server, operation: str) -> None:
    down = target(knot_server, socket=str(knot_server.dir / "nobody-here.sock"))
    with pytest.raises(TransientBackendError):
        await getattr(backend_for(down), f"{operation}_zone")(ZoneRef("id8", "down.example."))


def test_zone_propagates_to_knot(knot_server, make_pool_yaml, propagate) -> None:
    options = {"socket": str(knot_server.socket), "host": "127.0.0.1",
               "port": knot_server.dns_port}

    def pools(server: ServerProcess) -> str:
        return make_pool_yaml(server, "knot", options, knot_server.dns_port)

    with ServerProcess(pools=pools) as server:
        took = propagate(server, knot_server.dns_port, "propagated.example.")
    print(f"Knot: zone POST -> ACTIVE in {took * 1000:.0f} ms")
    # The recordset went by IXFR from mdns, and Knot kept it: no fall back to a full transfer.
    lines = [line for line in knot_server.log_path.read_text(errors="replace").splitlines()
             if "[propagated.example.]" in line]
    assert any("IXFR, incoming" in line and "finished" in line for line in lines), lines
    assert not any("fallback to AXFR" in line or "failed to store" in line for line in lines), lines


def test_a_port_another_process_shares_is_left_for_new_ones(monkeypatch) -> None:
    """knotd binds with SO_REUSEPORT, so on a port another pytest worker's knotd (or anything of
    the same user) also has, both bound and each got part of the queries. The harness must
    see the other socket and start knotd again on a new port."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other.bind(("127.0.0.1", 0))
        taken = other.getsockname()[1]
        picks = [taken]
        free_port = knot_support.free_port
        monkeypatch.setattr(knot_support, "free_port",
                            lambda dns=False: picks.pop() if picks else free_port(dns))
        knot = KnotServer().start()
        try:
            assert knot.dns_port != taken
            answer = dns.query.udp(dns.message.make_query(".", "SOA"), "127.0.0.1",
                                   port=knot.dns_port, timeout=2)
            assert answer.rcode() == dns.rcode.REFUSED  # knotd, which serves no zone yet
        finally:
            knot.stop()
