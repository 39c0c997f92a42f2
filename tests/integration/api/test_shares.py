"""Shared zones (API v2.1) over the v2 API on every database engine."""

from __future__ import annotations

import pytest

from conftest import project
from support.api_errors import assert_error, assert_forbidden
from openkeel_designate.storage import quotas as quota_store

A = project("share-a")
B = project("share-b")
C = project("share-c")
ADMIN = project("share-admin", "admin")
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"


async def new_zone(client, name: str = "shared.example.", headers=A, **extra) -> dict:
    body = {"name": name, "email": "h@shared.example", **extra}
    if body["email"] is None:
        del body["email"]  # a secondary zone takes no email at all
    response = await client.post("/v2/zones", json=body, headers=headers)
    assert response.status_code == 202, response.text
    return response.json()


async def share(client, zone_id: str, target: str = "share-b", headers=A):
    return await client.post(f"/v2/zones/{zone_id}/shares", json={"target_project_id": target},
                             headers=headers)


@pytest.fixture
async def zone(client) -> dict:
    return await new_zone(client)


@pytest.fixture
async def shared(client, zone) -> dict:
    response = await share(client, zone["id"])
    assert response.status_code == 201, response.text
    return response.json()


async def rrset(client, zone_id: str, name: str, headers=B):
    return await client.post(f"/v2/zones/{zone_id}/recordsets", headers=headers, json={
        "name": name, "type": "A", "records": ["192.0.2.1"]})


# --- the share rows ----------------------------------------------------------------------------
async def test_share_answers_201_and_sets_the_shared_flag(client, zone, shared):
    assert list(shared) == ["id", "zone_id", "project_id", "target_project_id", "created_at",
                            "updated_at", "links"]
    assert (shared["zone_id"], shared["project_id"], shared["target_project_id"]) == \
        (zone["id"], "share-a", "share-b")
    zone_url = f"http://api.test/v2/zones/{zone['id']}"
    assert shared["links"] == {"self": f"{zone_url}/shares/{shared['id']}", "zone": zone_url}
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=A)).json()["shared"] is True
    guest = await client.get(f"/v2/zones/{zone['id']}", headers=B)
    assert guest.status_code == 200 and guest.json()["shared"] is True
    listed = (await client.get("/v2/zones", headers=B)).json()["zones"]
    assert [(z["id"], z["shared"]) for z in listed] == [(zone["id"], True)]
    assert_error(await client.get(f"/v2/zones/{zone['id']}", headers=C), 404, "zone_not_found",
                 "Could not find Zone")


async def test_share_errors(client, zone, shared):
    owner = await share(client, zone["id"], "share-a")
    assert owner.status_code == 400 and owner.json()["type"] == "bad_request"
    assert owner.json()["message"] == "Cannot share the zone with the zone owner."
    duplicate = await share(client, zone["id"])
    assert duplicate.status_code == 409 and duplicate.json()["type"] == "duplicate_shared_zone"
    guest = await share(client, zone["id"], "share-c", headers=B)
    assert guest.status_code == 403 and guest.json()["type"] == "forbidden"
    third = await share(client, zone["id"], "share-c", headers=C)
    assert third.status_code == 404 and third.json()["type"] == "zone_not_found"
    assert_error(await share(client, MISSING), 404, "zone_not_found", "Could not find Zone")
    url = f"/v2/zones/{zone['id']}/shares"
    missing = await client.post(url, json={}, headers=A)  # Designate's bare 500 (harness)
    assert missing.status_code == 500 and missing.json()["type"] == "unknown"
    assert "message" not in missing.json()
    missing_zone = await client.post(f"/v2/zones/{MISSING}/shares", json={}, headers=A)
    assert missing_zone.status_code == 404 and missing_zone.json()["type"] == "zone_not_found"
    null = await client.post(url, json={"target_project_id": None}, headers=A)
    assert null.status_code == 400 and null.json()["type"] == "invalid_object"
    too_long = await share(client, zone["id"], "p" * 37)
    assert too_long.status_code == 400 and too_long.json()["type"] == "invalid_object"
    extra = await client.post(url, json={"target_project_id": "x", "colour": 1}, headers=A)
    assert extra.json()["message"] == ("Provided object does not match schema. Keys "
                                       "['colour'] are not valid for shared_zone")
    bad_uuid = await share(client, "nope")
    assert bad_uuid.json()["message"] == "Invalid UUID zone_id: nope"


async def test_list_shares(client, zone, shared):
    url = f"/v2/zones/{zone['id']}/shares"
    owner = (await client.get(url, headers=A)).json()
    assert owner == {"shared_zones": [shared], "links": {"self": f"http://api.test{url}"}}
    assert (await client.get(url, headers=B)).json()["shared_zones"] == [shared]
    assert (await client.get(url, headers=C)).json()["shared_zones"] == []
    unknown = await client.get(f"/v2/zones/{MISSING}/shares", headers=C)
    assert unknown.status_code == 200 and unknown.json()["shared_zones"] == []
    own_filter = (await client.get(f"{url}?target_project_id=share-b", headers=B)).json()
    assert own_filter["shared_zones"] == [shared]
    assert own_filter["links"]["self"].endswith("/shares?target_project_id=share-b")
    # find_project_zone_share: a member may only ask for its own project's shares
    assert_forbidden(await client.get(f"{url}?target_project_id=share-b", headers=A))
    admin = await client.get(f"{url}?target_project_id=share-b",
                             headers={**ADMIN, "X-Auth-All-Projects": "true"})
    assert admin.json()["shared_zones"] == [shared]
    await share(client, zone["id"], "share-c")
    paged = (await client.get(f"{url}?limit=1", headers=A)).json()
    assert [s["id"] for s in paged["shared_zones"]] == [shared["id"]]
    assert paged["links"]["next"].endswith(f"marker={shared['id']}")
    bad_sort = await client.get(f"{url}?sort_key=id", headers=A)
    assert bad_sort.json()["type"] == "invalid_sort_key"


async def test_get_share(client, zone, shared):
    url = f"/v2/zones/{zone['id']}/shares/{shared['id']}"
    assert (await client.get(url, headers=A)).json() == shared
    # get_zone_share targets the sharing project
    assert_forbidden(await client.get(url, headers=B))
    third = await client.get(url, headers=C)
    assert third.status_code == 404 and third.json() == {
        "code": 404, "type": "shared_zone_not_found", "message": "Could not find SharedZone",
        "request_id": third.json()["request_id"]}
    wrong_zone = await client.get(f"/v2/zones/{MISSING}/shares/{shared['id']}", headers=A)
    assert_error(wrong_zone, 404, "shared_zone_not_found", "Could not find SharedZone")
    bad = await client.get(f"/v2/zones/{zone['id']}/shares/xyz", headers=A)
    assert bad.json()["message"] == "Invalid UUID zone_share_id: xyz"


async def test_unshare(client, zone, shared):
    url = f"/v2/zones/{zone['id']}/shares/{shared['id']}"
    assert_forbidden(await client.delete(url, headers=B))
    assert_error(await client.delete(url, headers=C), 404, "shared_zone_not_found",
                 "Could not find SharedZone")
    response = await client.delete(url, headers=A)
    assert response.status_code == 204 and response.content == b""
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=A)).json()["shared"] is False
    assert_error(await client.get(f"/v2/zones/{zone['id']}", headers=B), 404, "zone_not_found",
                 "Could not find Zone")
    assert_error(await client.delete(url, headers=A), 404, "shared_zone_not_found",
                 "Could not find SharedZone")


# --- what a share grants -----------------------------------------------------------------------
async def test_cross_project_scenario(client, zone, shared):
    zone_id = zone["id"]
    owner_rs = (await rrset(client, zone_id, "owner.shared.example.", headers=A)).json()
    created = await rrset(client, zone_id, "guest.shared.example.")
    assert created.status_code == 202 and created.json()["project_id"] == "share-b"
    guest_rs = created.json()
    names = {r["name"] for r in (await client.get(f"/v2/zones/{zone_id}/recordsets",
                                                  headers=B)).json()["recordsets"]}
    assert {"owner.shared.example.", "guest.shared.example."} <= names
    owner_url = f"/v2/zones/{zone_id}/recordsets/{owner_rs['id']}"
    guest_url = f"/v2/zones/{zone_id}/recordsets/{guest_rs['id']}"
    assert (await client.get(owner_url, headers=B)).status_code == 200
    assert_forbidden(await client.put(owner_url, json={"ttl": 60}, headers=B))
    assert_forbidden(await client.delete(owner_url, headers=B))
    assert (await client.put(guest_url, json={"ttl": 60}, headers=B)).status_code == 202
    share_url = f"/v2/zones/{zone_id}/shares/{shared['id']}"
    blocked = await client.delete(share_url, headers=A)
    assert blocked.status_code == 400 and blocked.json() == {
        "code": 400, "type": "shared_zone_has_recordsets",
        "message": "Please delete all recordsets owned by project share-b before unsharing "
                   "this zone.", "request_id": blocked.json()["request_id"]}
    assert_forbidden(await client.delete(f"/v2/zones/{zone_id}", headers=B))
    assert_forbidden(await client.patch(f"/v2/zones/{zone_id}", json={"ttl": 60}, headers=B))
    assert_forbidden(await share(client, zone_id, "share-c", headers=B))
    child = await client.post("/v2/zones", headers=B, json={
        "name": "sub.shared.example.", "email": "h@shared.example"})
    assert child.status_code == 403 and child.json()["type"] == "illegal_child"
    assert (await client.delete(guest_url, headers=B)).status_code == 202
    assert (await client.delete(share_url, headers=A)).status_code == 204
    # the recordset of a zone no longer shared: the zone is what cannot be found
    assert_error(await client.get(owner_url, headers=B), 404, "zone_not_found",
                 "Could not find Zone")
    assert_error(await rrset(client, zone_id, "late.shared.example."), 404, "zone_not_found",
                 "Could not find Zone")


async def test_get_one_recordset_sees_zones_as_the_zone_get_does(client, zone, shared):
    """``GET /v2/zones/{id}/recordsets/{id}`` is two point reads: the recordset with its zone's
    visibility as a column, then its records. Who sees it, and the order of the 404s, are the
    zone GET's and Designate's: an unknown recordset before an invisible zone."""
    zone_id = zone["id"]
    created = (await client.post(f"/v2/zones/{zone_id}/recordsets", headers=A, json={
        "name": "two.shared.example.", "type": "A", "records": ["192.0.2.1", "192.0.2.2"],
        "ttl": 600, "description": "two"})).json()
    url = f"/v2/zones/{zone_id}/recordsets/{created['id']}"
    owner = await client.get(url, headers=A)
    assert owner.status_code == 200, owner.text
    body = owner.json()
    assert (body["id"], body["zone_id"], body["zone_name"], body["ttl"], body["description"]) == \
        (created["id"], zone_id, "shared.example.", 600, "two")
    assert sorted(body["records"]) == ["192.0.2.1", "192.0.2.2"]
    listed = [r for r in (await client.get(f"/v2/zones/{zone_id}/recordsets", headers=A)
                          ).json()["recordsets"] if r["id"] == created["id"]]
    assert listed == [{**body, "records": listed[0]["records"]}]
    assert sorted(listed[0]["records"]) == sorted(body["records"])
    guest = await client.get(url, headers=B)
    assert guest.status_code == 200 and guest.json() == body
    everyone = await client.get(url, headers={**ADMIN, "X-Auth-All-Projects": "true"})
    assert everyone.status_code == 200 and everyone.json() == body
    assert_error(await client.get(url, headers=C), 404, "zone_not_found", "Could not find Zone")
    assert_error(await client.get(f"/v2/zones/{zone_id}/recordsets/{MISSING}", headers=C), 404,
                 "recordset_not_found", "Could not find RecordSet")
    other = await new_zone(client, "other.example.")
    assert_error(await client.get(f"/v2/zones/{other['id']}/recordsets/{created['id']}",
                                  headers=A), 404, "recordset_not_found", "Could not find RecordSet")
    unshared = await client.delete(f"/v2/zones/{zone_id}/shares/{shared['id']}", headers=A)
    assert unshared.status_code == 204
    assert_error(await client.get(url, headers=B), 404, "zone_not_found", "Could not find Zone")
    assert (await client.get(url, headers=A)).json() == body


async def test_owner_may_delete_guest_recordsets(client, zone, shared):
    guest_rs = (await rrset(client, zone["id"], "guest.shared.example.")).json()
    url = f"/v2/zones/{zone['id']}/recordsets/{guest_rs['id']}"
    assert (await client.delete(url, headers=A)).status_code == 202


async def test_unshare_blocked_by_guest_sub_zone(client, zone, shared):
    child = await new_zone(client, "sub.shared.example.")
    offered = (await client.post(f"/v2/zones/{child['id']}/tasks/transfer_requests",
                                 json={"target_project_id": "share-b"}, headers=A)).json()
    accepted = await client.post("/v2/zones/tasks/transfer_accepts", headers=B, json={
        "key": offered["key"], "zone_transfer_request_id": offered["id"]})
    assert accepted.status_code == 201
    blocked = await client.delete(f"/v2/zones/{zone['id']}/shares/{shared['id']}", headers=A)
    assert blocked.status_code == 400 and blocked.json()["type"] == "shared_zone_has_sub_zone"
    assert blocked.json()["message"] == ("Please delete all subzones owned by project share-b "
                                         "before unsharing this zone")


async def test_guest_cannot_write_a_secondary_zone(client):
    zone = await new_zone(client, "secondary.example.", type="SECONDARY",
                          masters=["192.0.2.53"], email=None)
    assert (await share(client, zone["id"])).status_code == 201
    assert_forbidden(await rrset(client, zone["id"], "www.secondary.example."))


async def test_recordset_quota_counts_against_the_owner(client, services, zone, shared):
    async def limit(session):
        await quota_store.set_limit(session, "share-a", "zone_recordsets", 3)

    await services.db.transaction(limit)  # SOA + NS + one more
    assert (await rrset(client, zone["id"], "one.shared.example.")).status_code == 202
    over = await rrset(client, zone["id"], "two.shared.example.")
    assert over.status_code == 413 and over.json()["type"] == "over_quota"


async def test_zone_delete_needs_the_delete_shares_flag(client, zone, shared):
    url = f"/v2/zones/{zone['id']}"
    refused = await client.delete(url, headers=A)
    assert refused.status_code == 400 and refused.json()["type"] == "zone_is_shared"
    deleted = await client.delete(url, headers={**A, "X-Designate-Delete-Shares": "true"})
    assert deleted.status_code == 202 and deleted.json()["action"] == "DELETE"
    assert deleted.json()["shared"] is True  # the zone as asked for, as Designate answers
    shares = (await client.get(f"{url}/shares", headers=A)).json()
    assert shares["shared_zones"] == []


async def test_listing_shares_needs_the_member_rule(client, zone, shared):
    """Found by the differential harness: even for an unknown zone, and without filters."""
    reader = project("share-a", "reader")
    for zone_id in (zone["id"], MISSING):
        response = await client.get(f"/v2/zones/{zone_id}/shares", headers=reader)
        assert response.status_code == 403 and response.json()["type"] == "forbidden"
    assert (await client.get(f"/v2/zones/{MISSING}/shares", headers=A)).json()["shared_zones"] == []
