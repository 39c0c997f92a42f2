"""Change batches (extension): ``/v2/zones/{zone_id}/changes``, all or nothing, one serial."""

from __future__ import annotations

import asyncio

import pytest

from conftest import project
from openkeel_designate.storage import workqueue

A = project("proj-ch")
B = project("proj-other")


@pytest.fixture
async def zone_id(client, services) -> str:
    response = await client.post("/v2/zones", json={"name": "ch.example.", "email": "h@ch.example"},
                                 headers=A)
    await _serve(services)
    return response.json()["id"]


async def _serve(services) -> list:
    """What the worker does once every nameserver answers: claim (new serial), then complete."""
    claimed = await workqueue.claim(services.db, "test", 60, 10)
    for zone in claimed:
        assert await workqueue.complete(services.db, zone, "test", zone.serial)
    return claimed


async def post(client, zone_id, *changes, headers=A):
    return await client.post(f"/v2/zones/{zone_id}/changes", json={"changes": list(changes)},
                             headers=headers)


async def records(client, zone_id, name, rtype) -> list[str] | None:
    listing = (await client.get(f"/v2/zones/{zone_id}/recordsets?name={name}&type={rtype}",
                                headers=A)).json()["recordsets"]
    return sorted(listing[0]["records"]) if listing else None


def change(action, name, rtype="A", **extra):
    return {"action": action, "name": name, "type": rtype, **extra}


async def test_each_action(client, zone_id):
    response = await post(
        client, zone_id,
        change("CREATE", "a.ch.example.", records=["192.0.2.1"], ttl=300),
        change("UPSERT", "b.ch.example.", records=["192.0.2.2"]),
        change("ADD_RECORDS", "t.ch.example.", "TXT", records=['"one"']),
        change("CREATE", "gone.ch.example.", records=["192.0.2.9"]))
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "PENDING" and body["zone_id"] == zone_id and len(body["changes"]) == 4
    assert body["links"]["self"].endswith(f"/v2/zones/{zone_id}/changes/{body['id']}")
    assert body["created_at"] and body["message"] is None
    response = await post(
        client, zone_id,
        change("UPSERT", "a.ch.example.", records=["192.0.2.3"]),
        change("ADD_RECORDS", "t.ch.example.", "TXT", records=['"two"']),
        change("REMOVE_RECORDS", "b.ch.example.", records=["192.0.2.2"]),
        change("DELETE", "gone.ch.example."),
        change("REMOVE_RECORDS", "never.ch.example.", "TXT", records=['"x"']))
    assert response.status_code == 202, response.json()
    assert await records(client, zone_id, "a.ch.example.", "A") == ["192.0.2.3"]
    assert await records(client, zone_id, "t.ch.example.", "TXT") == ['"one"', '"two"']
    assert await records(client, zone_id, "b.ch.example.", "A") is None
    assert await records(client, zone_id, "gone.ch.example.", "A") is None


async def test_bad_change_in_the_middle_applies_nothing_and_lists_every_problem(client, zone_id):
    response = await post(
        client, zone_id,
        change("CREATE", "ok.ch.example.", records=["192.0.2.1"]),
        change("CREATE", "bad.ch.example.", records=["192.0.2.256"]),
        change("DELETE", "missing.ch.example."),
        change("CREATE", "outside.example.org.", records=["192.0.2.1"]))
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["type"]) == (400, "invalid_object")
    paths = [e["path"][:2] for e in body["errors"]["errors"]]
    assert paths == [["changes", 1], ["changes", 2], ["changes", 3]]
    assert body["errors"]["errors"][0]["path"] == ["changes", 1, "records", 0]
    assert "parent zone" in body["errors"]["errors"][2]["message"]
    assert await records(client, zone_id, "ok.ch.example.", "A") is None


async def test_bad_record_added_to_an_existing_recordset_has_its_own_index(client, zone_id):
    await post(client, zone_id, change("CREATE", "a.ch.example.", records=["192.0.2.1"]))
    response = await post(client, zone_id, change("ADD_RECORDS", "a.ch.example.",
                                                  records=["192.0.2.2", "nope"]))
    assert response.status_code == 400
    assert response.json()["errors"]["errors"][0]["path"] == ["changes", 0, "records", 1]
    assert await records(client, zone_id, "a.ch.example.", "A") == ["192.0.2.1"]


async def test_malformed_changes_are_listed_with_their_index(client, zone_id):
    response = await post(client, zone_id, change("CREATE", "ok.ch.example."),
                          {"action": "RENAME", "name": "x", "type": "A", "bogus": 1},
                          {"name": "n.ch.example."})
    body = response.json()
    assert response.status_code == 400 and body["type"] == "invalid_object"
    paths = [e["path"] for e in body["errors"]["errors"]]
    assert ["changes", 1, "bogus"] in paths and ["changes", 1, "action"] in paths
    assert ["changes", 1, "name"] in paths
    assert ["changes", 2, "action"] in paths and ["changes", 2, "type"] in paths
    assert all(p[1] != 0 for p in paths)
    for body in ({}, {"changes": []}, {"changes": "x"}, [1]):
        response = await client.post(f"/v2/zones/{zone_id}/changes", json=body, headers=A)
        assert response.status_code == 400 and response.json()["type"] == "invalid_object"


async def test_one_serial_one_push_then_active(client, services, zone_id):
    before = (await client.get(f"/v2/zones/{zone_id}", headers=A)).json()["serial"]
    response = await post(client, zone_id,
                          change("CREATE", "a.ch.example.", records=["192.0.2.1"]),
                          change("CREATE", "b.ch.example.", records=["192.0.2.2"]))
    url = response.json()["links"]["self"].replace("http://api.test", "")
    assert (await client.get(url, headers=A)).json()["status"] == "PENDING"
    claimed = await _serve(services)
    assert len(claimed) == 1 and claimed[0].serial > before
    zone = (await client.get(f"/v2/zones/{zone_id}", headers=A)).json()
    assert (zone["status"], zone["serial"]) == ("ACTIVE", claimed[0].serial)
    got = (await client.get(url, headers=A)).json()
    assert (got["status"], got["id"]) == ("ACTIVE", response.json()["id"])
    sets = (await client.get(f"/v2/zones/{zone_id}/recordsets?type=A", headers=A)).json()
    assert {rs["status"] for rs in sets["recordsets"]} == {"ACTIVE"}


async def test_error_carries_the_zone_reason(client, services, zone_id):
    response = await post(client, zone_id, change("CREATE", "a.ch.example.", records=["192.0.2.1"]))
    url = response.json()["links"]["self"].replace("http://api.test", "")
    claimed = await workqueue.claim(services.db, "test", 60, 10)
    assert await workqueue.fail(services.db, claimed[0], "test", "ns1 refused", 60)
    got = (await client.get(url, headers=A)).json()
    assert (got["status"], got["message"]) == ("ERROR", "ns1 refused")


async def test_other_project_gets_404(client, zone_id):
    response = await post(client, zone_id, change("CREATE", "a.ch.example.",
                                                  records=["192.0.2.1"]), headers=B)
    assert (response.status_code, response.json()["type"]) == (404, "zone_not_found")
    created = await post(client, zone_id, change("CREATE", "a.ch.example.", records=["192.0.2.1"]))
    url = created.json()["links"]["self"].replace("http://api.test", "")
    assert (await client.get(url, headers=B)).status_code == 404
    unknown = f"/v2/zones/{zone_id}/changes/00000000-0000-0000-0000-000000000000"
    assert (await client.get(unknown, headers=A)).status_code == 404


async def test_reader_may_not_write(client, zone_id):
    reader = project("proj-ch", roles="reader")
    response = await post(client, zone_id, change("CREATE", "a.ch.example.",
                                                  records=["192.0.2.1"]), headers=reader)
    assert response.status_code == 403
    assert await records(client, zone_id, "a.ch.example.", "A") is None


async def test_managed_records_are_refused_as_on_single_routes(client, zone_id):
    response = await post(client, zone_id, change("DELETE", "ch.example.", "NS"))
    body = response.json()
    assert response.status_code == 400
    assert body["errors"]["errors"][0]["path"] == ["changes", 0]
    assert body["errors"]["errors"][0]["message"] == "Managed records may not be deleted"


async def test_concurrent_dns01_challenges_do_not_clobber(client, zone_id):
    name = "_acme-challenge.ch.example."
    tokens = [f'"token-{i}"' for i in range(6)]
    added = await asyncio.gather(*(post(client, zone_id, change("ADD_RECORDS", name, "TXT",
                                                                 records=[t])) for t in tokens))
    assert all(r.status_code == 202 for r in added), [r.json() for r in added]
    assert await records(client, zone_id, name, "TXT") == sorted(tokens)
    removed = await asyncio.gather(*(post(client, zone_id, change("REMOVE_RECORDS", name, "TXT",
                                                                   records=[t]))
                                     for t in tokens[:3]))
    assert all(r.status_code == 202 for r in removed), [r.json() for r in removed]
    assert await records(client, zone_id, name, "TXT") == sorted(tokens[3:])


class _Recorder:
    """Stands for the notifier: the events a batch sends, in order."""

    enabled = False

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def emit(self, result, *event_types: str) -> None:
        self.events += [(event, result.recordset.name) for event in event_types]


async def test_each_change_sends_the_single_routes_event(client, services, zone_id, monkeypatch):
    await post(client, zone_id, change("CREATE", "b.ch.example.", records=["192.0.2.2"]),
               change("CREATE", "c.ch.example.", records=["192.0.2.3"]))
    recorder = _Recorder()
    monkeypatch.setattr(services, "notifier", recorder)
    response = await post(client, zone_id,
                          change("CREATE", "a.ch.example.", records=["192.0.2.1"]),
                          change("ADD_RECORDS", "b.ch.example.", records=["192.0.2.9"]),
                          change("DELETE", "c.ch.example."),
                          change("REMOVE_RECORDS", "x.ch.example.", "TXT", records=['"t"']))
    assert response.status_code == 202
    assert recorder.events == [("dns.recordset.create", "a.ch.example."),
                               ("dns.recordset.update", "b.ch.example."),
                               ("dns.recordset.delete", "c.ch.example.")]
    failed = await post(client, zone_id, change("CREATE", "d.ch.example.", records=["x"]))
    assert failed.status_code == 400 and len(recorder.events) == 3
