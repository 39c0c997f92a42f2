"""Zones over the v2 API on every database engine."""

from __future__ import annotations

from conftest import project

A = project("proj-a")
B = project("proj-b")
ADMIN = project("proj-admin", "admin")


async def create(client, name: str, headers=A, **extra):
    body = {"name": name, "email": "hostmaster@example.org", **extra}
    return await client.post("/v2/zones", json=body, headers=headers)


async def test_create_answers_202_pending_with_location(client):
    response = await create(client, "example.org.", ttl=300, description="d")
    assert response.status_code == 202
    zone = response.json()
    assert zone["status"] == "PENDING" and zone["action"] == "CREATE"
    assert zone["ttl"] == 300 and zone["description"] == "d" and zone["type"] == "PRIMARY"
    assert zone["pool_id"] == "794ccc2c-d751-44fe-b57f-8894c9f5c842"
    assert response.headers["location"] == zone["links"]["self"]
    assert list(zone)[:4] == ["id", "pool_id", "project_id", "name"]


async def test_managed_soa_and_ns_exist_with_the_zone(client):
    zone = (await create(client, "managed.example.")).json()
    listing = (await client.get(f"/v2/zones/{zone['id']}/recordsets?sort_key=type",
                                headers=A)).json()
    types = [(r["type"], r["records"]) for r in listing["recordsets"]]
    assert types[0] == ("NS", ["ns1.example.net."])
    soa = types[1][1][0].split()
    assert types[1][0] == "SOA" and soa[0] == "ns1.example.net." and soa[1] == "hostmaster.example.org."


async def test_duplicate_and_cross_project_ownership(client):
    await create(client, "owned.example.")
    same = await create(client, "OWNED.example.")
    assert same.status_code == 409 and same.json()["message"] == "Duplicate Zone"
    other = await create(client, "owned.example.", headers=B)
    assert other.json()["message"] == "Zone already exists, owned by a different tenant"
    child = await create(client, "sub.owned.example.", headers=B)
    assert child.status_code == 403 and child.json()["type"] == "illegal_child"
    await create(client, "deep.parent.example.", headers=B)
    parent = await create(client, "parent.example.")
    assert parent.status_code == 403 and parent.json()["type"] == "illegal_parent"


async def test_validation_messages(client):
    cases = {
        "nodot.example": "Domain nodot.example does not end with a dot",
        "bad name.example.": "Domain bad name.example. is invalid",
        "a" * 64 + ".example.": "Host " + "a" * 64 + " is too long",
    }
    for name, detail in cases.items():
        body = (await create(client, name)).json()
        assert body["message"] == f"Provided object is not valid. Got a ValueError error with message {detail}"
    single = (await create(client, "single.")).json()
    assert single == {"code": 400, "type": "invalid_zone_name",
                      "message": "More than one label is required",
                      "request_id": single["request_id"]}
    missing = (await client.post("/v2/zones", json={"name": "x.example."}, headers=A)).json()
    assert missing["errors"] == {"errors": [{"path": ["type", "email"],
                                             "message": "'email' is a required property",
                                             "validator": "required",
                                             "validator_value": "email"}]}
    unknown = (await create(client, "u.example.", colour="red")).json()
    assert unknown["message"] == ("Provided object does not match schema. Keys ['colour'] are "
                                  "not valid for zone")


async def test_other_project_sees_404_and_admin_all_projects_sees_it(client):
    zone = (await create(client, "private.example.")).json()
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=B)).status_code == 404
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=ADMIN)).status_code == 404
    seen = await client.get(f"/v2/zones/{zone['id']}",
                            headers={**ADMIN, "X-Auth-All-Projects": "true"})
    assert seen.status_code == 200 and seen.json()["project_id"] == "proj-a"
    refused = await client.get("/v2/zones", headers={**B, "X-Auth-All-Projects": "true"})
    assert refused.status_code == 403 and "message" not in refused.json()


async def test_patch_and_delete(client):
    zone = (await create(client, "change.example.")).json()
    patched = await client.patch(f"/v2/zones/{zone['id']}", json={"ttl": 600}, headers=A)
    assert patched.status_code == 202 and patched.json()["ttl"] == 600
    renamed = await client.patch(f"/v2/zones/{zone['id']}", json={"name": "x.example."}, headers=A)
    assert renamed.status_code == 400
    deleted = await client.delete(f"/v2/zones/{zone['id']}", headers=A)
    assert deleted.status_code == 202 and deleted.json()["action"] == "DELETE"
    again = await client.patch(f"/v2/zones/{zone['id']}", json={"ttl": 60}, headers=A)
    assert again.json()["message"] == "Can not update a deleting zone"


async def test_parent_with_subzone_cannot_be_deleted(client):
    parent = (await create(client, "top.example.")).json()
    await create(client, "sub.top.example.")
    refused = await client.delete(f"/v2/zones/{parent['id']}", headers=A)
    assert refused.status_code == 400 and refused.json()["type"] == "zone_has_sub_zone"


async def test_quota_413(client, conf):
    conf.set_override("quota_zones", 1)
    assert (await create(client, "one.example.")).status_code == 202
    over = await create(client, "two.example.")
    assert over.status_code == 413
    assert over.json()["message"] == "Quota exceeded for zones."


async def test_nameservers(client):
    zone = (await create(client, "ns.example.")).json()
    body = (await client.get(f"/v2/zones/{zone['id']}/nameservers", headers=A)).json()
    assert body == {"nameservers": [{"hostname": "ns1.example.net.", "priority": 1}]}
