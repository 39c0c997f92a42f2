"""ETags and conditional writes (extension): ``ETag`` on zone and recordset answers,
``If-Match`` on PATCH/PUT/DELETE (and on a change batch), ``If-None-Match: *`` on create."""

from __future__ import annotations

import asyncio

import pytest

from conftest import project
from openkeel_designate.storage import workqueue

A = project("proj-etag")
RS = "/v2/zones/{}/recordsets"


@pytest.fixture
async def zone(client) -> dict:
    response = await client.post("/v2/zones", json={"name": "etag.example.",
                                                    "email": "h@etag.example"}, headers=A)
    assert response.status_code == 202
    return {"id": response.json()["id"], "etag": response.headers["etag"]}


@pytest.fixture
async def recordset(client, zone) -> dict:
    response = await client.post(RS.format(zone["id"]), headers=A, json={
        "name": "www.etag.example.", "type": "A", "records": ["192.0.2.1"]})
    assert response.status_code == 202
    return {"url": f"{RS.format(zone['id'])}/{response.json()['id']}",
            "etag": response.headers["etag"]}


def _precondition_failed(response) -> None:
    body = response.json()
    assert response.status_code == 412, body
    assert (body["code"], body["type"]) == (412, "precondition_failed")
    assert body["message"] and body["request_id"]


def _if(name: str, etag: str) -> dict[str, str]:
    return {**A, name: etag}


async def test_zone_etag_is_strong_quoted_and_follows_the_row(client, zone):
    url = f"/v2/zones/{zone['id']}"
    got = await client.get(url, headers=A)
    etag = got.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"') and not etag.startswith("W/")
    assert etag == zone["etag"]  # nothing changed since the create answered
    assert (await client.get(url, headers=A)).headers["etag"] == etag
    patched = await client.patch(url, json={"ttl": 600}, headers=_if("If-Match", etag))
    assert patched.status_code == 202
    assert patched.headers["etag"] != etag
    assert (await client.get(url, headers=A)).headers["etag"] == patched.headers["etag"]


async def test_zone_if_match_stale_is_412_and_changes_nothing(client, zone):
    url = f"/v2/zones/{zone['id']}"
    await client.patch(url, json={"ttl": 600}, headers=A)
    _precondition_failed(await client.patch(url, json={"ttl": 900},
                                            headers=_if("If-Match", zone["etag"])))
    assert (await client.get(url, headers=A)).json()["ttl"] == 600
    _precondition_failed(await client.delete(url, headers=_if("If-Match", zone["etag"])))
    assert (await client.get(url, headers=A)).json()["action"] != "DELETE"
    _precondition_failed(await client.patch(url, json={"ttl": 900},
                                            headers=_if("If-Match", "W/" + zone["etag"])))
    assert (await client.patch(url, json={"ttl": 900}, headers=_if("If-Match", "*"))
            ).status_code == 202
    current = (await client.get(url, headers=A)).headers["etag"]
    deleted = await client.delete(url, headers=_if("If-Match", f'"other", {current}'))
    assert deleted.status_code == 202 and deleted.json()["action"] == "DELETE"


async def test_recordset_etag_and_if_match(client, recordset):
    got = await client.get(recordset["url"], headers=A)
    assert got.headers["etag"] == recordset["etag"]
    put = await client.put(recordset["url"], json={"records": ["192.0.2.2"]},
                           headers=_if("If-Match", recordset["etag"]))
    assert put.status_code == 202
    assert (await client.get(recordset["url"], headers=A)).headers["etag"] == put.headers["etag"]
    _precondition_failed(await client.put(recordset["url"], json={"records": ["192.0.2.3"]},
                                          headers=_if("If-Match", recordset["etag"])))
    assert (await client.get(recordset["url"], headers=A)).json()["records"] == ["192.0.2.2"]
    _precondition_failed(await client.delete(recordset["url"],
                                             headers=_if("If-Match", recordset["etag"])))
    deleted = await client.delete(recordset["url"], headers=_if("If-Match", put.headers["etag"]))
    assert deleted.status_code == 202 and "etag" in deleted.headers


async def test_a_status_change_by_the_worker_moves_the_etag(client, services, recordset):
    claimed = await workqueue.claim(services.db, "test", 60, 10)
    assert await workqueue.complete(services.db, claimed[0], "test", claimed[0].serial)
    got = await client.get(recordset["url"], headers=A)
    assert got.json()["status"] == "ACTIVE"
    assert got.headers["etag"] != recordset["etag"]  # the answer changed: PENDING → ACTIVE
    _precondition_failed(await client.put(recordset["url"], json={"records": ["192.0.2.9"]},
                                          headers=_if("If-Match", recordset["etag"])))


async def test_two_writers_with_one_etag_one_wins(client, recordset):
    results = await asyncio.gather(*(
        client.put(recordset["url"], json={"records": [f"192.0.2.{n}"]},
                   headers=_if("If-Match", recordset["etag"])) for n in (10, 11)))
    assert sorted(r.status_code for r in results) == [202, 412]
    winner = next(r for r in results if r.status_code == 202)
    assert (await client.get(recordset["url"], headers=A)).json()["records"] == \
        winner.json()["records"]


async def test_if_none_match_star_on_create(client, zone, recordset):
    url = RS.format(zone["id"])
    again = {"name": "WWW.Etag.Example.", "type": "A", "records": ["192.0.2.5"]}
    _precondition_failed(await client.post(url, json=again, headers=_if("If-None-Match", "*")))
    without = await client.post(url, json=again, headers=A)  # Designate's answer, unchanged
    assert (without.status_code, without.json()["type"]) == (409, "duplicate_recordset")
    fresh = await client.post(url, json={"name": "new.etag.example.", "type": "A",
                                         "records": ["192.0.2.6"]},
                              headers=_if("If-None-Match", "*"))
    assert fresh.status_code == 202 and fresh.headers["etag"]


async def test_change_batch_if_match_on_the_zone(client, zone):
    url = f"/v2/zones/{zone['id']}/changes"
    batch = {"changes": [{"action": "CREATE", "name": "b.etag.example.", "type": "A",
                          "records": ["192.0.2.1"]}]}
    current = (await client.get(f"/v2/zones/{zone['id']}", headers=A)).headers["etag"]
    assert (await client.post(url, json=batch, headers=_if("If-Match", current))
            ).status_code == 202
    second = {"changes": [{"action": "CREATE", "name": "c.etag.example.", "type": "A",
                           "records": ["192.0.2.1"]}]}
    _precondition_failed(await client.post(url, json=second, headers=_if("If-Match", current)))
    listing = (await client.get(f"{RS.format(zone['id'])}?name=c.etag.example.",
                                headers=A)).json()
    assert listing["recordsets"] == []
