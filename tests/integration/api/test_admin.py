"""The ``/admin`` API on every database engine: quotas, reports and zone export."""

from __future__ import annotations

import pytest
from conftest import project
from support.api_errors import assert_forbidden

ADMIN = project("adm", "admin")
MEMBER = project("adm-member")
OTHER = project("adm-other")


@pytest.fixture
def admin_api(conf):
    conf.set_override("enable_api_admin", True, group="service:api")
    conf.set_override("enabled_extensions_admin", ["quotas", "reports", "zones"],
                      group="service:api")
    return conf


async def zone(client, name, headers=MEMBER):
    response = await client.post("/v2/zones", json={"name": name, "email": "a@example.org"},
                                 headers=headers)
    assert response.status_code == 202
    return response.json()


async def test_disabled_by_default(client):
    response = await client.get("/admin/quotas/adm", headers=ADMIN)
    assert response.status_code == 404 and response.content == b""


async def test_extensions_must_be_listed(client, conf):
    conf.set_override("enable_api_admin", True, group="service:api")
    conf.set_override("enabled_extensions_admin", ["reports"], group="service:api")
    response = await client.get("/admin/quotas/adm", headers=ADMIN)
    assert response.status_code == 404 and response.json()["message"] == "resource not found"
    assert (await client.get("/admin/reports/counts", headers=ADMIN)).status_code == 200


async def test_quotas(client, admin_api):
    got = await client.get("/admin/quotas/adm-member", headers=ADMIN)
    assert got.status_code == 200
    assert list(got.json()["quota"]) == ["api_export_size", "zones", "zone_records",
                                         "zone_recordsets", "recordset_records"]
    patched = await client.patch("/admin/quotas/adm-member", json={"quota": {"zones": 7}},
                                 headers=ADMIN)
    assert patched.status_code == 200 and patched.json()["quota"]["zones"] == 7
    assert (await client.get("/v2/quotas", headers=MEMBER)).json()["zones"] == 7
    reset = await client.delete("/admin/quotas/adm-member", headers=ADMIN)
    assert reset.status_code == 204
    assert (await client.get("/v2/quotas", headers=MEMBER)).json()["zones"] == 1000
    assert_forbidden(await client.get("/admin/quotas/adm-member", headers=MEMBER))
    assert_forbidden(await client.patch("/admin/quotas/adm-member", json={"quota": {"zones": 1}},
                                        headers=MEMBER))


async def test_quota_body_errors(client, admin_api):
    unknown = (await client.patch("/admin/quotas/x", json={"quota": {"colour": 1}},
                                  headers=ADMIN)).json()
    # As Designate's JSON schema words it (found by the differential harness).
    assert unknown["message"] == "Provided object does not match schema"
    assert unknown["errors"] == [{"path": "quota", "validator": "additionalProperties",
                                  "message": "Additional properties are not allowed ('colour' "
                                             "was unexpected)"}]
    both = (await client.patch("/admin/quotas/x", headers=ADMIN,
                               json={"x": 1, "y": 2, "quota": {"zones": -1, "a": 1}})).json()
    assert [(e["path"], e["validator"]) for e in both["errors"]] == [
        ("", "additionalProperties"), ("quota", "additionalProperties"), ("quota.zones", "minimum")]
    assert both["errors"][0]["message"] == ("Additional properties are not allowed ('x', 'y' were "
                                            "unexpected)")
    for body in ({"quota": {"zones": -1}}, {"quota": {"zones": "x"}}, {"other": {}},
                 {"quota": {"zones": 2147483648}}, {"quota": []}, {}):
        response = await client.patch("/admin/quotas/x", json=body, headers=ADMIN)
        result = response.json()
        assert response.status_code == 400 and result["type"] == "invalid_object", body
        assert result["message"] == "Provided object does not match schema"
        assert isinstance(result["errors"], list) and result["errors"][0]["validator"]


async def test_report_counts(client, admin_api):
    await zone(client, "one.example.")
    await zone(client, "two.example.")
    await zone(client, "three.example.", OTHER)
    counts = (await client.get("/admin/reports/counts", headers=ADMIN)).json()
    assert counts == {"counts": [{"zones": 3, "records": 6, "tenants": 2}]}
    for name, value in (("zones", 3), ("records", 6), ("tenants", 2),
                        ("zones_delayed_notify", 0)):
        one = (await client.get(f"/admin/reports/counts/{name}", headers=ADMIN)).json()
        assert one == {"counts": [{name: value}]}
    unknown = await client.get("/admin/reports/counts/colours", headers=ADMIN)
    assert unknown.status_code == 404 and unknown.json()["type"] == "report_not_found"
    assert "message" not in unknown.json()  # Designate's 404 has none (differential harness)
    assert_forbidden(await client.get("/admin/reports/counts", headers=MEMBER))


async def test_report_tenants(client, admin_api):
    await zone(client, "one.example.")
    await zone(client, "two.example.")
    await zone(client, "three.example.", OTHER)
    listing = (await client.get("/admin/reports/tenants", headers=ADMIN)).json()
    assert listing["links"] == {"self": "http://127.0.0.1:9001/v2/reports/tenants"}
    assert listing["metadata"] == {}
    assert listing["tenants"] == [
        {"zone_count": 2, "id": "adm-member",
         "links": {"self": "http://127.0.0.1:9001/v2/reports/tenants/adm-member"}},
        {"zone_count": 1, "id": "adm-other",
         "links": {"self": "http://127.0.0.1:9001/v2/reports/tenants/adm-other"}},
    ]
    detail = (await client.get("/admin/reports/tenants?detail=yes&limit=2",
                               headers=ADMIN)).json()
    member = next(t for t in detail["tenants"] if t["id"] == "adm-member")
    assert member["zones_count"] == 2 and sorted(member["zones"]) == ["one.example.",
                                                                     "two.example."]
    assert "marker=" in detail["links"]["next"]
    one = (await client.get("/admin/reports/tenants/adm-member", headers=ADMIN)).json()
    assert list(one) == ["zones_count", "zones", "id", "links"]
    assert one["zones"] == ["one.example.", "two.example."]
    bad = await client.get("/admin/reports/tenants?limit=many", headers=ADMIN)
    assert bad.status_code == 400 and bad.json()["type"] == "value_error"
    assert bad.json()["message"] == "'limit' should be an integer or 'max'"
    assert_forbidden(await client.get("/admin/reports/tenants", headers=MEMBER))


async def test_zone_export(client, admin_api):
    created = await zone(client, "export.example.", ADMIN)
    rrset = {"name": "www.export.example.", "type": "A", "records": ["192.0.2.1"], "ttl": 300}
    await client.post(f"/v2/zones/{created['id']}/recordsets", json=rrset, headers=ADMIN)
    response = await client.get(f"/admin/zones/export/{created['id']}", headers=ADMIN)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/dns"
    lines = response.text.split("\n")
    assert lines[:3] == ["$ORIGIN export.example.", "$TTL 3600", ""]
    managed = sorted(lines[3:5])  # SOA and NS are created in the same instant
    assert managed[0] == "export.example.  IN NS ns1.example.net."
    assert managed[1].startswith("export.example.  IN SOA ns1.example.net. a.example.org. ")
    assert lines[5:] == ["www.export.example. 300 IN A 192.0.2.1", "", "", ""]
    assert response.text.endswith("192.0.2.1\n\n\n")
    member_zone = await zone(client, "member.example.")
    assert_forbidden(await client.get(f"/admin/zones/export/{member_zone['id']}", headers=MEMBER))
    hidden = await client.get(f"/admin/zones/export/{member_zone['id']}", headers=ADMIN)
    assert hidden.status_code == 404 and hidden.json()["type"] == "zone_not_found"
    everyone = {**ADMIN, "X-Auth-All-Projects": "true"}
    assert (await client.get(f"/admin/zones/export/{member_zone['id']}",
                             headers=everyone)).status_code == 200
    bad = await client.get("/admin/zones/export/nope", headers=ADMIN)
    assert bad.json()["message"] == "Invalid UUID zone_id: nope"


async def test_quota_patch_checks_the_admin_rule_before_the_body(client, admin_api):
    """Found by the differential harness: a reader gets 403 whatever the body says."""
    for body in ({}, {"quota": {"zones": "x"}}):
        response = await client.patch("/admin/quotas/x", json=body,
                                      headers=project("adm", "reader"))
        assert response.status_code == 403 and response.json()["type"] == "forbidden"
