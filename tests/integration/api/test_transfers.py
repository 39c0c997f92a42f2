"""Zone transfers between projects over the v2 API on every database engine."""

from __future__ import annotations

import asyncio
import re

import pytest

from conftest import project
from support.api_errors import assert_error, assert_forbidden

A = project("xfer-a")
B = project("xfer-b")
C = project("xfer-c")
ADMIN = project("xfer-admin", "admin")
ALL = {**ADMIN, "X-Auth-All-Projects": "true"}
REQUESTS = "/v2/zones/tasks/transfer_requests"
ACCEPTS = "/v2/zones/tasks/transfer_accepts"
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"
DETAILED = ["id", "zone_id", "project_id", "target_project_id", "description", "key", "status",
            "zone_name", "created_at", "updated_at", "links"]
PUBLIC = ["id", "zone_id", "description", "status", "zone_name", "links"]


async def new_zone(client, name: str = "move.example.", headers=A) -> str:
    response = await client.post("/v2/zones", json={"name": name, "email": "h@move.example"},
                                 headers=headers)
    assert response.status_code == 202, response.text
    return response.json()["id"]


async def offer(client, zone_id: str, headers=A, **body):
    return await client.post(f"/v2/zones/{zone_id}/tasks/transfer_requests", json=body,
                             headers=headers)


@pytest.fixture
async def zone_id(client) -> str:
    return await new_zone(client)


@pytest.fixture
async def to_b(client, zone_id) -> dict:
    response = await offer(client, zone_id, target_project_id="xfer-b", description="to B")
    assert response.status_code == 201, response.text
    return response.json()


# --- requests ----------------------------------------------------------------------------------
async def test_create_request_answers_201_with_key_and_location(client, zone_id, to_b):
    assert list(to_b) == DETAILED
    assert re.fullmatch(r"[A-Z0-9]{8}", to_b["key"])
    assert (to_b["project_id"], to_b["target_project_id"], to_b["status"]) == \
        ("xfer-a", "xfer-b", "ACTIVE")
    assert to_b["zone_id"] == zone_id and to_b["zone_name"] == "move.example."
    assert to_b["updated_at"] is None
    assert to_b["links"]["self"] == f"http://api.test{REQUESTS}/{to_b['id']}"


async def test_request_without_body_is_open(client, zone_id):
    response = await client.post(f"/v2/zones/{zone_id}/tasks/transfer_requests", headers=A)
    assert response.status_code == 201
    assert response.headers["location"] == response.json()["links"]["self"]
    assert response.json()["target_project_id"] is None
    assert response.json()["description"] is None


async def test_owner_and_target_see_it_third_project_does_not(client, to_b):
    url = f"{REQUESTS}/{to_b['id']}"
    owner = (await client.get(url, headers=A)).json()
    assert owner == to_b
    target = (await client.get(url, headers=B)).json()
    assert list(target) == PUBLIC
    third = await client.get(url, headers=C)
    assert third.status_code == 403 and third.json()["type"] == "forbidden"
    assert "message" not in third.json()
    admin = (await client.get(url, headers=ADMIN)).json()
    assert admin["key"] == to_b["key"]
    listed = {p: (await client.get(REQUESTS, headers=h)).json()
              for p, h in (("a", A), ("b", B), ("c", C))}
    assert listed["a"]["transfer_requests"] == [to_b]
    assert listed["a"]["links"] == {"self": f"http://api.test{REQUESTS}"}
    assert "metadata" not in listed["a"]
    assert [list(r) for r in listed["b"]["transfer_requests"]] == [PUBLIC]
    assert listed["c"]["transfer_requests"] == []


async def test_open_request_readable_by_anyone_not_deletable(client, zone_id):
    open_request = (await offer(client, zone_id)).json()
    url = f"{REQUESTS}/{open_request['id']}"
    seen = await client.get(url, headers=C)
    assert seen.status_code == 200 and list(seen.json()) == PUBLIC
    other = await client.delete(url, headers=C)
    assert other.status_code == 404
    assert other.json()["message"] == "Could not find ZoneTransferRequest"
    assert (await client.delete(url, headers=A)).status_code == 204
    gone = await client.get(url, headers=A)
    assert gone.status_code == 404 and gone.json()["type"] == "zone_transfer_request_not_found"


async def test_target_cannot_delete_or_update(client, to_b):
    url = f"{REQUESTS}/{to_b['id']}"
    assert_forbidden(await client.delete(url, headers=B))
    assert_forbidden(await client.patch(url, json={"description": "x"}, headers=B))


async def test_list_filter_sort_and_paging(client):
    first = (await offer(client, await new_zone(client, "one.example."))).json()
    await offer(client, await new_zone(client, "two.example."))
    page = (await client.get(f"{REQUESTS}?limit=1&status=active", headers=A)).json()
    assert [r["id"] for r in page["transfer_requests"]] == [first["id"]]
    assert page["links"]["next"].endswith(f"marker={first['id']}")
    none = (await client.get(f"{REQUESTS}?status=COMPLETE", headers=A)).json()
    assert none["transfer_requests"] == []
    bad = await client.get(f"{REQUESTS}?sort_key=name", headers=A)
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_sort_key"
    unknown = await client.get(f"{REQUESTS}?zone_id=x", headers=A)
    assert unknown.json()["message"] == "Invalid filters zone_id"


async def test_patch_description_and_target_rules(client, zone_id, to_b):
    url = f"{REQUESTS}/{to_b['id']}"
    patched = await client.patch(url, json={"description": "updated"}, headers=A)
    assert patched.status_code == 200
    assert patched.json()["description"] == "updated" and patched.json()["updated_at"]
    read_only = await client.patch(url, json={"zone_id": MISSING}, headers=A)
    assert read_only.status_code == 400
    assert read_only.json()["message"] == ("Provided object does not match schema. Keys "
                                           "['zone_id'] are not valid for transfer_request")
    retarget = await client.patch(url, json={"target_project_id": "xfer-c"}, headers=A)
    assert retarget.json()["message"].endswith("Keys ['target_project_id'] are not valid for "
                                               "transfer_request")
    open_request = (await offer(client, await new_zone(client, "open.example."))).json()
    targeted = await client.patch(f"{REQUESTS}/{open_request['id']}",
                                  json={"target_project_id": "xfer-c"}, headers=A)
    assert targeted.status_code == 200 and targeted.json()["target_project_id"] == "xfer-c"
    long_text = await client.patch(url, json={"description": "d" * 161}, headers=A)
    assert long_text.json()["type"] == "invalid_object"


async def test_create_errors(client, zone_id, to_b):
    duplicate = await offer(client, zone_id, target_project_id="xfer-b")
    assert duplicate.status_code == 409
    assert duplicate.json() == {"code": 409, "type": "duplicate_zone_transfer_request",
                                "request_id": duplicate.json()["request_id"]}
    unknown = await offer(client, zone_id, colour="red")
    assert unknown.json()["message"] == ("Provided object does not match schema. Keys "
                                         "['colour'] are not valid for transfer_request")
    missing = await offer(client, MISSING)
    assert missing.status_code == 404 and missing.json()["message"] == "Could not find Zone"
    other = await offer(client, zone_id, headers=B)
    assert other.status_code == 404 and other.json()["type"] == "zone_not_found"
    bad_uuid = await client.get(f"{REQUESTS}/xyz", headers=A)
    assert bad_uuid.json()["message"] == "Invalid UUID zone_transfer_request_id: xyz"
    text = await client.post(f"/v2/zones/{zone_id}/tasks/transfer_requests", content="x",
                             headers={**A, "Content-Type": "text/plain"})
    assert_error(text, 415, "unsupported_content_type", "Content-type must be application/json")


async def test_deleting_zone_cannot_be_offered(client, zone_id):
    assert (await client.delete(f"/v2/zones/{zone_id}", headers=A)).status_code == 202
    response = await offer(client, zone_id)
    assert response.status_code == 400
    assert response.json()["message"] == "Can not transfer a deleting zone"


async def test_shared_guest_cannot_offer_the_zone(client, zone_id):
    shared = await client.post(f"/v2/zones/{zone_id}/shares", json={"target_project_id": "xfer-b"},
                               headers=A)
    assert shared.status_code == 201
    response = await offer(client, zone_id, headers=B)
    assert response.status_code == 403 and response.json()["type"] == "forbidden"


# --- accepts -----------------------------------------------------------------------------------
async def accept(client, request: dict, headers=B, **override):
    body = {"key": request["key"], "zone_transfer_request_id": request["id"], **override}
    return await client.post(ACCEPTS, json=body, headers=headers)


async def test_accept_moves_zone_recordsets_and_completes(client, zone_id, to_b):
    rrset = await client.post(f"/v2/zones/{zone_id}/recordsets", headers=A, json={
        "name": "www.move.example.", "type": "A", "records": ["192.0.2.1"]})
    response = await accept(client, to_b)
    assert response.status_code == 201, response.text
    body = response.json()
    assert list(body) == ["id", "zone_transfer_request_id", "project_id", "key", "status",
                          "zone_id", "created_at", "updated_at", "links"]
    assert (body["project_id"], body["status"], body["key"]) == ("xfer-b", "COMPLETE", to_b["key"])
    assert body["links"] == {"self": f"http://api.test{ACCEPTS}/{body['id']}",
                             "zone": f"http://api.test/v2/zones/{zone_id}"}
    assert response.headers["location"] == body["links"]["self"]
    stored = (await client.get(f"{ACCEPTS}/{body['id']}", headers=B)).json()
    assert stored["key"] is None and stored["status"] == "COMPLETE"
    assert_error(await client.get(f"/v2/zones/{zone_id}", headers=A), 404, "zone_not_found",
                 "Could not find Zone")
    zone = (await client.get(f"/v2/zones/{zone_id}", headers=B)).json()
    assert zone["project_id"] == "xfer-b" and zone["updated_at"]
    moved = (await client.get(f"/v2/zones/{zone_id}/recordsets/{rrset.json()['id']}",
                              headers=B)).json()
    assert moved["project_id"] == "xfer-b"
    listing = (await client.get(f"/v2/zones/{zone_id}/recordsets", headers=B)).json()
    assert {r["project_id"] for r in listing["recordsets"]} == {"xfer-b"}
    request = (await client.get(f"{REQUESTS}/{to_b['id']}", headers=A)).json()
    assert request["status"] == "COMPLETE" and request["zone_name"] == "move.example."
    again = await accept(client, to_b)
    assert again.status_code == 400 and again.json()["type"] == "invalid_zone_transfer_request"
    assert again.json()["message"] == "Zone Transfer Request has been used"
    new_owner_offer = await offer(client, zone_id, headers=B)
    assert new_owner_offer.status_code == 201
    assert (await client.delete(f"{REQUESTS}/{to_b['id']}", headers=A)).status_code == 204


async def test_open_request_accepted_by_any_project(client, zone_id):
    request = (await offer(client, zone_id)).json()
    response = await accept(client, request, headers=C)
    assert response.status_code == 201 and response.json()["project_id"] == "xfer-c"


async def test_concurrent_accepts_complete_once(client, zone_id):
    request = (await offer(client, zone_id)).json()
    answers = await asyncio.gather(accept(client, request, headers=B),
                                   accept(client, request, headers=C))
    assert sorted(r.status_code for r in answers) == [201, 400]
    winner = next(r for r in answers if r.status_code == 201).json()["project_id"]
    assert (await client.get(f"/v2/zones/{zone_id}",
                             headers=project(winner))).json()["project_id"] == winner


async def test_accept_errors(client, zone_id, to_b):
    wrong = await accept(client, to_b, key="WRONGKEY")
    assert wrong.status_code == 403 and wrong.json()["type"] == "invalid_key"
    assert wrong.json()["message"] == "Key does not match stored key for request"
    third = await accept(client, to_b, headers=C)
    assert third.status_code == 403 and third.json()["type"] == "forbidden"
    no_key = await client.post(ACCEPTS, json={"zone_transfer_request_id": to_b["id"]}, headers=B)
    assert no_key.json()["errors"] == {"errors": [{
        "path": ["records", 0, "key"], "message": "'key' is a required property",
        "validator": "required", "validator_value": ["key"]}]}
    null_key = await accept(client, to_b, key=None)
    assert null_key.status_code == 400 and null_key.json()["type"] == "invalid_object"
    unknown = await accept(client, {"key": "ABCDEFGH", "id": MISSING})
    assert_error(unknown, 404, "zone_transfer_request_not_found",
                 "Could not find ZoneTransferRequest")
    no_request = await client.post(ACCEPTS, json={"key": "ABCDEFGH"}, headers=B)
    assert_error(no_request, 404, "zone_transfer_request_not_found",
                 "Could not find ZoneTransferRequest")
    bad_id = await accept(client, to_b, zone_transfer_request_id="nope")
    assert bad_id.status_code == 400 and bad_id.json()["type"] == "invalid_object"
    extra = await accept(client, to_b, status="COMPLETE")
    assert extra.json()["message"].endswith("are not valid for transfer_accept")
    assert (await client.get(f"/v2/zones/{zone_id}", headers=A)).json()["project_id"] == "xfer-a"


async def test_accept_over_quota_records_error(client, conf, zone_id, to_b):
    await new_zone(client, "owned-by-b.example.", headers=B)
    conf.set_override("quota_zones", 1)
    response = await accept(client, to_b)
    assert response.status_code == 413 and response.json()["type"] == "over_quota"
    assert (await client.get(f"/v2/zones/{zone_id}", headers=A)).json()["project_id"] == "xfer-a"
    accepts = (await client.get(ACCEPTS, headers=ALL)).json()
    assert [a["status"] for a in accepts["transfer_accepts"]] == ["ERROR"]
    request = (await client.get(f"{REQUESTS}/{to_b['id']}", headers=A)).json()
    assert request["status"] == "ACTIVE"


async def test_accept_list_is_admin_only_and_get_is_per_project(client, to_b):
    done = (await accept(client, to_b)).json()
    assert_forbidden(await client.get(ACCEPTS, headers=B))
    listing = (await client.get(ACCEPTS, headers=ALL)).json()
    assert [a["id"] for a in listing["transfer_accepts"]] == [done["id"]]
    assert listing["metadata"] == {"total_count": 1}
    assert listing["links"] == {"self": f"http://api.test{ACCEPTS}"}
    own_admin = (await client.get(ACCEPTS, headers=ADMIN)).json()
    assert own_admin["transfer_accepts"] == [] and own_admin["metadata"] == {"total_count": 0}
    other = await client.get(f"{ACCEPTS}/{done['id']}", headers=A)
    assert other.status_code == 404
    assert other.json()["message"] == "Could not find ZoneTransferAccept"
    missing = await client.get(f"{ACCEPTS}/{MISSING}", headers=B)
    assert missing.json()["type"] == "zone_transfer_accept_not_found"
    bad = await client.get(f"{ACCEPTS}/xyz", headers=B)
    assert bad.json()["message"] == "Invalid UUID zone_transfer_accept_id: xyz"
