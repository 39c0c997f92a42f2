"""The keystone strategy in-process (ASGI) against the real Keystone: what the caller becomes,
how often Keystone is asked, service token renewal, maintenance mode with token roles."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from openkeel_designate import config
from openkeel_designate.api.app import create_app
from openkeel_designate.api.auth.keystone import KeystoneAuth
from openkeel_designate.central import pools
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.storage import migrate
from openkeel_designate.storage.database import Database
from support.keystone import KeystoneProcess

UNAUTHORIZED = {"error": {"code": 401, "title": "Unauthorized",
                          "message": "The request you have made requires authentication."}}

pytestmark = pytest.mark.integration


def _conf(keystone: KeystoneProcess, state_path: Path, **overrides: Any):
    conf = config.load([])
    conf.set_override("state_path", str(state_path))
    conf.set_override("auth_strategy", "keystone", group="service:api")
    for name, value in keystone.authtoken_options(**overrides).items():
        if name == "memcached_servers":
            value = [value]
        conf.set_override(name, value, group="keystone_authtoken")
    return conf


@pytest.fixture
async def services(keystone, tmp_path) -> AsyncIterator[Services]:
    conf = _conf(keystone, tmp_path)
    url = f"sqlite:///{conf.state_path}/designate.sqlite"
    migrate.upgrade(url)
    db = Database(url)
    svc = Services(conf=conf, db=db, policy=Policy(conf))
    await pools.ensure_default_pool(svc)
    yield svc
    await db.dispose()


@pytest.fixture
async def api(services) -> AsyncIterator[tuple[httpx.AsyncClient, KeystoneAuth]]:
    app = create_app(services)
    auth = app.state.auth
    assert isinstance(auth, KeystoneAuth)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        yield http, auth
    await auth.aclose()


def _count_validations(auth: KeystoneAuth) -> list[str]:
    calls: list[str] = []
    original = auth.client.validate

    async def counting(token: str):
        calls.append(token)
        return await original(token)

    auth.client.validate = counting  # type: ignore[method-assign]
    return calls


def _scope(token: str | None, **headers: str) -> dict[str, Any]:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    if token is not None:
        raw.append((b"x-auth-token", token.encode()))
    return {"type": "http", "method": "GET", "path": "/v2/zones", "headers": raw}


async def test_the_caller_comes_from_the_token(api, alice):
    _, auth = api
    scope = _scope(alice.token, **{"X-Roles": "admin", "X-Project-Id": "forged"})
    assert await auth.authenticate(scope) is None
    who = scope["state"]["keystone_identity"]
    assert who.project_id == alice.project_id
    assert who.user_id and who.auth_token == alice.token
    assert sorted(who.roles) == ["member", "reader"]
    assert who.system_scope is None
    identity = [s for s in who.service_catalog if s["type"] == "identity"]
    assert identity and identity[0]["endpoints"][0]["region"] == "RegionOne"
    assert identity[0]["endpoints"][0]["publicURL"].startswith("http://127.0.0.1:")
    headers = {k.decode(): v.decode() for k, v in scope["headers"]}
    assert headers["x-roles"] in ("member,reader", "reader,member")
    assert headers["x-project-id"] == alice.project_id
    assert headers["x-identity-status"] == "Confirmed"


async def test_system_scope(api, keystone):
    _, auth = api
    scope = _scope(keystone.token("admin", "secret", system=True))
    assert await auth.authenticate(scope) is None
    who = scope["state"]["keystone_identity"]
    assert who.system_scope == "all"
    assert who.project_id is None
    assert "admin" in who.roles


async def test_keystone_is_asked_once_per_token(api, alice):
    http, auth = api
    calls = _count_validations(auth)
    results = await asyncio.gather(*[http.get("/v2/zones", headers={"X-Auth-Token": alice.token})
                                     for _ in range(10)])
    assert {r.status_code for r in results} == {200}
    assert calls == [alice.token]
    assert (await http.get("/v2/zones", headers={"X-Auth-Token": alice.token})).status_code == 200
    assert len(calls) == 1


async def test_invalid_tokens_are_remembered_too(api):
    http, auth = api
    calls = _count_validations(auth)
    for _ in range(3):
        resp = await http.get("/v2/zones", headers={"X-Auth-Token": "gAAAAAnot-a-real-token"})
        assert resp.status_code == 401 and resp.json() == UNAUTHORIZED
    assert len(calls) == 1


async def test_a_rejected_service_token_is_renewed(api, keystone, alice, bob):
    http, auth = api
    assert (await http.get("/v2/zones", headers={"X-Auth-Token": alice.token})).status_code == 200
    first = auth.client._service_token
    assert first is not None
    keystone.revoke(first)
    assert (await http.get("/v2/zones", headers={"X-Auth-Token": bob.token})).status_code == 200
    assert auth.client._service_token not in (None, first)


async def test_a_service_token_near_expiry_is_renewed(api, alice, bob):
    http, auth = api
    assert (await http.get("/v2/zones", headers={"X-Auth-Token": alice.token})).status_code == 200
    first = auth.client._service_token
    auth.client._service_expiry = 0.0
    assert (await http.get("/v2/zones", headers={"X-Auth-Token": bob.token})).status_code == 200
    assert auth.client._service_token != first


async def test_maintenance_mode_reads_the_token_roles(services, alice, adam):
    services.conf.set_override("maintenance_mode", True, group="service:api")
    app = create_app(services)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://api.test") as http:
        member = await http.get("/v2/zones", headers={"X-Auth-Token": alice.token,
                                                      "X-Roles": "admin"})
        assert member.status_code == 503 and member.content == b""
        admin = await http.get("/v2/zones", headers={"X-Auth-Token": adam.token})
        assert admin.status_code == 200
        no_token = await http.get("/v2/zones")
        assert no_token.status_code == 401 and no_token.json() == UNAUTHORIZED
    await app.state.auth.aclose()


async def test_noauth_stays_the_default(tmp_path):
    from openkeel_designate.api.auth.noauth import NoAuth

    conf = config.load([])
    assert conf["service:api"].auth_strategy == "noauth"
    assert conf.keystone_authtoken.token_cache_time == 300
    from openkeel_designate.api.auth import make_authenticator

    assert isinstance(make_authenticator(conf), NoAuth)


MISSING_PROJECT = "0f0e0d0c0b0a49088706050403020100"


async def _zone(http: httpx.AsyncClient, caller, name: str) -> str:
    response = await http.post("/v2/zones", headers=caller.headers(),
                               json={"name": name, "email": "h@ks.example"})
    assert response.status_code == 202, response.text
    return response.json()["id"]


async def test_share_target_is_checked_with_keystone(api, alice, bob, adam):
    """Keystone is asked with the caller's token: only its 404 refuses the share."""
    http, _ = api
    zone_id = await _zone(http, alice, "share-check.example.")
    shared = await http.post(f"/v2/zones/{zone_id}/shares", headers=alice.headers(),
                             json={"target_project_id": bob.project_id})
    assert shared.status_code == 201, shared.text
    # A member may not look projects up (Keystone: 403): Designate then lets the share through.
    unseen = await http.post(f"/v2/zones/{zone_id}/shares", headers=alice.headers(),
                             json={"target_project_id": MISSING_PROJECT})
    assert unseen.status_code == 201, unseen.text
    # An admin's token can see that the project does not exist.
    admin_zone = await _zone(http, adam, "share-check-admin.example.")
    refused = await http.post(f"/v2/zones/{admin_zone}/shares", headers=adam.headers(),
                              json={"target_project_id": MISSING_PROJECT})
    assert refused.status_code == 400
    body = refused.json()
    assert (body["type"], body["message"]) == ("invalid_project",
                                               f"{MISSING_PROJECT} is not a valid project ID.")
    no_target = await http.post(f"/v2/zones/{admin_zone}/shares", headers=adam.headers(),
                                json={})
    assert no_target.status_code == 400
    assert no_target.json()["message"] == "None is not a valid project ID."


async def test_quota_project_is_checked_when_asked(services, adam, bob):
    services.conf.set_override("quotas_verify_project_id", True, group="service:api")
    app = create_app(services)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://api.test") as http:
        refused = await http.patch(f"/v2/quotas/{MISSING_PROJECT}", headers=adam.headers(),
                                   json={"zones": 5})
        assert refused.status_code == 400 and refused.json()["type"] == "invalid_project"
        accepted = await http.patch(f"/v2/quotas/{bob.project_id}", json={"zones": 5},
                                    headers=adam.headers(**{"X-Auth-All-Projects": "true"}))
        assert accepted.status_code == 200 and accepted.json()["zones"] == 5
    await app.state.auth.aclose()


async def test_no_identity_endpoint_in_the_catalog_is_a_504(services, adam):
    services.conf.set_override("include_service_catalog", False, group="keystone_authtoken")
    app = create_app(services)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://api.test") as http:
        zone_id = await _zone(http, adam, "no-catalog.example.")
        response = await http.post(f"/v2/zones/{zone_id}/shares", headers=adam.headers(),
                                   json={"target_project_id": MISSING_PROJECT})
        assert response.status_code == 504
        assert response.json()["type"] == "keystone_communication_failure"
    await app.state.auth.aclose()
