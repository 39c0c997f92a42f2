"""Recordsets over the v2 API: placement, CNAME rules, managed records, validation."""

from __future__ import annotations

import pytest

from conftest import project

A = project("proj-rs")


@pytest.fixture
async def zone_id(client) -> str:
    response = await client.post("/v2/zones", json={"name": "rs.example.", "email": "h@rs.example"},
                                 headers=A)
    return response.json()["id"]


async def post(client, zone_id, **body):
    return await client.post(f"/v2/zones/{zone_id}/recordsets", json=body, headers=A)


async def test_create_get_update_delete(client, zone_id):
    created = await post(client, zone_id, name="www.rs.example.", type="A",
                         records=["192.0.2.1", "192.0.2.1", "192.0.2.2"], ttl=300)
    assert created.status_code == 202
    body = created.json()
    assert sorted(body["records"]) == ["192.0.2.1", "192.0.2.2"]
    assert (body["status"], body["action"], body["zone_name"]) == ("PENDING", "CREATE", "rs.example.")
    url = f"/v2/zones/{zone_id}/recordsets/{body['id']}"
    updated = await client.put(url, json={"records": ["192.0.2.3"], "ttl": None}, headers=A)
    assert updated.status_code == 202
    assert updated.json()["records"] == ["192.0.2.3"] and updated.json()["ttl"] is None
    emptied = await client.put(url, json={"records": []}, headers=A)
    assert emptied.status_code == 200 and emptied.json()["status"] == "ACTIVE"
    deleted = await client.delete(url, headers=A)
    assert deleted.status_code == 202
    assert (await client.get(url, headers=A)).status_code == 404


async def test_empty_recordset_is_201_active(client, zone_id):
    response = await post(client, zone_id, name="empty.rs.example.", type="A")
    assert response.status_code == 201
    assert (response.json()["status"], response.json()["action"]) == ("ACTIVE", "NONE")


async def test_placement_and_cname_rules(client, zone_id):
    outside = (await post(client, zone_id, name="www.other.", type="A", records=["192.0.2.1"])).json()
    assert outside["message"] == "RecordSet is not contained within it's parent zone"
    apex = (await post(client, zone_id, name="rs.example.", type="CNAME",
                       records=["t.example."])).json()
    assert apex["message"] == "CNAME recordsets may not be created at the zone apex"
    await post(client, zone_id, name="alias.rs.example.", type="CNAME", records=["t.example."])
    clash = (await post(client, zone_id, name="alias.rs.example.", type="A",
                        records=["192.0.2.1"])).json()
    assert clash["message"] == "CNAME recordsets may not share a name with any other records"
    two = (await post(client, zone_id, name="two.rs.example.", type="CNAME",
                      records=["a.example.", "b.example."])).json()
    assert two == {"code": 400, "type": "bad_request",
                   "message": "CNAME recordsets may not have more than 1 record",
                   "request_id": two["request_id"]}


async def test_managed_records_are_protected(client, zone_id):
    listing = (await client.get(f"/v2/zones/{zone_id}/recordsets?type=NS", headers=A)).json()
    ns_url = f"/v2/zones/{zone_id}/recordsets/{listing['recordsets'][0]['id']}"
    assert (await client.put(ns_url, json={"ttl": 5}, headers=A)).json()["message"] == \
        "Managed records may not be updated"
    assert (await client.delete(ns_url, headers=A)).json()["message"] == \
        "Managed records may not be deleted"
    soa = (await post(client, zone_id, name="rs.example.", type="SOA",
                      records=["a. b. 1 2 3 4 5"])).json()
    assert soa["message"] == "Creating a SOA recordset is not allowed"


async def test_record_validation_is_structured(client, zone_id):
    body = (await post(client, zone_id, name="bad.rs.example.", type="A",
                       records=["192.0.2.1", "192.0.2.256", "x"])).json()
    assert body["errors"]["errors"] == [
        {"path": ["records", 1], "message": "'192.0.2.256' is not a 'A' Record",
         "validator": "format", "validator_value": ["A"]},
        {"path": ["records", 2], "message": "'x' is not a 'A' Record",
         "validator": "format", "validator_value": ["A"]},
    ]
    unknown = (await post(client, zone_id, name="t.rs.example.", type="XYZ", records=[])).json()
    assert unknown["errors"]["errors"][0]["message"] == "'XYZ' is not a valid record type"


async def test_global_recordsets_view_and_redirect(client, zone_id):
    created = (await post(client, zone_id, name="mail.rs.example.", type="MX",
                          records=["10 mx.example."])).json()
    listing = (await client.get("/v2/recordsets?type=MX", headers=A)).json()
    assert [r["id"] for r in listing["recordsets"]] == [created["id"]]
    moved = await client.get(f"/v2/recordsets/{created['id']}", headers=A)
    assert moved.status_code == 301
    assert moved.headers["location"].endswith(f"/v2/zones/{zone_id}/recordsets/{created['id']}")
    hidden = (await client.get("/v2/recordsets?type=MX", headers=project("someone-else"))).json()
    assert hidden["recordsets"] == []


async def test_hide_counts_leaves_total_out_of_recordset_lists(client, zone_id):
    plain = (await client.get(f"/v2/zones/{zone_id}/recordsets", headers=A)).json()
    assert plain["metadata"] == {"total_count": 2}
    hidden = await client.get(f"/v2/zones/{zone_id}/recordsets",
                              headers={**A, "OpenStack-DNS-Hide-Counts": "true"})
    assert hidden.json()["metadata"] == {} and len(hidden.json()["recordsets"]) == 2
    zones = await client.get("/v2/zones", headers={**A, "OpenStack-DNS-Hide-Counts": "true"})
    assert zones.json()["metadata"] == {"total_count": 1}  # Designate hides recordset counts only
