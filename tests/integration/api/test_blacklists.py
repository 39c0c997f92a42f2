"""Blacklists over the v2 API on every database engine, and their effect on zone creation."""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_error, assert_forbidden

ADMIN = project("bl-admin", "admin")
MEMBER = project("bl-member")
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"
INVALID = "Provided object is not valid. Got a ValueError error with message "


async def create(client, pattern, **extra):
    return await client.post("/v2/blacklists", json={"pattern": pattern, **extra}, headers=ADMIN)


async def test_crud_and_rendering(client):
    response = await create(client, r"^evil\.example\.$", description="no evil")
    assert response.status_code == 201
    body = response.json()
    assert list(body) == ["id", "pattern", "description", "created_at", "updated_at", "links"]
    assert response.headers["location"] == f"http://api.test/v2/blacklists/{body['id']}"
    assert (await client.get(f"/v2/blacklists/{body['id']}", headers=ADMIN)).json() == body
    patched = await client.patch(f"/v2/blacklists/{body['id']}",
                                 json={"pattern": r"^bad\.example\.$"}, headers=ADMIN)
    assert patched.status_code == 200 and patched.json()["pattern"] == r"^bad\.example\.$"
    assert (await client.delete(f"/v2/blacklists/{body['id']}", headers=ADMIN)).status_code == 204
    gone = await client.get(f"/v2/blacklists/{body['id']}", headers=ADMIN)
    assert gone.status_code == 404 and gone.json()["message"] == "Could not find Blacklist"
    assert gone.json()["type"] == "blacklist_not_found"


async def test_validation(client):
    for pattern in ("(unclosed", "", "*bad"):
        body = (await create(client, pattern)).json()
        assert body["message"] == f"{INVALID}{pattern} is not a valid regular expression"
    description = (await create(client, "ok", description="[")).json()
    assert description["message"] == f"{INVALID}[ is not a valid regular expression"
    long_pattern = (await create(client, "a" * 256)).json()
    assert long_pattern["message"] == f"{INVALID}Value too long for pattern"
    missing = (await client.post("/v2/blacklists", json={"description": "x"},
                                 headers=ADMIN)).json()
    assert missing["errors"]["errors"][0]["path"] == ["records", 0, "pattern"]
    unknown = (await create(client, "ok", colour=1)).json()
    assert unknown["message"] == ("Provided object does not match schema. Keys ['colour'] are "
                                  "not valid for blacklist")


async def test_duplicates_listing_and_permissions(client):
    first = (await create(client, "^a")).json()
    second = (await create(client, "^b")).json()
    duplicate = await create(client, "^a")
    assert duplicate.status_code == 409 and duplicate.json()["type"] == "duplicate_blacklist"
    renamed = await client.patch(f"/v2/blacklists/{second['id']}", json={"pattern": "^a"},
                                 headers=ADMIN)
    assert renamed.json()["message"] == "Duplicate Blacklist"
    listing = (await client.get("/v2/blacklists?sort_key=pattern&sort_dir=desc",
                                headers=ADMIN)).json()
    assert [b["pattern"] for b in listing["blacklists"]] == ["^b", "^a"]
    filtered = (await client.get("/v2/blacklists?pattern=^a", headers=ADMIN)).json()
    assert [b["id"] for b in filtered["blacklists"]] == [first["id"]]
    for method, path in (("GET", "/v2/blacklists"), ("POST", "/v2/blacklists"),
                         ("GET", f"/v2/blacklists/{first['id']}"),
                         ("PATCH", f"/v2/blacklists/{first['id']}"),
                         ("DELETE", f"/v2/blacklists/{first['id']}")):
        assert_forbidden(await client.request(method, path, json={"pattern": "x"},
                                              headers=MEMBER))
    assert (await client.get("/v2/blacklists/nope", headers=ADMIN)).json()["message"] == \
        "Invalid UUID blacklist_id: nope"
    assert_error(await client.get(f"/v2/blacklists/{MISSING}", headers=ADMIN), 404,
                 "blacklist_not_found", "Could not find Blacklist")
    assert_error(await client.put("/v2/blacklists", json={}, headers=ADMIN), 405,
                 "method_not_allowed", None)


async def test_blacklisted_zone_names(client):
    await create(client, r"^evil\.")
    zone = {"name": "evil.example.", "email": "a@example.org"}
    refused = await client.post("/v2/zones", json=zone, headers=MEMBER)
    assert refused.status_code == 400 and refused.json()["message"] == "Blacklisted zone name"
    allowed = await client.post("/v2/zones", json=zone, headers=ADMIN)
    assert allowed.status_code == 202
