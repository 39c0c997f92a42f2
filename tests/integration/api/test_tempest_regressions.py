"""Behaviour the designate-tempest-plugin API suite checks, pinned where we once differed.

Each test names the tempest test it stands for; the expected answers come from Designate
23.0.0's source (adapters, central) since the plugin passes against it.
"""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_forbidden

ADMIN = project("tempest-admin", "admin")
NS = [{"hostname": "ns1.example.org.", "priority": 1}]


async def test_pool_create_accepts_project_id(client):
    """test_pool.PoolAdminTest.test_create_pool: project_id is immutable, not read-only."""
    created = await client.post("/v2/pools", json={"name": "Example Pool", "project_id": "1",
                                                   "ns_records": NS}, headers=ADMIN)
    assert created.status_code == 201, created.json()
    assert created.json()["project_id"] == "1"
    pool_id = created.json()["id"]
    shown = (await client.get(f"/v2/pools/{pool_id}", headers=ADMIN)).json()
    assert shown["project_id"] == "1"
    same = await client.patch(f"/v2/pools/{pool_id}", json={"project_id": "1"}, headers=ADMIN)
    assert same.status_code == 202
    changed = await client.patch(f"/v2/pools/{pool_id}", json={"project_id": "2"}, headers=ADMIN)
    assert changed.status_code == 400
    assert "Keys ['project_id'] are not valid for pool" in changed.json()["message"]


async def test_pool_create_without_project_id_takes_the_callers(client):
    created = await client.post("/v2/pools", json={"name": "own", "ns_records": NS},
                                headers=ADMIN)
    assert created.status_code == 201 and created.json()["project_id"] == "tempest-admin"


async def test_admin_resets_other_projects_quotas_without_all_projects(client):
    """test_quotas.QuotasV2TestNegative.test_admin_sets_quota_for_a_project (its cleanup)."""
    every = {**ADMIN, "X-Auth-All-Projects": "true"}
    assert (await client.patch("/v2/quotas/other-p", json={"zones": 7},
                               headers=every)).status_code == 200
    assert (await client.delete("/v2/quotas/other-p", headers=ADMIN)).status_code == 204
    assert (await client.get("/v2/quotas/other-p", headers=every)).json()["zones"] == 1000
    assert_forbidden(await client.delete("/v2/quotas/other-p", headers=project("other-p")))


async def test_soa_update_with_unparsable_body_is_bad_request(client):
    """test_recordset.AdminManagedRecordsetTest.test_admin_updates_soa_and_ns_recordsets.

    The SOA/NS refusal comes before the body is parsed: a new ``name`` (immutable) must not
    turn it into ``invalid_object``.
    """
    owner = project("tempest-soa")
    zone = (await client.post("/v2/zones", json={"name": "soa.example.", "email": "a@example.org"},
                              headers=owner)).json()
    every = {**ADMIN, "X-Auth-All-Projects": "true", "X-Designate-Edit-Managed-Records": "true"}
    listed = (await client.get(f"/v2/zones/{zone['id']}/recordsets", headers=every)).json()
    for rs in listed["recordsets"]:
        body = {"type": rs["type"], "name": f"{rs['type']}-x.soa.example.", "ttl": 300,
                "records": ["ns9.example.org."]}
        answer = await client.put(f"/v2/zones/{zone['id']}/recordsets/{rs['id']}", json=body,
                                  headers=every)
        assert answer.status_code == 400 and answer.json()["type"] == "bad_request", answer.json()


async def test_transfer_request_with_null_body(client):
    """test_transfer_request.TransferRequestTest.test_create_transfer_request_empty_body."""
    owner = project("tempest-xfer")
    zone = (await client.post("/v2/zones", json={"name": "xfer.example.",
                                                 "email": "a@example.org"}, headers=owner)).json()
    created = await client.post(f"/v2/zones/{zone['id']}/tasks/transfer_requests",
                                content=b"null",
                                headers={**owner, "Content-Type": "application/json"})
    assert created.status_code == 201, created.json()
    assert created.json()["status"] == "ACTIVE"


async def test_apex_ns_update_with_a_list_body_is_bad_request(client):
    """Same tempest test, NS branch: it PUTs a JSON *list*; the apex-NS refusal still wins."""
    owner = project("tempest-ns")
    zone = (await client.post("/v2/zones", json={"name": "nsl.example.", "email": "a@example.org"},
                              headers=owner)).json()
    every = {**ADMIN, "X-Auth-All-Projects": "true", "X-Designate-Edit-Managed-Records": "true"}
    listed = (await client.get(f"/v2/zones/{zone['id']}/recordsets?type=NS", headers=every)).json()
    ns_id = listed["recordsets"][0]["id"]
    answer = await client.put(f"/v2/zones/{zone['id']}/recordsets/{ns_id}", headers=every,
                              json=[{"hostname": "ns1.example.org.", "priority": 1}])
    assert answer.status_code == 400 and answer.json()["type"] == "bad_request", answer.json()
    answer = await client.put(f"/v2/zones/{zone['id']}/recordsets/{ns_id}", content=b"[1",
                              headers={**every, "Content-Type": "application/json"})
    assert answer.status_code == 400 and answer.json()["type"] == "invalid_json"
