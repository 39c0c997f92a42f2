"""DNS names are case-insensitive on every engine (SQLite, PostgreSQL, MariaDB).

Probed on Designate 23.0.0 (MariaDB, case-insensitive collation): a name is kept and shown as
written, and the database compares it without regard to case — duplicate zones and
recordsets, CNAME exclusivity, ``?name=`` filters (exact and ``*``), TLD/TSIG key/blacklist
duplicates. Where Designate compares in Python instead (containment in the zone, child-zone
placement, TLD suffixes, blacklist regexes) it is case-sensitive; here those are
case-insensitive too (README, "Names and case"), and the tests say which is which.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from conftest import project
from support.neutron import NeutronDouble
from openkeel_designate.domain import names
from openkeel_designate.storage.models import Record, RecordSet, new_id
from openkeel_designate.storage.zonesource import SqlZoneSource

A = project("case-a")
B = project("case-b")
ADMIN = project("case-admin", "admin")
EMAIL = "h@example.org"


async def create_zone(client, name, headers=A):
    return await client.post("/v2/zones", json={"name": name, "email": EMAIL}, headers=headers)


async def create_rs(client, zone_id, name, rtype, records, headers=A):
    return await client.post(f"/v2/zones/{zone_id}/recordsets",
                             json={"name": name, "type": rtype, "records": records}, headers=headers)


def error(response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["type"], body["message"]


@pytest.fixture
async def zone_id(client) -> str:
    response = await create_zone(client, "case.example.")
    assert response.status_code == 202
    return response.json()["id"]


# --- zones -------------------------------------------------------------------------------------
async def test_zone_keeps_its_case_and_duplicates_in_any_case_are_refused(client):
    created = await create_zone(client, "CaseTest.Example.")
    assert created.status_code == 202 and created.json()["name"] == "CaseTest.Example."
    assert error(await create_zone(client, "casetest.example.")) == (
        409, "duplicate_zone", "Duplicate Zone")
    assert error(await create_zone(client, "CASETEST.EXAMPLE.", B)) == (
        409, "duplicate_zone", "Zone already exists, owned by a different tenant")


async def test_racing_zone_creates_in_two_cases_leave_one_zone(client):
    results = await asyncio.gather(*[create_zone(client, name) for name in (
        "Race.Example.", "race.example.", "RACE.EXAMPLE.")])
    answers = sorted((r.status_code, r.json()["type"] if r.is_error else None) for r in results)
    assert answers == [(202, None), (409, "duplicate_zone"), (409, "duplicate_zone")]
    listed = (await client.get("/v2/zones", params={"name": "race.example."}, headers=A)).json()
    assert len(listed["zones"]) == 1


@pytest.mark.parametrize("name", ["casetest.example.", "CASETEST.EXAMPLE.", "*TEST.ex*",
                                  "casetest*"])
async def test_zone_name_filter_ignores_case(client, name):
    await create_zone(client, "CaseTest.Example.")
    await create_zone(client, "other.example.")
    listed = (await client.get("/v2/zones", params={"name": name}, headers=A)).json()
    assert [z["name"] for z in listed["zones"]] == ["CaseTest.Example."]


async def test_sub_and_super_zones_of_other_projects_in_another_case(client):
    await create_zone(client, "CaseTest.Example.")
    assert error(await create_zone(client, "SUB.casetest.example.", B)) == (
        403, "illegal_child", "Unable to create subzone in another tenants zone")
    assert (await create_zone(client, "deep.Other.example.", B)).status_code == 202
    assert error(await create_zone(client, "OTHER.Example.")) == (
        403, "illegal_parent",
        "Unable to create zone because another tenant owns a subzone of the zone")


async def test_a_subzone_in_another_case_is_a_child_zone(client):
    parent = (await create_zone(client, "CaseTest.Example.")).json()
    child = await create_zone(client, "SUB.casetest.example.")
    assert child.status_code == 202 and child.json()["name"] == "SUB.casetest.example."
    # Designate links the zones (its database compares without case) but then tests the
    # recordset name against the child's name as written, and accepts these two (202).
    for name in ("www.Sub.CaseTest.Example.", "sub.CaseTest.Example."):
        assert error(await create_rs(client, parent["id"], name, "A", ["192.0.2.1"])) == (
            400, "invalid_recordset_location",
            "RecordSet belongs in a child zone: SUB.casetest.example.")
    deleted = await client.delete(f"/v2/zones/{parent['id']}", headers=A)
    assert deleted.status_code == 400 and deleted.json()["type"] == "zone_has_sub_zone"


# --- recordsets --------------------------------------------------------------------------------
async def test_one_rrset_per_owner_name_and_type_in_any_case(client, zone_id):
    created = await create_rs(client, zone_id, "MiXeD.case.example.", "A", ["192.0.2.1"])
    assert created.status_code == 202 and created.json()["name"] == "MiXeD.case.example."
    assert error(await create_rs(client, zone_id, "mixed.case.example.", "A", ["192.0.2.2"])) == (
        409, "duplicate_recordset", "Duplicate RecordSet")
    assert error(await create_rs(client, zone_id, "MIXED.case.example.", "CNAME",
                                 ["t.example.org."])) == (
        400, "invalid_recordset_location",
        "CNAME recordsets may not share a name with any other records")
    assert (await create_rs(client, zone_id, "mixed.case.example.", "TXT", ['"x"'])).status_code == 202
    listed = (await client.get(f"/v2/zones/{zone_id}/recordsets", params={"type": "A"},
                               headers=A)).json()["recordsets"]
    assert [(r["name"], r["records"]) for r in listed] == [("MiXeD.case.example.", ["192.0.2.1"])]


async def test_nothing_beside_a_cname_in_any_case(client, zone_id):
    assert (await create_rs(client, zone_id, "Cn.case.example.", "CNAME",
                            ["t.example.org."])).status_code == 202
    for rtype, records in (("A", ["192.0.2.1"]), ("CNAME", ["u.example.org."])):
        assert error(await create_rs(client, zone_id, "CN.case.example.", rtype, records)) == (
            400, "invalid_recordset_location",
            "CNAME recordsets may not share a name with any other records")


async def test_apex_in_another_case(client, zone_id):
    assert error(await create_rs(client, zone_id, "CASE.Example.", "NS", ["ns9.example.org."])) == (
        409, "duplicate_recordset", "Duplicate RecordSet")
    # Designate: 400 "RecordSet is not contained within it's parent zone" (suffix as written).
    assert error(await create_rs(client, zone_id, "CASE.EXAMPLE.", "CNAME", ["t.example.org."])) == (
        400, "invalid_recordset_location", "CNAME recordsets may not be created at the zone apex")
    apex_a = await create_rs(client, zone_id, "Case.Example.", "A", ["192.0.2.1"])
    assert apex_a.status_code == 202 and apex_a.json()["name"] == "Case.Example."


async def test_a_name_below_the_zone_in_another_case_belongs_to_it(client, zone_id):
    # Designate: 400 "RecordSet is not contained within it's parent zone".
    created = await create_rs(client, zone_id, "WWW.CASE.EXAMPLE.", "A", ["192.0.2.1"])
    assert created.status_code == 202 and created.json()["name"] == "WWW.CASE.EXAMPLE."
    assert error(await create_rs(client, zone_id, "www.case.example.", "A", ["192.0.2.2"])) == (
        409, "duplicate_recordset", "Duplicate RecordSet")
    outside = await create_rs(client, zone_id, "www.CASE.EXAMPLE.ORG.", "A", ["192.0.2.2"])
    assert error(outside) == (400, "invalid_recordset_location",
                              "RecordSet is not contained within it's parent zone")


@pytest.mark.parametrize("params", [{"name": "mixed.case.example."}, {"name": "*MIXED*"},
                                    {"name": "MIXED.CASE.EXAMPLE."}, {"type": "a"}])
async def test_recordset_filters_ignore_case(client, zone_id, params):
    await create_rs(client, zone_id, "MiXeD.case.example.", "A", ["192.0.2.1"])
    await create_rs(client, zone_id, "other.case.example.", "TXT", ['"x"'])
    for path in (f"/v2/zones/{zone_id}/recordsets", "/v2/recordsets"):
        listed = (await client.get(path, params=params, headers=A)).json()["recordsets"]
        assert [(r["name"], r["type"]) for r in listed] == [("MiXeD.case.example.", "A")], path


async def test_racing_creates_in_two_cases_leave_one_recordset(client, zone_id):
    results = await asyncio.gather(*[
        create_rs(client, zone_id, name, "A", ["192.0.2.1"])
        for name in ("RACE.case.example.", "race.case.example.", "Race.Case.Example.")])
    answers = sorted((r.status_code, r.json()["type"] if r.is_error else None) for r in results)
    assert answers == [(202, None), (409, "duplicate_recordset"), (409, "duplicate_recordset")]
    listed = (await client.get(f"/v2/zones/{zone_id}/recordsets", params={"name": "race.*"},
                               headers=A)).json()["recordsets"]
    assert len(listed) == 1


async def test_the_database_refuses_a_second_rrset_in_another_case(services, zone_id):
    """The unique constraint holds for any writer, not only behind central's checks."""
    for name, refused in (("Dup.case.example.", False), ("dUP.case.example.", True)):
        async with AsyncSession(services.db.engine) as session:
            session.add(RecordSet(id=new_id(), zone_id=zone_id, zone_shard=1, tenant_id="case-a",
                                  name=name, type="A", reverse_name=name[::-1]))
            if refused:
                with pytest.raises(IntegrityError):
                    await session.commit()
            else:
                await session.commit()


# --- TLDs, blacklists, TSIG keys ---------------------------------------------------------------
async def test_tlds_in_any_case(client):
    first = await client.post("/v2/tlds", json={"name": "com"}, headers=ADMIN)
    assert first.status_code == 201
    assert error(await client.post("/v2/tlds", json={"name": "COM"}, headers=ADMIN)) == (
        409, "duplicate_tld", "Duplicate Tld")
    assert (await client.post("/v2/tlds", json={"name": "Co.Uk"}, headers=ADMIN)).status_code == 201
    listed = (await client.get("/v2/tlds", params={"name": "CO.UK"}, headers=ADMIN)).json()
    assert [t["name"] for t in listed["tlds"]] == ["Co.Uk"]
    assert error(await create_zone(client, "CO.UK.")) == (
        400, "invalid_zone_name", "Zone name cannot be the same as a TLD")
    # Designate: 400 "Invalid TLD" (its suffix test compares the names as written).
    for name in ("x.COM.", "Y.co.uk."):
        created = await create_zone(client, name)
        assert created.status_code == 202 and created.json()["name"] == name
    assert error(await create_zone(client, "x.org.")) == (400, "invalid_zone_name", "Invalid TLD")


async def test_blacklists_in_any_case(client):
    created = await client.post("/v2/blacklists", json={"pattern": r"^evil\.example\.$"},
                                headers=ADMIN)
    assert created.status_code == 201
    assert error(await client.post("/v2/blacklists", json={"pattern": r"^EVIL\.example\.$"},
                                   headers=ADMIN)) == (409, "duplicate_blacklist",
                                                       "Duplicate Blacklist")
    listed = (await client.get("/v2/blacklists", params={"pattern": "*EVIL*"},
                               headers=ADMIN)).json()
    assert [b["pattern"] for b in listed["blacklists"]] == [r"^evil\.example\.$"]
    # Designate matches with re.search as is and lets EVIL.example. through (202).
    for name in ("evil.example.", "EVIL.Example."):
        assert error(await create_zone(client, name)) == (
            400, "invalid_zone_name", "Blacklisted zone name")
    assert (await create_zone(client, "EVIL.Example.", ADMIN)).status_code == 202


async def test_tsigkey_names_in_any_case(client):
    key = {"algorithm": "hmac-sha256", "secret": "c2VjcmV0", "scope": "POOL",
           "resource_id": "794ccc2c-d751-44fe-b57f-8894c9f5c842"}
    first = await client.post("/v2/tsigkeys", json={"name": "Key-One", **key}, headers=ADMIN)
    assert first.status_code == 201
    assert error(await client.post("/v2/tsigkeys", json={"name": "key-one", **key},
                                   headers=ADMIN)) == (409, "duplicate_tsigkey", "Duplicate TsigKey")
    listed = (await client.get("/v2/tsigkeys", params={"name": "KEY-ONE"}, headers=ADMIN)).json()
    assert [k["name"] for k in listed["tsigkeys"]] == ["Key-One"]
    renamed = await client.patch(f"/v2/tsigkeys/{first.json()['id']}", json={"name": "KEY-ONE"},
                                 headers=ADMIN)
    assert renamed.status_code == 200 and renamed.json()["name"] == "KEY-ONE"


# --- what the DNS side serves from old data ----------------------------------------------------
async def test_a_cname_stored_beside_data_in_another_case_is_not_served(client, services, zone_id):
    """Rows written before 0005 (a CNAME beside an A in another case) still transfer as a zone
    a BIND-style secondary accepts: mdns leaves the CNAME out."""
    assert (await create_rs(client, zone_id, "cn.case.example.", "A", ["192.0.2.1"])).status_code == 202
    rs_id = new_id()
    async with AsyncSession(services.db.engine) as session:
        session.add(RecordSet(id=rs_id, zone_id=zone_id, zone_shard=1, tenant_id="case-a",
                              name="Cn.case.example.", type="CNAME", reverse_name="x"))
        await session.flush()
        session.add(Record(id=new_id(), zone_id=zone_id, zone_shard=1, recordset_id=rs_id,
                           data="t.example.org.", hash=new_id()[:32], status="ACTIVE",
                           action="NONE"))
        await session.commit()
    source = SqlZoneSource(services.db)
    served = await source.zone_records(zone_id)
    assert [(r.name, r.type, r.data) for r in served if names.same(r.name, "cn.case.example.")] == [
        ("cn.case.example.", "A", "192.0.2.1")]
    assert await source.rrset(zone_id, "CN.CASE.EXAMPLE.", "CNAME") == []
    assert [r.data for r in await source.rrset(zone_id, "CN.case.example.", "A")] == ["192.0.2.1"]


async def test_a_reverse_zone_written_in_another_case_takes_the_ptr(client, conf):
    """The managed tenant's ``2.0.192.IN-ADDR.ARPA.`` is the floating IP's reverse zone."""
    managed = project("00000000-0000-0000-0000-000000000000", "admin")
    zone = await create_zone(client, "2.0.192.IN-ADDR.ARPA.", managed)
    assert zone.status_code == 202
    with NeutronDouble() as neutron:
        neutron.add_token("tok-case-a", "case-a")
        conf.set_override("endpoints", [f"RegionOne|{neutron.url}"], group="network_api:neutron")
        fip = neutron.assign("case-a", "192.0.2.10")
        response = await client.patch(f"/v2/reverse/floatingips/RegionOne:{fip}",
                                      json={"ptrdname": "host.example.org."},
                                      headers={**A, "X-Auth-Token": "tok-case-a"})
        assert response.status_code == 202, response.json()
    listed = (await client.get(f"/v2/zones/{zone.json()['id']}/recordsets",
                               params={"type": "PTR"}, headers=managed)).json()["recordsets"]
    assert [(r["name"], r["records"]) for r in listed] == [
        ("10.2.0.192.in-addr.arpa.", ["host.example.org."])]
