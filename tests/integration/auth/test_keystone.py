"""``auth_strategy = keystone`` against a real Keystone, through the real ``serve`` process."""

from __future__ import annotations

import json
import time
import uuid

import httpx
import pytest

from support.keystone import KeystoneProcess
from support.server import ServerProcess, free_port

pytestmark = pytest.mark.integration

def zone_body(name: str) -> dict[str, str]:
    return {"name": name, "email": "hostmaster@example.org"}


UNAUTHORIZED = {"error": {"code": 401, "title": "Unauthorized",
                          "message": "The request you have made requires authentication."}}


def test_root_needs_no_token(server):
    resp = httpx.get(server.api_url + "/")
    assert resp.status_code == 200
    assert "versions" in resp.json()


def test_no_token_is_401_with_www_authenticate(server, keystone):
    resp = httpx.get(server.api_url + "/v2/zones", headers={"Accept": "application/json"})
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == f'Keystone uri="{keystone.url}"'
    assert resp.headers["content-type"].startswith("application/json")
    assert resp.json() == UNAUTHORIZED
    assert resp.headers["x-openstack-request-id"].startswith("req-")


def test_bad_token_is_401(server):
    resp = httpx.get(server.api_url + "/v2/zones", headers={"X-Auth-Token": "not-a-token"})
    assert resp.status_code == 401
    assert resp.json() == UNAUTHORIZED
    assert "www-authenticate" in resp.headers


def test_identity_headers_from_the_client_are_ignored(server):
    """No token but a forged caller: still 401 (noauth's headers mean nothing here)."""
    resp = httpx.get(server.api_url + "/v2/zones", headers={
        "X-Identity-Status": "Confirmed", "X-Roles": "admin", "X-User-Id": "x",
        "X-Project-Id": "p", "X-Auth-Project-ID": "p"})
    assert resp.status_code == 401
    assert resp.json() == UNAUTHORIZED


def test_member_creates_and_lists_its_zones(server, alice):
    name = f"alice-{uuid.uuid4().hex[:8]}.example.org."
    created = httpx.post(server.api_url + "/v2/zones", headers=alice.headers(),
                         json=zone_body(name))
    assert created.status_code == 202, created.text
    zone = created.json()
    assert zone["project_id"] == alice.project_id
    listed = httpx.get(server.api_url + "/v2/zones", headers=alice.headers())
    assert listed.status_code == 200
    assert name in [z["name"] for z in listed.json()["zones"]]
    shown = httpx.get(f"{server.api_url}/v2/zones/{zone['id']}", headers=alice.headers())
    assert shown.status_code == 200


def test_other_project_gets_404(server, alice, bob):
    name = f"private-{uuid.uuid4().hex[:8]}.example.org."
    zone = httpx.post(server.api_url + "/v2/zones", headers=alice.headers(),
                      json=zone_body(name)).json()
    resp = httpx.get(f"{server.api_url}/v2/zones/{zone['id']}", headers=bob.headers())
    assert resp.status_code == 404
    assert resp.json()["type"] == "zone_not_found"
    listed = httpx.get(server.api_url + "/v2/zones", headers=bob.headers()).json()["zones"]
    assert name not in [z["name"] for z in listed]


def test_reader_cannot_create(server, rita):
    resp = httpx.post(server.api_url + "/v2/zones", headers=rita.headers(),
                      json=zone_body(f"rita-{uuid.uuid4().hex[:8]}.example.org."))
    assert resp.status_code == 403
    assert resp.json()["type"] == "forbidden"
    assert httpx.get(server.api_url + "/v2/zones", headers=rita.headers()).status_code == 200


def test_admin_with_all_projects_sees_every_project(server, alice, bob, adam):
    names = []
    for caller in (alice, bob):
        names.append(f"{caller.name}-all-{uuid.uuid4().hex[:8]}.example.org.")
        assert httpx.post(server.api_url + "/v2/zones", headers=caller.headers(),
                          json=zone_body(names[-1])).status_code == 202
    own = httpx.get(server.api_url + "/v2/zones?limit=1000", headers=adam.headers()).json()
    assert not set(names) & {z["name"] for z in own["zones"]}
    every = httpx.get(server.api_url + "/v2/zones?limit=1000",
                      headers=adam.headers(**{"X-Auth-All-Projects": "true"}))
    assert every.status_code == 200
    assert set(names) <= {z["name"] for z in every.json()["zones"]}


def test_member_with_all_projects_is_403_empty(server, alice):
    resp = httpx.get(server.api_url + "/v2/zones",
                     headers=alice.headers(**{"X-Auth-All-Projects": "true"}))
    assert resp.status_code == 403
    assert resp.content == b""


def test_forged_roles_do_not_raise_privileges(server, alice):
    """X-Roles comes from the token: a member claiming admin is still a member."""
    resp = httpx.get(server.api_url + "/v2/zones", headers=alice.headers(
        **{"X-Roles": "admin", "X-Auth-All-Projects": "true"}))
    assert resp.status_code == 403
    assert resp.content == b""


def test_sudo_refused_for_member_is_403_empty(server, alice, bob):
    resp = httpx.get(server.api_url + "/v2/zones", headers=alice.headers(
        **{"X-Auth-Sudo-Project-ID": bob.project_id}))
    assert resp.status_code == 403
    assert resp.content == b""


def test_revoked_token_is_refused_after_the_cache_time(server, keystone, alice,
                                                        token_cache_time):
    token = keystone.token("alice", project="dns-a")
    headers = {"X-Auth-Token": token, "Accept": "application/json"}
    assert httpx.get(server.api_url + "/v2/zones", headers=headers).status_code == 200
    keystone.revoke(token)
    # still remembered as valid: the cache spares Keystone one call per request
    assert httpx.get(server.api_url + "/v2/zones", headers=headers).status_code == 200
    time.sleep(token_cache_time + 0.5)
    resp = httpx.get(server.api_url + "/v2/zones", headers=headers)
    assert resp.status_code == 401
    assert resp.json() == UNAUTHORIZED


def test_keystone_down_is_503(keystone, alice):
    dead = f"http://127.0.0.1:{free_port()}"
    options = {"service:api": {"auth_strategy": "keystone"},
               "keystone_authtoken": keystone.authtoken_options(
                   auth_url=dead, www_authenticate_uri=dead, http_request_max_retries=0)}
    with ServerProcess(options=options) as srv:
        resp = httpx.get(srv.api_url + "/v2/zones", headers=alice.headers())
        assert resp.status_code == 503
        assert json.loads(resp.text)["title"] == "Service Unavailable"
        plain = httpx.get(srv.api_url + "/v2/zones", headers={"X-Auth-Token": alice.token})
        assert plain.status_code == 503
        assert "The Keystone service is temporarily unavailable." in plain.text
        # without a token there is nothing to ask Keystone: still 401
        no_token = httpx.get(srv.api_url + "/v2/zones")
        assert no_token.status_code == 401 and no_token.json() == UNAUTHORIZED


def test_refused_service_credentials_are_503(keystone: KeystoneProcess, alice):
    options = {"service:api": {"auth_strategy": "keystone"},
               "keystone_authtoken": keystone.authtoken_options(password="wrong")}
    with ServerProcess(options=options) as srv:
        resp = httpx.get(srv.api_url + "/v2/zones", headers=alice.headers())
        assert resp.status_code == 503


def test_keystone_without_auth_url_refuses_to_start():
    options = {"service:api": {"auth_strategy": "keystone"}}
    srv = ServerProcess(options=options, start_timeout=30)
    with pytest.raises(Exception, match="auth_url"):
        srv.start()
