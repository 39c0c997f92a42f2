"""The pdns4 driver against a real PowerDNS: its API calls directly, then a full propagation."""

from __future__ import annotations

import httpx
import pytest

from openkeel_designate.backends import backend_for
from openkeel_designate.backends.base import (
    PermanentBackendError,
    Target,
    TransientBackendError,
    ZoneRef,
)
from support.pdns import PdnsServer
from support.server import ServerProcess, free_port

pytestmark = pytest.mark.integration
MDNS = ("127.0.0.1", 5354)


def target(pdns: PdnsServer, **options: object) -> Target:
    base = {"api_endpoint": pdns.api_url + "/ignored/path", "api_token": pdns.api_key,
            "host": "127.0.0.1", "port": pdns.dns_port}
    return Target(id="t1", type="pdns4", masters=(MDNS, ("::1", 5355)), options={**base, **options})


def pdns_zone(pdns: PdnsServer, name: str) -> dict | None:
    """The zone as PowerDNS's own API reports it, None when absent."""
    response = httpx.get(f"{pdns.api_url}/api/v1/servers/localhost/zones/{name}",
                         headers={"X-API-Key": pdns.api_key}, timeout=5)
    if response.status_code == 404:
        return None
    response.raise_for_status()
    return response.json()


async def test_create_makes_a_slave_zone_pulling_from_the_masters(pdns_server) -> None:
    await backend_for(target(pdns_server)).create_zone(ZoneRef("z1", "create.example."))
    zone = pdns_zone(pdns_server, "create.example.")
    assert zone["kind"] == "Slave"
    assert zone["masters"] == ["127.0.0.1:5354", "[::1]:5355"]


async def test_create_twice_replaces_the_zone(pdns_server) -> None:
    backend = backend_for(target(pdns_server))
    ref = ZoneRef("z2", "twice.example.")
    await backend.create_zone(ref)
    await backend.create_zone(ref)
    assert pdns_zone(pdns_server, "twice.example.")["kind"] == "Slave"


async def test_update_opted_out_of_axfr_retrieve_makes_no_api_call(pdns_server) -> None:
    await backend_for(target(pdns_server, axfr_retrieve=False)).update_zone(
        ZoneRef("z3", "never-created.example."))
    assert pdns_zone(pdns_server, "never-created.example.") is None


@pytest.mark.parametrize("hard", [False, True])
async def test_delete_removes_and_tolerates_absence(pdns_server, hard: bool) -> None:
    backend = backend_for(target(pdns_server))
    ref = ZoneRef("z4", f"delete-{hard}.example.".lower())
    await backend.create_zone(ref)
    await backend.delete_zone(ref, hard_delete=hard)
    assert pdns_zone(pdns_server, ref.name) is None
    await backend.delete_zone(ref, hard_delete=hard)


async def test_create_with_tsig_key(pdns_server) -> None:
    key = httpx.post(f"{pdns_server.api_url}/api/v1/servers/localhost/tsigkeys",
                     headers={"X-API-Key": pdns_server.api_key}, timeout=5,
                     json={"name": "pool-key", "algorithm": "hmac-sha256"})
    assert key.status_code == 201, key.text
    await backend_for(target(pdns_server, tsigkey_name="pool-key")).create_zone(
        ZoneRef("z5", "tsig.example."))
    assert pdns_zone(pdns_server, "tsig.example.")["slave_tsig_key_ids"] == ["pool-key."]


async def test_wrong_token_is_permanent(pdns_server) -> None:
    with pytest.raises(PermanentBackendError, match="401"):
        await backend_for(target(pdns_server, api_token="wrong")).create_zone(
            ZoneRef("z6", "denied.example."))


async def test_rejected_create_is_permanent_and_leaves_nothing(pdns_server) -> None:
    with pytest.raises(PermanentBackendError, match="422"):
        await backend_for(target(pdns_server, tsigkey_name="no-such-key")).create_zone(
            ZoneRef("z7", "rejected.example."))
    assert pdns_zone(pdns_server, "rejected.example.") is None


@pytest.mark.parametrize("endpoint", ["127.0.0.1:8081", "localhost:8081", "ftp://h:1"])
def test_endpoint_without_http_scheme_is_permanent(endpoint: str) -> None:
    with pytest.raises(PermanentBackendError, match="api_endpoint"):
        backend_for(Target(id="t3", type="pdns4", options={"api_endpoint": endpoint}))


@pytest.mark.parametrize("operation", ["create", "delete"])
async def test_server_down_is_transient(operation: str) -> None:
    down = Target(id="t2", type="pdns4", masters=(MDNS,), options={
        "api_endpoint": f"http://127.0.0.1:{free_port()}", "api_token": "x", "api_timeout": 2})
    backend = backend_for(down)
    ref = ZoneRef("z8", "down.example.")
    with pytest.raises(TransientBackendError):
        if operation == "create":
            await backend.create_zone(ref)
        else:
            await backend.delete_zone(ref)


async def test_axfr_retrieve_is_the_default_and_best_effort(pdns_server) -> None:
    backend = backend_for(target(pdns_server))
    await backend.update_zone(ZoneRef("z9", "not-there.example."))
    ref = ZoneRef("z10", "retrieve.example.")
    await backend.create_zone(ref)
    await backend.update_zone(ref)
    assert pdns_zone(pdns_server, ref.name)["kind"] == "Slave"


@pytest.mark.parametrize("axfr_retrieve", [False, True])
def test_zone_propagates_to_powerdns(pdns_server, make_pool_yaml, propagate,
                                     axfr_retrieve: bool) -> None:
    options = {"api_endpoint": pdns_server.api_url, "api_token": pdns_server.api_key,
               "host": "127.0.0.1", "port": pdns_server.dns_port, "axfr_retrieve": axfr_retrieve}

    def pools(server: ServerProcess) -> str:
        return make_pool_yaml(server, "pdns4", options, pdns_server.dns_port)

    with ServerProcess(pools=pools) as server:
        name = f"propagated-{axfr_retrieve}.example.".lower()
        took = propagate(server, pdns_server.dns_port, name)
    print(f"PowerDNS (axfr_retrieve={axfr_retrieve}): zone POST -> ACTIVE in {took * 1000:.0f} ms")
