"""Quotas over the v2 API on every database engine: read, set per resource, reset."""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_forbidden

MEMBER = project("quota-p")
ADMIN_ALL = {**project("quota-admin", "admin"), "X-Auth-All-Projects": "true"}
ADMIN = project("quota-admin", "admin")
INVALID = "Provided object is not valid. Got a ValueError error with message "
DEFAULTS = {"zones": 1000, "zone_recordsets": 500, "zone_records": 500, "recordset_records": 20,
            "api_export_size": 1000}


async def test_read_own_and_others(client):
    own = await client.get("/v2/quotas", headers=MEMBER)
    assert own.status_code == 200 and own.json() == DEFAULTS and list(own.json()) == list(DEFAULTS)
    assert (await client.get("/v2/quotas/quota-p", headers=MEMBER)).json() == DEFAULTS
    assert_forbidden(await client.get("/v2/quotas/someone-else", headers=MEMBER))
    assert_forbidden(await client.get("/v2/quotas/quota-p", headers=ADMIN))
    assert (await client.get("/v2/quotas/quota-p", headers=ADMIN_ALL)).json() == DEFAULTS


async def test_set_and_reset(client):
    response = await client.patch("/v2/quotas/quota-p", json={"zones": 1, "zone_recordsets": 5},
                                  headers=ADMIN_ALL)
    assert response.status_code == 200
    assert response.json() == {**DEFAULTS, "zones": 1, "zone_recordsets": 5}
    assert (await client.get("/v2/quotas", headers=MEMBER)).json()["zones"] == 1
    limits = (await client.get("/v2/limits", headers=MEMBER)).json()
    assert limits["max_zones"] == 1 and limits["max_zone_recordsets"] == 5
    unlimited = await client.patch("/v2/quotas/quota-p", json={"zones": -1}, headers=ADMIN_ALL)
    assert unlimited.json()["zones"] == -1
    unchanged = await client.patch("/v2/quotas/quota-p", json={}, headers=ADMIN_ALL)
    assert unchanged.json()["zone_recordsets"] == 5
    reset = await client.delete("/v2/quotas/quota-p", headers=ADMIN_ALL)
    assert reset.status_code == 204 and reset.content == b""
    assert (await client.get("/v2/quotas", headers=MEMBER)).json() == DEFAULTS


async def test_quota_is_enforced(client):
    await client.patch("/v2/quotas/quota-p", json={"zones": 1, "zone_recordsets": 3},
                       headers=ADMIN_ALL)
    zone = {"email": "a@example.org"}
    first = (await client.post("/v2/zones", json={"name": "q1.example.", **zone},
                               headers=MEMBER)).json()
    over = await client.post("/v2/zones", json={"name": "q2.example.", **zone}, headers=MEMBER)
    assert over.status_code == 413 and over.json()["message"] == "Quota exceeded for zones."
    await client.patch("/v2/quotas/quota-p", json={"recordset_records": 1}, headers=ADMIN_ALL)
    records = {"name": "a.q1.example.", "type": "A", "records": ["192.0.2.1"]}
    assert (await client.post(f"/v2/zones/{first['id']}/recordsets", json=records,
                              headers=MEMBER)).status_code == 202
    too_many = await client.post(f"/v2/zones/{first['id']}/recordsets",
                                 json={**records, "name": "b.q1.example.",
                                       "records": ["192.0.2.1", "192.0.2.2"]}, headers=MEMBER)
    assert too_many.json()["message"] == "Quota exceeded for zone_recordsets."


async def test_set_errors(client):
    cases = {
        "colour": (1, "Field value colour is invalid"),
        "zones": ("ten", "invalid literal for int() with base 10: 'ten'"),
    }
    for resource, (value, detail) in cases.items():
        body = (await client.patch("/v2/quotas/quota-p", json={resource: value},
                                   headers=ADMIN_ALL)).json()
        assert body["code"] == 400 and body["message"] == INVALID + detail
    huge = (await client.patch("/v2/quotas/quota-p", json={"zones": 2147483648},
                               headers=ADMIN_ALL)).json()
    assert huge["message"] == INVALID + "Value too high for hard_limit"
    low = (await client.patch("/v2/quotas/quota-p", json={"zones": -2}, headers=ADMIN_ALL)).json()
    assert low["message"] == INVALID + "Value must be >= -1 for field hard_limit"
    null = await client.patch("/v2/quotas/quota-p", json={"zones": None}, headers=ADMIN_ALL)
    assert null.status_code == 500 and null.json()["type"] == "unknown"  # as Designate
    listed = (await client.patch("/v2/quotas/quota-p", json={"zones": []},
                                 headers=ADMIN_ALL)).json()
    assert listed["message"] == ("Provided object is not valid. Got a TypeError with message "
                                 "int() argument must be a string, a bytes-like object or a real "
                                 "number, not 'list'")
    assert_forbidden(await client.patch("/v2/quotas/quota-p", json={"zones": 100}, headers=MEMBER))
    assert_forbidden(await client.patch("/v2/quotas/quota-p", json={"zones": 3}, headers=ADMIN))
    no_project = await client.patch("/v2/quotas/quota-p", json={"zones": 3},
                                    headers={"X-Auth-Project-ID": "", "X-Roles": "admin"})
    assert no_project.status_code == 401 and no_project.json()["type"] == "missing_project_id"
    assert_forbidden(await client.delete("/v2/quotas/quota-p", headers=MEMBER))
    # Designate's reset_quotas checks the policy only: no all-projects header needed
    assert (await client.delete("/v2/quotas/quota-p", headers=ADMIN)).status_code == 204
    empty = await client.patch("/v2/quotas/quota-p", content=b"",
                               headers={**ADMIN_ALL, "Content-Type": "application/json"})
    assert empty.json()["type"] == "empty_request_body"
