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


async def _zone(client, name: str) -> str:
    created = await client.post("/v2/zones", json={"name": name, "email": "a@example.org"},
                                headers=MEMBER)
    assert created.status_code == 202, created.text
    return created.json()["id"]


async def _add(client, zone_id: str, name: str, *addresses: str) -> int:
    """POST an A recordset; its status code (202, or 413 over a quota)."""
    response = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=MEMBER, json={
        "name": name, "type": "A", "records": list(addresses or ["192.0.2.1"])})
    return response.status_code


async def test_zone_counts_hold_at_the_limit(client):
    """The zone's counts are read only one row past the limit they are checked against
    (``storage.recordsets._capped_count``): the answers at and around the limit are those of
    a whole count, for recordsets and for records, on every database."""
    zone_id = await _zone(client, "count.example.")
    # The zone holds its SOA and NS recordsets: two of zone_recordsets, none of zone_records.
    await client.patch("/v2/quotas/quota-p", json={"zone_recordsets": 5, "zone_records": 4},
                       headers=ADMIN_ALL)
    assert [await _add(client, zone_id, f"r{i}.count.example.") for i in range(3)] == [202] * 3
    over = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=MEMBER, json={
        "name": "r3.count.example.", "type": "A", "records": ["192.0.2.1"]})
    assert over.status_code == 413
    assert over.json()["message"] == "Quota exceeded for zone_recordsets."
    await client.patch("/v2/quotas/quota-p", json={"zone_recordsets": 100}, headers=ADMIN_ALL)
    assert await _add(client, zone_id, "two.count.example.", "192.0.2.1", "192.0.2.2") == 413
    assert await _add(client, zone_id, "one.count.example.") == 202  # 4 of 4 records
    assert await _add(client, zone_id, "more.count.example.") == 413


async def test_zone_counts_follow_the_stored_limit_above_the_default(client, conf):
    """A project's stored limit above the configured one: the count reads past the default."""
    conf.set_override("quota_zone_records", 1)
    try:
        zone_id = await _zone(client, "above.example.")
        assert await _add(client, zone_id, "a.above.example.") == 202
        assert await _add(client, zone_id, "b.above.example.") == 413
        await client.patch("/v2/quotas/quota-p", json={"zone_records": 3}, headers=ADMIN_ALL)
        assert [await _add(client, zone_id, f"{n}.above.example.") for n in "bcd"] == \
            [202, 202, 413]
        await client.patch("/v2/quotas/quota-p", json={"zone_records": -1}, headers=ADMIN_ALL)
        assert [await _add(client, zone_id, f"u{i}.above.example.") for i in range(5)] == \
            [202] * 5
    finally:
        conf.clear_override("quota_zone_records")


async def test_zone_counts_ignore_stored_limits_without_the_storage_driver(client, conf):
    """``quota_driver = noop``: the configured limit counts, a stored one does not."""
    await client.patch("/v2/quotas/quota-p", json={"zone_records": 10}, headers=ADMIN_ALL)
    conf.set_override("quota_driver", "noop")
    conf.set_override("quota_zone_records", 2)
    try:
        zone_id = await _zone(client, "noop.example.")
        assert [await _add(client, zone_id, f"{n}.noop.example.") for n in "abc"] == \
            [202, 202, 413]
    finally:
        conf.clear_override("quota_driver")
        conf.clear_override("quota_zone_records")


async def test_recordset_update_counts_hold_at_the_limit(client):
    """A PUT that adds records: the zone's other records are counted up to one past the limit."""
    zone_id = await _zone(client, "put.example.")
    await client.patch("/v2/quotas/quota-p", json={"zone_records": 3}, headers=ADMIN_ALL)
    assert await _add(client, zone_id, "a.put.example.") == 202
    created = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=MEMBER, json={
        "name": "b.put.example.", "type": "A", "records": ["192.0.2.1"]})
    path = f"/v2/zones/{zone_id}/recordsets/{created.json()['id']}"
    two = await client.put(path, headers=MEMBER, json={"records": ["192.0.2.1", "192.0.2.2"]})
    assert two.status_code == 202, two.text  # 1 + 2 of 3
    three = await client.put(path, headers=MEMBER,
                             json={"records": ["192.0.2.1", "192.0.2.2", "192.0.2.3"]})
    assert three.status_code == 413
    assert three.json()["message"] == "Quota exceeded for zone_records."


async def test_zone_count_follows_the_project_limit_above_the_default(client, conf):
    """A zone create counts the project's zones only as far as its limit can tell: a stored
    limit above the configured one, then unlimited, then the storage driver off."""
    conf.set_override("quota_zones", 1)
    try:
        made = [(await client.post("/v2/zones", headers=MEMBER, json={
            "name": f"z{i}.limit.example.", "email": "a@example.org"})).status_code
            for i in range(2)]
        assert made == [202, 413]
        await client.patch("/v2/quotas/quota-p", json={"zones": 3}, headers=ADMIN_ALL)
        made = [(await client.post("/v2/zones", headers=MEMBER, json={
            "name": f"y{i}.limit.example.", "email": "a@example.org"})).status_code
            for i in range(3)]
        assert made == [202, 202, 413]
        await client.patch("/v2/quotas/quota-p", json={"zones": -1}, headers=ADMIN_ALL)
        assert (await client.post("/v2/zones", headers=MEMBER, json={
            "name": "x.limit.example.", "email": "a@example.org"})).status_code == 202
        conf.set_override("quota_driver", "noop")
        refused = await client.post("/v2/zones", headers=MEMBER, json={
            "name": "w.limit.example.", "email": "a@example.org"})
        assert refused.status_code == 413
        assert refused.json()["message"] == "Quota exceeded for zones."
    finally:
        conf.clear_override("quota_zones")
        conf.clear_override("quota_driver")
