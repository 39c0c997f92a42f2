"""Zone exports over the v2 API on every database engine (api.md §3.6, §5)."""

from __future__ import annotations

import pytest

from conftest import project

A = project("exp-a")
B = project("exp-b")
URL = "/v2/zones/tasks/exports"
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"


@pytest.fixture(autouse=True)
async def _settle(task_runner):
    yield
    await task_runner.drain()


async def zone_with_records(client) -> dict:
    zone = (await client.post("/v2/zones", json={"name": "exp.example.", "ttl": 600,
                                                 "email": "hostmaster@exp.example"},
                              headers=A)).json()
    for body in ({"name": "www.exp.example.", "type": "A", "records": ["192.0.2.1"], "ttl": 300},
                 {"name": "exp.example.", "type": "MX", "records": ["10 mail.exp.example."]}):
        await client.post(f"/v2/zones/{zone['id']}/recordsets", json=body, headers=A)
    return zone


async def test_export_completes_and_renders_the_zone_file(client, task_runner):
    zone = await zone_with_records(client)
    response = await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=A)
    assert response.status_code == 202
    task = response.json()
    assert list(task) == ["id", "status", "message", "location", "zone_id", "project_id",
                          "created_at", "updated_at", "version", "links"]
    assert task["status"] == "PENDING" and list(task["links"]) == ["self"]
    assert response.headers["location"] == task["links"]["self"]
    await task_runner.drain()
    done = (await client.get(task["links"]["self"], headers=A)).json()
    assert done["status"] == "COMPLETE"
    assert done["location"] == f"designate://v2/zones/tasks/exports/{task['id']}/export"
    assert done["links"]["export"] == task["links"]["self"] + "/export"
    text = await client.get(done["links"]["export"], headers=A)
    assert text.status_code == 200 and text.headers["content-type"].startswith("text/dns")
    lines = text.text.split("\n")
    assert lines[:3] == ["$ORIGIN exp.example.", "$TTL 600", ""]
    assert lines[3].startswith("exp.example.  IN SOA ns1.example.net. hostmaster.exp.example. ")
    assert lines[4:] == ["exp.example.  IN NS ns1.example.net.",
                         "www.exp.example. 300 IN A 192.0.2.1",
                         "exp.example.  IN MX 10 mail.exp.example.", "", "", ""]
    assert text.text.endswith(".\n\n\n")  # three line feeds at the end, as Designate 23.0.0


async def test_export_size_quota_is_413(client, conf):
    zone = await zone_with_records(client)
    conf.set_override("quota_api_export_size", 3)
    response = await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=A)
    assert response.status_code == 413
    assert response.json()["message"] == "Quota exceeded for api_export_size."


async def test_missing_and_foreign_zones_are_404(client):
    zone = await zone_with_records(client)
    for zone_id, headers in ((MISSING, A), (zone["id"], B)):
        response = await client.post(f"/v2/zones/{zone_id}/tasks/export", headers=headers)
        assert response.status_code == 404 and response.json()["message"] == "Could not find Zone"


async def test_list_get_delete_and_visibility(client, task_runner):
    zone = await zone_with_records(client)
    task = (await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=A)).json()
    await task_runner.drain()
    listing = (await client.get(URL, headers=A)).json()
    assert [t["id"] for t in listing["exports"]] == [task["id"]]
    assert listing["metadata"] == {"total_count": 1}
    assert (await client.get(f"{URL}?zone_id={zone['id']}", headers=A)).json()["exports"]
    assert (await client.get(URL, headers=B)).json()["exports"] == []
    for path in (task["links"]["self"], task["links"]["self"] + "/export"):
        hidden = await client.get(path, headers=B)
        assert hidden.status_code == 404 and hidden.json()["type"] == "zone_export_not_found"
    assert (await client.delete(task["links"]["self"], headers=A)).status_code == 204
    gone = await client.get(task["links"]["self"], headers=A)
    assert gone.status_code == 404 and gone.json()["message"] == "Could not find ZoneExport"
    bad = await client.get(f"{URL}?sort_key=name", headers=A)
    assert bad.status_code == 400 and bad.json()["type"] == "invalid_sort_key"


async def test_without_synchronous_exports_there_is_nothing_to_download(client, conf,
                                                                      task_runner):
    conf.set_override("export_synchronous", False, group="service:worker")
    zone = await zone_with_records(client)
    task = (await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=A)).json()
    await task_runner.drain()
    done = (await client.get(task["links"]["self"], headers=A)).json()
    assert (done["status"], done["message"], done["location"]) == (
        "ERROR", "No suitable method for export", None)
    response = await client.get(task["links"]["self"] + "/export", headers=A)
    assert response.status_code == 400
    assert response.json()["message"] == "Zone can not be exported synchronously"


async def test_export_read_page_by_page_keeps_the_order(client, monkeypatch, task_runner):
    """Pages of 2 recordsets (storage/zonefile.py): the file is the same as one read would give,
    records of one recordset together and in order, recordsets in creation order."""
    from openkeel_designate.storage import zonefile as zonefile_store

    monkeypatch.setattr(zonefile_store, "PAGE_RECORDSETS", 2)
    zone = await zone_with_records(client)
    for index in range(5):
        await client.post(f"/v2/zones/{zone['id']}/recordsets", headers=A, json={
            "name": f"h{index}.exp.example.", "type": "A",
            "records": [f"192.0.2.{20 + index}", f"192.0.2.{10 + index}"]})
    task = (await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=A)).json()
    await task_runner.drain()
    lines = (await client.get(task["links"]["self"] + "/export", headers=A)).text.split("\n")
    assert lines[4:7] == ["exp.example.  IN NS ns1.example.net.",
                          "www.exp.example. 300 IN A 192.0.2.1",
                          "exp.example.  IN MX 10 mail.exp.example."]
    assert lines[7:17] == [line for index in range(5) for line in (
        f"h{index}.exp.example.  IN A 192.0.2.{10 + index}",
        f"h{index}.exp.example.  IN A 192.0.2.{20 + index}")]
    assert lines[17:] == ["", "", ""]
