"""DS recordsets (extension, opt-in) over the v2 API: refused as an unknown type by default, as
Designate does; once listed in ``[DEFAULT] supported_record_type``, accepted at delegation
points only — including the apex name of a child zone, so a signed parent can vouch for it.

SQLite only: the rules are central's, the queries the ones every recordset create runs.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conftest import project
from openkeel_designate.domain import rrtypes
from support.api_errors import assert_error
from support.databases import empty_database_url

A = project("proj-ds")
DIGEST = "c9f3b1ff81a1c4ba97ae33fa2bd0b2a2b2e8e9d5e7e5f3a6f9a4a1d1f3c2b7e8"
DS = f"12345 13 2 {DIGEST}"
IMPORT = """$ORIGIN imported-ds.example.
$TTL 3600
@ IN SOA ns1.example.org. host.example.org. 1 7200 600 86400 3600
@ IN NS ns1.example.org.
sub IN NS ns.elsewhere.example.
sub IN DS 12345 13 2 c9f3b1ff81a1c4ba97ae33fa2bd0b2a2b2e8e9d5e7e5f3a6f9a4a1d1f3c2b7e8
"""


@pytest.fixture
def database_url() -> Iterator[str]:
    with empty_database_url("sqlite", prefix="okd-ds-") as url:
        yield url


@pytest.fixture
def with_ds(conf):
    conf.set_override("supported_record_type", [*rrtypes.default_supported(), "DS"])
    yield
    conf.clear_override("supported_record_type")


async def zone(client, name: str) -> str:
    response = await client.post("/v2/zones", json={"name": name, "email": f"h@{name[:-1]}"},
                                 headers=A)
    assert response.status_code == 202, response.text
    return response.json()["id"]


async def post(client, zone_id, name, rtype, records):
    return await client.post(f"/v2/zones/{zone_id}/recordsets", headers=A,
                             json={"name": name, "type": rtype, "records": records})


async def test_ds_is_an_unknown_type_by_default(client):
    zone_id = await zone(client, "plain.example.")
    await post(client, zone_id, "sub.plain.example.", "NS", ["ns.elsewhere.example."])
    body = assert_error(await post(client, zone_id, "sub.plain.example.", "DS", [DS]),
                        400, "invalid_object")
    unknown = assert_error(await post(client, zone_id, "sub.plain.example.", "XYZ", [DS]),
                           400, "invalid_object")
    assert body["errors"]["errors"] == [{
        "path": ["recordset", "type"], "message": "'DS' is not a valid record type",
        "validator": "value", "validator_value": ["DS"]}]
    assert body.keys() == unknown.keys() and "message" not in body  # as any unknown type


async def test_ds_at_delegation_points_only(client, with_ds):
    zone_id = await zone(client, "ds.example.")
    assert_error(await post(client, zone_id, "ds.example.", "DS", [DS]), 400,
                 "invalid_recordset_location", "DS recordsets may not be created at the zone apex")
    assert_error(await post(client, zone_id, "www.ds.example.", "DS", [DS]), 400,
                 "invalid_recordset_location",
                 "DS recordsets may only be created at a delegation point "
                 "(a name with an NS recordset)")
    bad = assert_error(await post(client, zone_id, "sub.ds.example.", "DS", ["1 13 2 abcd"]),
                       400, "invalid_object")
    assert bad["errors"]["errors"][0]["message"] == "'1 13 2 abcd' is not a 'DS' Record"
    ns = await post(client, zone_id, "sub.ds.example.", "NS", ["ns.elsewhere.example."])
    assert ns.status_code == 202
    created = await post(client, zone_id, "sub.ds.example.", "DS", [DS])
    assert created.status_code == 202, created.text
    assert created.json()["records"] == [DS]
    # The delegation's NS stays while the DS is there; the DS goes first.
    ns_url = f"/v2/zones/{zone_id}/recordsets/{ns.json()['id']}"
    refused = "The NS recordset of a delegation with a DS recordset may not be removed: " \
              "delete the DS recordset first"
    assert_error(await client.delete(ns_url, headers=A), 400, "bad_request", refused)
    assert_error(await client.put(ns_url, json={"records": []}, headers=A), 400, "bad_request",
                 refused)
    ds_url = f"/v2/zones/{zone_id}/recordsets/{created.json()['id']}"
    assert (await client.delete(ds_url, headers=A)).status_code == 202
    assert (await client.delete(ns_url, headers=A)).status_code == 202


async def test_a_parent_may_hold_the_delegation_of_its_child_zone_once_ds_is_enabled(client,
                                                                                     conf):
    parent = await zone(client, "p.example.")
    await zone(client, "c.p.example.")
    ns = ["ns1.example.net."]
    assert_error(await post(client, parent, "c.p.example.", "NS", ns), 400,
                 "invalid_recordset_location", "RecordSet belongs in a child zone: c.p.example.")
    conf.set_override("supported_record_type", [*rrtypes.default_supported(), "DS"])
    try:
        assert (await post(client, parent, "c.p.example.", "NS", ns)).status_code == 202
        assert (await post(client, parent, "C.p.example.", "DS", [DS])).status_code == 202
        for name, rtype, records in (("c.p.example.", "A", ["192.0.2.1"]),
                                     ("www.c.p.example.", "NS", ns)):
            assert_error(await post(client, parent, name, rtype, records), 400,
                         "invalid_recordset_location",
                         "RecordSet belongs in a child zone: c.p.example.")
    finally:
        conf.clear_override("supported_record_type")


async def test_zone_files_carry_ds_at_delegations(client, with_ds, task_runner):
    response = await client.post("/v2/zones/tasks/imports", content=IMPORT.encode(),
                                 headers={**A, "Content-Type": "text/dns"})
    await task_runner.drain()
    done = (await client.get(response.json()["links"]["self"], headers=A)).json()
    assert done["status"] == "COMPLETE", done
    listing = (await client.get(f"/v2/zones/{done['zone_id']}/recordsets?type=DS",
                                headers=A)).json()
    assert [(r["name"], r["records"]) for r in listing["recordsets"]] == [
        ("sub.imported-ds.example.", [DS])]
    export = await client.post(f"/v2/zones/{done['zone_id']}/tasks/export", headers=A)
    await task_runner.drain()
    task = (await client.get(export.json()["links"]["self"], headers=A)).json()
    text = (await client.get(task["links"]["export"], headers=A)).text
    assert f"sub.imported-ds.example. 3600 IN DS {DS}\n" in text
    stray = IMPORT.replace("sub IN DS", "www IN DS").replace("imported-ds.", "stray-ds.")
    response = await client.post("/v2/zones/tasks/imports", content=stray.encode(),
                                 headers={**A, "Content-Type": "text/dns"})
    await task_runner.drain()
    failed = (await client.get(response.json()["links"]["self"], headers=A)).json()
    assert failed["status"] == "ERROR"
    assert "DS recordsets may only be created at a delegation point" in failed["message"]


async def test_a_change_batch_delegates_with_ns_and_ds_at_once(client, with_ds):
    zone_id = await zone(client, "batch-ds.example.")
    url = f"/v2/zones/{zone_id}/changes"
    name = "sub.batch-ds.example."
    both = await client.post(url, headers=A, json={"changes": [
        {"action": "CREATE", "name": name, "type": "NS", "records": ["ns.elsewhere.example."]},
        {"action": "CREATE", "name": name, "type": "DS", "records": [DS]}]})
    assert both.status_code == 202, both.text
    ns_only = await client.post(url, headers=A, json={"changes": [
        {"action": "DELETE", "name": name, "type": "NS"}]})
    body = assert_error(ns_only, 400, "invalid_object")
    assert "delete the DS recordset first" in str(body), body
    undelegated = await client.post(url, headers=A, json={"changes": [
        {"action": "DELETE", "name": name, "type": "DS"},
        {"action": "DELETE", "name": name, "type": "NS"}]})
    assert undelegated.status_code == 202, undelegated.text
