"""Zones over the v2 API on every database engine."""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_error, assert_forbidden

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
    for headers in (B, ADMIN):
        assert_error(await client.get(f"/v2/zones/{zone['id']}", headers=headers), 404,
                     "zone_not_found", "Could not find Zone")
    seen = await client.get(f"/v2/zones/{zone['id']}",
                            headers={**ADMIN, "X-Auth-All-Projects": "true"})
    assert seen.status_code == 200 and seen.json()["project_id"] == "proj-a"
    refused = await client.get("/v2/zones", headers={**B, "X-Auth-All-Projects": "true"})
    assert_forbidden(refused)


async def test_patch_and_delete(client):
    zone = (await create(client, "change.example.")).json()
    patched = await client.patch(f"/v2/zones/{zone['id']}", json={"ttl": 600}, headers=A)
    assert patched.status_code == 202 and patched.json()["ttl"] == 600
    renamed = await client.patch(f"/v2/zones/{zone['id']}", json={"name": "x.example."}, headers=A)
    assert_error(renamed, 400, "invalid_object",
                 "Provided object does not match schema. Keys ['name'] are not valid for zone")
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


# --- found by the differential harness (tests/differential) ------------------------------------
ADMIN_A = project("proj-a", "admin")


def _secondary(name: str, masters: object) -> dict:
    return {"name": name, "type": "SECONDARY", "masters": masters}


async def test_secondary_masters_as_designate_reads_them(client):
    """First-colon split: a non-numeric rest keeps the whole entry as host, port 53."""
    accepted = {"[2001:db8::1]:53": "[2001:db8::1]:53", "2001:db8::1": "2001:db8::1",
                "192.0.2.1:abc": "192.0.2.1:abc", "192.0.2.1:53": "192.0.2.1",
                "192.0.2.1:5353": "192.0.2.1:5353"}
    for i, (entry, shown) in enumerate(accepted.items()):
        response = await client.post("/v2/zones", json=_secondary(f"m{i}.example.", [entry]),
                                     headers=A)
        assert response.status_code == 202, (entry, response.text)
        assert response.json()["masters"] == [shown]
        listed = await client.get(f"/v2/zones/{response.json()['id']}", headers=A)
        assert listed.json()["masters"] == [shown]


async def test_secondary_masters_refused_as_designate(client):
    prefix = "Provided object is not valid. Got "
    cases = [
        (["192.0.2.1:99999"], 400, prefix + "a ValueError error with message Value too high for port"),
        (["192.0.2.1:0"], 400, prefix + "a ValueError error with message Value must be >= 1 for field port"),
        ([53], 400, prefix + "an AttributeError with message 'int' object has no attribute 'split'"),
        ([{"host": "x"}], 400, prefix + "an AttributeError with message 'dict' object has no attribute 'split'"),
        (None, 400, prefix + "a TypeError with message 'NoneType' object is not iterable"),
        (["192.0.2.1", "192.0.2.1:53"], 409, "Duplicate ZoneMaster"),
        ("192.0.2.1", 409, "Duplicate ZoneMaster"),  # read one master per character
    ]
    for i, (masters, status, message) in enumerate(cases):
        response = await client.post("/v2/zones", json=_secondary(f"bad{i}.example.", masters),
                                     headers=A)
        assert response.status_code == status, (masters, response.text)
        assert response.json()["message"] == message
        if status == 409:
            assert response.json()["type"] == "duplicate_zone_attribute"
    listed = await client.get("/v2/zones", headers=A)
    assert listed.json()["zones"] == []  # nothing half-created


async def test_fields_a_secondary_zone_may_not_change(client):
    zone = (await client.post("/v2/zones", json=_secondary("sec.example.", ["192.0.2.1"]),
                              headers=A)).json()
    response = await client.patch(f"/v2/zones/{zone['id']}",
                                  json={"ttl": 5, "email": "a@example.org", "masters": []}, headers=A)
    assert response.status_code == 400
    assert [e["message"] for e in response.json()["errors"]["errors"]] == [
        "'masters' is a required property",
        "'email' can't be specified when type is SECONDARY",
        "'ttl' can't be specified when type is SECONDARY"]
    duplicate = await client.patch(f"/v2/zones/{zone['id']}", json={"masters": ["1.2.3.4"] * 2},
                                   headers=A)
    assert_error(duplicate, 409, "duplicate_zone_attribute", "Duplicate ZoneMaster")
    moved = await client.patch(f"/v2/zones/{zone['id']}", json={"masters": ["192.0.2.9:5300"]},
                               headers=A)
    assert moved.status_code in (200, 202) and moved.json()["masters"] == ["192.0.2.9:5300"]
    primary = (await client.post("/v2/zones", json={"name": "p.example.", "email": "a@example.org"},
                                 headers=A)).json()
    response = await client.patch(f"/v2/zones/{primary['id']}", json={"masters": ["192.0.2.1"]},
                                  headers=A)
    assert response.status_code == 400
    assert response.json()["errors"]["errors"][0]["validator"] == "maxItems"


async def test_type_filter_applies_to_admins_only(client):
    await client.post("/v2/zones", json=_secondary("tsec.example.", ["192.0.2.1"]), headers=A)
    await client.post("/v2/zones", json={"name": "tpri.example.", "email": "a@example.org"},
                      headers=A)
    admin = await client.get("/v2/zones?type=secondary", headers=ADMIN_A)
    assert [z["name"] for z in admin.json()["zones"]] == ["tsec.example."]
    member = await client.get("/v2/zones?type=SECONDARY", headers=A)
    assert len(member.json()["zones"]) == 2  # Designate replaces a non-admin's type filter


async def test_empty_body_names_the_missing_email_first(client):
    response = await client.post("/v2/zones", json={}, headers=A)
    assert response.status_code == 400
    assert response.json()["errors"]["errors"][0]["message"] == "'email' is a required property"
    no_name = await client.post("/v2/zones", json={"email": "a@example.org"}, headers=A)
    assert no_name.json()["errors"]["errors"][0]["message"] == "'name' is a required property"
