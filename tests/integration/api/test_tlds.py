"""TLDs over the v2 API on every database engine, and their effect on zone creation."""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_error

ADMIN = project("tld-admin", "admin")
MEMBER = project("tld-member")
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"
INVALID = "Provided object is not valid. Got a ValueError error with message "


async def create(client, name: str, **extra):
    return await client.post("/v2/tlds", json={"name": name, **extra}, headers=ADMIN)


async def test_crud_and_rendering(client):
    response = await create(client, "example", description="d")
    assert response.status_code == 201
    tld = response.json()
    assert list(tld) == ["id", "name", "description", "created_at", "updated_at", "links"]
    assert tld["updated_at"] is None and response.headers["location"] == tld["links"]["self"]
    assert tld["links"]["self"] == f"http://api.test/v2/tlds/{tld['id']}"
    got = await client.get(f"/v2/tlds/{tld['id']}", headers=ADMIN)
    assert got.json() == tld
    patched = await client.patch(f"/v2/tlds/{tld['id']}", json={"description": "changed"},
                                 headers=ADMIN)
    assert patched.status_code == 200
    assert patched.json()["description"] == "changed" and patched.json()["updated_at"]
    same_name = await client.patch(f"/v2/tlds/{tld['id']}", json={"name": "example",
                                                                   "id": tld["id"]},
                                   headers=ADMIN)
    assert same_name.status_code == 200
    assert (await client.delete(f"/v2/tlds/{tld['id']}", headers=ADMIN)).status_code == 204
    gone = await client.get(f"/v2/tlds/{tld['id']}", headers=ADMIN)
    assert gone.status_code == 404
    assert gone.json()["type"] == "tld_not_found" and gone.json()["message"] == "Could not find Tld"
    again = await client.delete(f"/v2/tlds/{tld['id']}", headers=ADMIN)
    assert again.json()["type"] == "tld_not_found"


async def test_list_filter_sort_and_paging(client):
    for name in ("org", "co.uk", "net"):
        await create(client, name)
    listing = (await client.get("/v2/tlds?sort_key=name", headers=ADMIN)).json()
    assert [t["name"] for t in listing["tlds"]] == ["co.uk", "net", "org"]
    assert "metadata" not in listing
    assert listing["links"] == {"self": "http://api.test/v2/tlds?sort_key=name"}
    filtered = (await client.get("/v2/tlds?name=net", headers=ADMIN)).json()
    assert [t["name"] for t in filtered["tlds"]] == ["net"]
    page = (await client.get("/v2/tlds?sort_key=name&limit=2", headers=ADMIN)).json()
    assert "marker=" in page["links"]["next"]
    bad = await client.get("/v2/tlds?colour=red", headers=ADMIN)
    assert bad.status_code == 400 and bad.json()["message"] == "Invalid filters colour"
    bad_sort = await client.get("/v2/tlds?sort_key=description", headers=ADMIN)
    assert bad_sort.json()["type"] == "invalid_sort_key"


async def test_validation(client):
    for name in ("dotted.", "bad!tld", "", "t" * 64, "-tld"):
        body = (await create(client, name)).json()
        assert body["message"] == f"{INVALID}{name} is not a TLD"
    unknown = (await create(client, "ok", colour=1)).json()
    assert unknown["message"] == ("Provided object does not match schema. Keys ['colour'] "
                                  "are not valid for tld")
    long_desc = (await create(client, "desc", description="d" * 161)).json()
    assert long_desc["message"] == f"{INVALID}Value too long for description"
    missing = await client.post("/v2/tlds", json={}, headers=ADMIN)
    assert missing.json()["errors"] == {"errors": [{
        "path": ["records", 0, "name"], "message": "'name' is a required property",
        "validator": "required", "validator_value": ["name"]}]}
    null = (await create(client, None)).json()
    assert null["message"] == f"{INVALID}Field `name' cannot be None"
    wrong_type = await client.post("/v2/tlds", content=b"x", headers=ADMIN)
    assert_error(wrong_type, 415, "unsupported_content_type",
                 "Content-type must be application/json")


async def test_duplicates(client):
    first = (await create(client, "dup")).json()
    second = (await create(client, "other")).json()
    duplicate = await create(client, "dup")
    assert duplicate.status_code == 409
    assert duplicate.json()["type"] == "duplicate_tld" and duplicate.json()["message"] == \
        "Duplicate Tld"
    renamed = await client.patch(f"/v2/tlds/{second['id']}", json={"name": "dup"}, headers=ADMIN)
    assert_error(renamed, 409, "duplicate_tld", "Duplicate Tld")
    invalid = await client.patch(f"/v2/tlds/{first['id']}", json={"name": "bad!"}, headers=ADMIN)
    assert invalid.json()["message"] == f"{INVALID}bad! is not a TLD"
    read_only = await client.patch(f"/v2/tlds/{first['id']}", json={"id": second["id"]},
                                   headers=ADMIN)
    assert read_only.json()["type"] == "invalid_object"


async def test_admin_only_and_path_errors(client):
    tld = (await create(client, "adminonly")).json()
    for method, path, body in (("GET", "/v2/tlds", None), ("POST", "/v2/tlds", {"name": "x"}),
                               ("GET", f"/v2/tlds/{tld['id']}", None),
                               ("PATCH", f"/v2/tlds/{tld['id']}", {"description": "x"}),
                               ("DELETE", f"/v2/tlds/{tld['id']}", None)):
        response = await client.request(method, path, json=body, headers=MEMBER)
        assert response.status_code == 403, (method, path)
        assert response.json() == {"code": 403, "type": "forbidden",
                                   "request_id": response.json()["request_id"]}
    bad = await client.get("/v2/tlds/xyz", headers=ADMIN)
    assert bad.json()["message"] == "Invalid UUID tld_id: xyz"
    missing = await client.patch(f"/v2/tlds/{MISSING}", json={"description": "x"}, headers=ADMIN)
    assert_error(missing, 404, "tld_not_found", "Could not find Tld")
    put = await client.put("/v2/tlds", json={"name": "x"}, headers=ADMIN)
    assert put.status_code == 405 and put.json()["type"] == "method_not_allowed"


async def test_zone_names_must_end_with_a_tld(client):
    await create(client, "cfxtld")
    await create(client, "co.cfxtwo")
    zone = {"email": "a@example.org"}
    unknown = await client.post("/v2/zones", json={"name": "nowhere.unknowntld.", **zone},
                                headers=MEMBER)
    assert unknown.json()["message"] == "Invalid TLD"
    same = await client.post("/v2/zones", json={"name": "co.cfxtwo.", **zone}, headers=MEMBER)
    assert same.json()["message"] == "Zone name cannot be the same as a TLD"
    for name in ("ok.cfxtld.", "ok.co.cfxtwo."):
        created = await client.post("/v2/zones", json={"name": name, **zone}, headers=MEMBER)
        assert created.status_code == 202, created.json()
