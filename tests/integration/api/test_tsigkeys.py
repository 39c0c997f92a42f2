"""TSIG keys over the v2 API on every database engine."""

from __future__ import annotations

from conftest import project
from support.api_errors import assert_error, assert_forbidden

ADMIN = project("tsig-admin", "admin")
MEMBER = project("tsig-member")
POOL = "794ccc2c-d751-44fe-b57f-8894c9f5c842"
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"
INVALID = "Provided object is not valid. Got a ValueError error with message "


def key(**overrides):
    return {"name": "k1", "algorithm": "hmac-sha256", "secret": "c2VjcmV0",
            "scope": "POOL", "resource_id": POOL, **overrides}


async def create(client, **overrides):
    return await client.post("/v2/tsigkeys", json=key(**overrides), headers=ADMIN)


async def test_crud_and_rendering(client):
    response = await create(client)
    assert response.status_code == 201
    body = response.json()
    assert list(body) == ["id", "name", "algorithm", "secret", "scope", "resource_id",
                          "created_at", "updated_at", "links"]
    assert body["secret"] == "c2VjcmV0" and response.headers["location"] == body["links"]["self"]
    key_id = body["id"]
    for change in ({"name": "k1b"}, {"secret": "bmV3"}, {"algorithm": "hmac-sha512"}):
        patched = await client.patch(f"/v2/tsigkeys/{key_id}", json=change, headers=ADMIN)
        assert patched.status_code == 200 and patched.json()[next(iter(change))] == \
            next(iter(change.values()))
    got = (await client.get(f"/v2/tsigkeys/{key_id}", headers=ADMIN)).json()
    assert (got["name"], got["secret"], got["algorithm"]) == ("k1b", "bmV3", "hmac-sha512")
    assert (await client.delete(f"/v2/tsigkeys/{key_id}", headers=ADMIN)).status_code == 204
    gone = await client.get(f"/v2/tsigkeys/{key_id}", headers=ADMIN)
    assert gone.json()["type"] == "tsigkey_not_found"
    assert gone.json()["message"] == "Could not find TsigKey"


async def test_every_algorithm_and_zone_scope(client):
    for index, algorithm in enumerate(("hmac-md5", "hmac-sha1", "hmac-sha224", "hmac-sha256",
                                       "hmac-sha384", "hmac-sha512")):
        assert (await create(client, name=f"k{index}", algorithm=algorithm)).status_code == 201
    zone = (await client.post("/v2/zones", json={"name": "tsig.example.",
                                                 "email": "a@example.org"},
                              headers=MEMBER)).json()
    scoped = await create(client, name="zone-key", scope="ZONE", resource_id=zone["id"])
    assert scoped.status_code == 201 and scoped.json()["scope"] == "ZONE"


async def test_validation(client):
    cases = {
        "algorithm": ("hmac-sha3", "Field value hmac-sha3 is invalid"),
        "scope": ("GLOBAL", "Field value GLOBAL is invalid"),
        "resource_id": ("pool", "badly formed hexadecimal UUID string"),
        "name": ("k" * 161, "Value too long for name"),
        "secret": ("s" * 161, "Value too long for secret"),
    }
    for field, (value, detail) in cases.items():
        body = (await create(client, **{field: value})).json()
        assert body["message"] == INVALID + detail, field
    case = (await create(client, algorithm="HMAC-SHA256")).json()
    assert case["message"] == INVALID + "Field value HMAC-SHA256 is invalid"
    unknown = (await create(client, colour="red")).json()
    assert unknown["message"] == ("Provided object does not match schema. Keys ['colour'] are "
                                  "not valid for tsigkey")
    for field in ("name", "algorithm", "secret", "scope", "resource_id"):
        body = key()
        del body[field]
        missing = (await client.post("/v2/tsigkeys", json=body, headers=ADMIN)).json()
        assert missing["errors"]["errors"][0]["path"] == ["records", 0, field]


async def test_resource_must_exist(client):
    zone = await create(client, scope="ZONE")
    assert zone.status_code == 400 and zone.json() == {
        "code": 400, "type": "invalid_tsigkey",
        "message": f"Resource ID {POOL} is not a valid zone",
        "request_id": zone.json()["request_id"]}
    pool = (await create(client, resource_id=MISSING)).json()
    assert pool["message"] == f"Resource ID {MISSING} is not a valid pool"
    created = (await create(client)).json()
    moved = await client.patch(f"/v2/tsigkeys/{created['id']}", json={"scope": "ZONE"},
                               headers=ADMIN)
    assert moved.json()["type"] == "invalid_tsigkey"


async def test_empty_values_and_secret_rule(client, conf):
    empty_name = await create(client, name="")
    assert empty_name.status_code == 201
    empty_secret = await create(client, name="empty-secret", secret="")
    assert empty_secret.status_code == 201 and empty_secret.json()["secret"] == ""
    conf.set_override("allow_empty_secrets_for_tsig", False, group="service:api")
    empty = {"errors": [{"path": ["type"], "message": "'secret' should not be empty",
                         "validator": "value", "validator_value": ["secret"]}]}
    refused = await create(client, name="refused", secret="")
    assert assert_error(refused, 400, "invalid_object", None)["errors"] == empty
    patched = await client.patch(f"/v2/tsigkeys/{empty_name.json()['id']}", json={"secret": ""},
                                 headers=ADMIN)  # Designate validates the patched key the same way
    assert assert_error(patched, 400, "invalid_object", None)["errors"] == empty


async def test_duplicates_listing_and_permissions(client):
    first = (await create(client, name="conf-key-1")).json()
    second = (await create(client, name="conf-key-2", algorithm="hmac-md5")).json()
    duplicate = await create(client, name="conf-key-1")
    assert duplicate.status_code == 409 and duplicate.json()["message"] == "Duplicate TsigKey"
    renamed = await client.patch(f"/v2/tsigkeys/{second['id']}", json={"name": "conf-key-1"},
                                 headers=ADMIN)
    assert renamed.json()["type"] == "duplicate_tsigkey"
    listing = (await client.get("/v2/tsigkeys?sort_key=name", headers=ADMIN)).json()
    assert [k["name"] for k in listing["tsigkeys"]] == ["conf-key-1", "conf-key-2"]
    assert "metadata" not in listing
    by_algorithm = (await client.get("/v2/tsigkeys?algorithm=hmac-md5", headers=ADMIN)).json()
    assert [k["id"] for k in by_algorithm["tsigkeys"]] == [second["id"]]
    by_scope = (await client.get("/v2/tsigkeys?scope=POOL&name=conf-key-1",
                                 headers=ADMIN)).json()
    assert [k["id"] for k in by_scope["tsigkeys"]] == [first["id"]]
    page = (await client.get("/v2/tsigkeys?sort_key=name&limit=1", headers=ADMIN)).json()
    assert page["links"]["next"].endswith(f"marker={first['id']}")
    bad = await client.get("/v2/tsigkeys?secret=abc", headers=ADMIN)
    assert bad.json()["message"] == "Invalid filters secret"
    other_admin = (await client.get("/v2/tsigkeys", headers=project("x", "admin"))).json()
    assert len(other_admin["tsigkeys"]) == 2
    for method, path in (("GET", "/v2/tsigkeys"), ("GET", f"/v2/tsigkeys/{first['id']}"),
                         ("PATCH", f"/v2/tsigkeys/{first['id']}"),
                         ("DELETE", f"/v2/tsigkeys/{first['id']}"), ("POST", "/v2/tsigkeys")):
        assert_forbidden(await client.request(method, path, json=key(name="m"), headers=MEMBER))
    assert (await client.get("/v2/tsigkeys/xyz", headers=ADMIN)).json()["message"] == \
        "Invalid UUID tsigkey_id: xyz"
    missing = await client.delete(f"/v2/tsigkeys/{MISSING}", headers=ADMIN)
    assert_error(missing, 404, "tsigkey_not_found", "Could not find TsigKey")
