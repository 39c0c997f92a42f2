"""The bind9 driver against a real BIND 9: its rndc commands directly, then a full propagation."""

from __future__ import annotations

import pytest

from openkeel_designate.backends import backend_for
from openkeel_designate.backends.base import (
    PermanentBackendError,
    Target,
    TransientBackendError,
    ZoneRef,
)
from support.bind9 import Bind9Server
from support.server import ServerProcess, free_port

pytestmark = pytest.mark.integration
MASTERS = (("127.0.0.1", 5354), ("127.0.0.2", 5355))


def target(bind: Bind9Server, **options: object) -> Target:
    base = {"rndc_host": "127.0.0.1", "rndc_port": bind.rndc_port,
            "rndc_config_file": str(bind.rndc_conf), "rndc_timeout": 10,
            "host": "127.0.0.1", "port": bind.dns_port}
    return Target(id="t1", type="bind9", masters=MASTERS, options={**base, **options})


def showzone(bind: Bind9Server, name: str) -> str | None:
    """BIND's own view of the zone's configuration, None when it has no such zone."""
    done = bind.rndc("showzone", name.rstrip("."))
    if done.returncode != 0:
        assert "not found" in done.stderr + done.stdout
        return None
    return done.stdout


async def test_create_adds_a_secondary_of_the_masters(bind9_server) -> None:
    await backend_for(target(bind9_server)).create_zone(ZoneRef("id1", "create.example."))
    shown = showzone(bind9_server, "create.example.")
    assert "type slave;" in shown or "type secondary;" in shown
    assert "127.0.0.1 port 5354;" in shown and "127.0.0.2 port 5355;" in shown
    assert 'file "slave.create.example.id1";' in shown


async def test_create_twice_is_harmless(bind9_server) -> None:
    backend = backend_for(target(bind9_server))
    ref = ZoneRef("id2", "twice.example.")
    await backend.create_zone(ref)
    await backend.create_zone(ref)
    assert showzone(bind9_server, ref.name) is not None


async def test_update_recreates_a_lost_zone_and_modifies_a_present_one(bind9_server) -> None:
    ref = ZoneRef("id3", "update.example.")
    await backend_for(target(bind9_server)).update_zone(ref)
    assert showzone(bind9_server, ref.name) is not None
    moved = Target(id="t1", type="bind9", masters=(("127.0.0.3", 5356),),
                   options=target(bind9_server).options)
    await backend_for(moved).update_zone(ref)
    assert "127.0.0.3 port 5356;" in showzone(bind9_server, ref.name)


async def test_delete_removes_and_tolerates_absence(bind9_server) -> None:
    backend = backend_for(target(bind9_server))
    ref = ZoneRef("id4", "delete.example.")
    await backend.create_zone(ref)
    await backend.delete_zone(ref)
    assert showzone(bind9_server, ref.name) is None
    await backend.delete_zone(ref)


@pytest.mark.parametrize(("hard", "clean_option", "removed"), [
    (False, False, False), (True, False, True), (False, True, True)])
async def test_zone_file_removed_on_hard_delete_or_clean_zonefile(
        bind9_server, hard: bool, clean_option: bool, removed: bool) -> None:
    backend = backend_for(target(bind9_server, clean_zonefile=str(clean_option)))
    ref = ZoneRef(f"id5{hard}{clean_option}", f"clean-{hard}-{clean_option}.example.".lower())
    await backend.create_zone(ref)
    zone_file = bind9_server.dir / f"slave.{ref.name}{ref.id}"
    zone_file.write_text("; stands for a transferred copy\n")
    await backend.delete_zone(ref, hard_delete=hard)
    assert showzone(bind9_server, ref.name) is None
    assert zone_file.exists() is not removed


async def test_key_file_and_view(bind9_server) -> None:
    options = {"rndc_host": "127.0.0.1", "rndc_port": bind9_server.rndc_port,
               "rndc_key_file": str(bind9_server.rndc_key), "view": "_default"}
    backend = backend_for(Target(id="t2", type="bind9", masters=MASTERS, options=options))
    ref = ZoneRef("id6", "view.example.")
    await backend.create_zone(ref)
    await backend.update_zone(ref)
    assert showzone(bind9_server, ref.name) is not None
    await backend.delete_zone(ref)
    assert showzone(bind9_server, ref.name) is None


async def test_unknown_view_is_permanent(bind9_server) -> None:
    with pytest.raises(PermanentBackendError):
        await backend_for(target(bind9_server, view="nosuchview")).create_zone(
            ZoneRef("id7", "noview.example."))


async def test_missing_rndc_binary_is_permanent(bind9_server) -> None:
    with pytest.raises(PermanentBackendError, match="cannot run"):
        await backend_for(target(bind9_server, rndc_bin_path="/nonexistent/rndc")).create_zone(
            ZoneRef("id8", "nobin.example."))


@pytest.mark.parametrize("operation", ["create", "update", "delete"])
async def test_server_down_is_transient(bind9_server, operation: str) -> None:
    backend = backend_for(target(bind9_server, rndc_port=free_port()))
    ref = ZoneRef("id9", "down.example.")
    with pytest.raises(TransientBackendError):
        await getattr(backend, f"{operation}_zone")(ref)


def test_zone_propagates_to_bind9(bind9_server, make_pool_yaml, propagate) -> None:
    options = {"rndc_host": "127.0.0.1", "rndc_port": bind9_server.rndc_port,
               "rndc_config_file": str(bind9_server.rndc_conf),
               "host": "127.0.0.1", "port": bind9_server.dns_port}

    def pools(server: ServerProcess) -> str:
        return make_pool_yaml(server, "bind9", options, bind9_server.dns_port)

    with ServerProcess(pools=pools) as server:
        took = propagate(server, bind9_server.dns_port, "propagated.example.")
    print(f"BIND 9: zone POST -> ACTIVE in {took * 1000:.0f} ms")
