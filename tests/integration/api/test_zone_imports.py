"""Zone imports over the v2 API on every database engine (lifecycle.md §8)."""

from __future__ import annotations

import json
import time

import pytest

from conftest import project
from openkeel_designate.central import task_runner
from openkeel_designate.storage import zonetasks
from openkeel_designate.storage.models import ZoneTask, new_id, utcnow

A = project("imp-a")
B = project("imp-b")
URL = "/v2/zones/tasks/imports"
ZONEFILE = """$ORIGIN imported.example.
$TTL 3600
imported.example. IN SOA ns1.example.org. host\\.master.example.org. 2024010101 7200 600 86400 3600
imported.example. IN NS ns1.example.org.
www 300 IN A 192.0.2.10
www IN AAAA 2001:db8::10
mail IN A 192.0.2.25
imported.example. IN MX 10 mail
txt IN TXT "hello world"
sub IN NS ns.elsewhere.example.
"""


@pytest.fixture(autouse=True)
async def _settle():
    yield
    await task_runner.drain()


async def post_file(client, text: str, headers=A):
    return await client.post(URL, content=text.encode(),
                             headers={**headers, "Content-Type": "text/dns"})


async def finished(client, response, headers=A) -> dict:
    await task_runner.drain()
    return (await client.get(response.json()["links"]["self"], headers=headers)).json()


async def test_import_creates_the_zone_and_its_recordsets(client):
    response = await post_file(client, ZONEFILE)
    assert response.status_code == 202
    task = response.json()
    assert list(task) == ["id", "status", "message", "zone_id", "project_id", "created_at",
                          "updated_at", "version", "links"]
    assert task["status"] == "PENDING" and task["zone_id"] is None
    assert response.headers["location"] == task["links"]["self"]
    done = await finished(client, response)
    assert done["status"] == "COMPLETE" and done["message"] == "imported.example. imported"
    assert done["links"]["zone"].endswith(f"/v2/zones/{done['zone_id']}")
    zone = (await client.get(f"/v2/zones/{done['zone_id']}", headers=A)).json()
    assert (zone["name"], zone["email"], zone["ttl"], zone["type"]) == (
        "imported.example.", "host.master@example.org", 3600, "PRIMARY")
    listing = (await client.get(f"/v2/zones/{zone['id']}/recordsets?sort_key=name",
                                headers=A)).json()
    found = {(r["name"], r["type"]): (r["ttl"], r["records"]) for r in listing["recordsets"]}
    assert listing["metadata"]["total_count"] == 8
    assert found[("imported.example.", "NS")] == (None, ["ns1.example.net."])
    assert found[("imported.example.", "MX")] == (3600, ["10 mail.imported.example."])
    assert found[("www.imported.example.", "A")] == (300, ["192.0.2.10"])
    assert found[("txt.imported.example.", "TXT")] == (3600, ['"hello world"'])
    assert found[("sub.imported.example.", "NS")] == (3600, ["ns.elsewhere.example."])
    soa = found[("imported.example.", "SOA")][1][0].split()
    assert soa[:5] == ["ns1.example.net.", "host\\.master.example.org.", "2024010101", "7200",
                       "600"]


async def test_json_import_with_attributes(client):
    response = await client.post(URL, json={"zonefile": ZONEFILE.replace("imported.", "json."),
                                            "attributes": {}}, headers=A)
    assert response.status_code == 202
    assert (await finished(client, response))["status"] == "COMPLETE"


@pytest.mark.parametrize("body,message", [
    (b"$ORIGIN x.example.\n", "Invalid JSON body"),
    (b'{"zone": "x"}', 'The "zonefile" field is required when using application/json content '
                       "type"),
])
async def test_json_body_errors(client, body, message):
    response = await client.post(URL, content=body,
                                 headers={**A, "Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.json()["type"] == "bad_request" and response.json()["message"] == message


async def test_other_content_type_is_415(client):
    response = await client.post(URL, content=b"x", headers={**A, "Content-Type": "text/plain"})
    assert response.status_code == 415
    assert response.json()["message"] == "Content-type must be text/dns or application/json"


async def test_unknown_pool_attributes_fail_at_once(client, conf):
    conf.set_override("scheduler_filters", ["attribute"], group="service:central")
    response = await client.post(URL, json={"zonefile": ZONEFILE, "attributes": {"x": "y"}},
                                 headers=A)
    assert response.status_code == 404 and response.json()["type"] == "no_valid_pool_found"


@pytest.mark.parametrize("text,message", [
    ("$ORIGIN broken.example.\nthis is not a zone file\n", "Malformed zonefile."),
    ("$ORIGIN nosoa.example.\n$TTL 300\nwww IN A 192.0.2.1\n", "An SOA record is required."),
    ("", "An SOA record is required."),
    ("$TTL 300\nwww IN A 192.0.2.1\n",
     "The $ORIGIN statement is required and must be the first statement in the zonefile."),
])
async def test_bad_files_end_in_error(client, text, message):
    response = await post_file(client, text)
    assert response.status_code == 202
    done = await finished(client, response)
    assert (done["status"], done["message"], done["zone_id"]) == ("ERROR", message, None)
    assert "zone" not in done["links"]


async def test_unsupported_type_is_an_undefined_error(client):
    done = await finished(client, await post_file(
        client, ZONEFILE.replace("txt IN TXT", "key IN DNSKEY 256 3 8 AwEAAa== ;")))
    assert done["status"] == "ERROR"
    assert done["message"].startswith("An undefined error occurred. ")


async def test_duplicate_quota_and_ttl_errors(client, conf):
    assert (await finished(client, await post_file(client, ZONEFILE)))["status"] == "COMPLETE"
    again = await finished(client, await post_file(client, ZONEFILE))
    assert again["message"] == "Duplicate zone."
    conf.set_override("quota_zone_recordsets", 3)
    over = await finished(client, await post_file(client, ZONEFILE.replace("imported.", "q.")))
    assert over["message"] == "Quota exceeded during zone import."
    conf.clear_override("quota_zone_recordsets")
    conf.set_override("min_ttl", 7200, group="service:central")
    low = await finished(client, await post_file(client, ZONEFILE.replace("imported.", "t.")))
    assert low["message"] == "TTL is below the minimum: 7200"
    listing = (await client.get("/v2/zones", headers=A)).json()
    assert [z["name"] for z in listing["zones"]] == ["imported.example."]


async def test_list_get_delete_and_visibility(client):
    ok = await post_file(client, ZONEFILE)
    bad = await post_file(client, "")
    await task_runner.drain()
    listing = (await client.get(URL, headers=A)).json()
    assert listing["metadata"]["total_count"] == 2 and listing["links"]["self"].endswith(URL)
    errors = (await client.get(URL + "?status=error", headers=A)).json()["imports"]
    assert [t["id"] for t in errors] == [bad.json()["id"]]
    assert (await client.get(URL, headers=B)).json()["imports"] == []
    other = await client.get(ok.json()["links"]["self"], headers=B)
    assert other.status_code == 404 and other.json() == {
        "code": 404, "type": "zone_import_not_found", "message": "Could not find ZoneImport",
        "request_id": other.json()["request_id"]}
    assert (await client.delete(ok.json()["links"]["self"], headers=B)).status_code == 404
    assert (await client.delete(ok.json()["links"]["self"], headers=A)).status_code == 204
    assert (await client.get(ok.json()["links"]["self"], headers=A)).status_code == 404
    bad_id = await client.get(URL + "/nope", headers=A)
    assert bad_id.status_code == 400 and bad_id.json()["type"] == "invalid_uuid"


async def test_reader_cannot_import(client):
    response = await post_file(client, ZONEFILE, headers=project("imp-a", "reader"))
    assert response.status_code == 403


async def test_pending_import_left_by_a_crash_is_resumed(client, services):
    task_id = new_id()

    async def orphan(session):
        session.add(ZoneTask(
            id=task_id, version=1, tenant_id="imp-a", task_type=zonetasks.IMPORT,
            status="PENDING", created_at=utcnow(), payload=(
                '{"zonefile": %s, "attributes": {}, "context": {"user_id": "u", '
                '"project_id": "imp-a", "roles": ["member", "reader"]}}'
                % json.dumps(ZONEFILE))))

    await services.db.transaction(orphan)
    assert await task_runner.resume(services) == 1
    await task_runner.drain()
    done = (await client.get(f"{URL}/{task_id}", headers=A)).json()
    assert done["status"] == "COMPLETE"
    assert await task_runner.resume(services) == 0


async def test_five_thousand_records_import_quickly(client, conf):
    conf.set_override("quota_zone_recordsets", -1)
    conf.set_override("quota_zone_records", -1)
    conf.set_override("max_request_body_size", 1 << 20, group="oslo_middleware")  # ~130 KB file
    lines = ["$ORIGIN big.example.", "$TTL 300",
             "@ IN SOA ns1.big.example. hostmaster.big.example. 1 3600 600 86400 300"]
    lines += [f"host{i} IN A 10.0.{i // 256}.{i % 256}" for i in range(5000)]
    started = time.monotonic()
    done = await finished(client, await post_file(client, "\n".join(lines) + "\n"))
    elapsed = time.monotonic() - started
    assert done["status"] == "COMPLETE", done
    listing = (await client.get(f"/v2/zones/{done['zone_id']}/recordsets?limit=1",
                                headers=A)).json()
    assert listing["metadata"]["total_count"] == 5002
    assert elapsed < 30, f"5,000 records took {elapsed:.1f} s"
