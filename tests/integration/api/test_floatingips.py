"""``/v2/reverse/floatingips`` against a real HTTP double of Neutron, on every database engine."""

from __future__ import annotations

import pytest
from conftest import project
from support.api_errors import assert_error
from support.neutron import NeutronDouble

from openkeel_designate.domain.context import RequestContext
from openkeel_designate.network import neutron as neutron_client

MANAGED = "00000000-0000-0000-0000-000000000000"
REGION = "RegionOne"
ZONE = "2.0.192.in-addr.arpa."
URL = "/v2/reverse/floatingips"
ADMIN_ALL = {**project("fip-admin", "admin"), "X-Auth-All-Projects": "true"}


def caller(name: str, token: str | None = None, roles: str = "member,reader") -> dict[str, str]:
    return {**project(name, roles), "X-Auth-Token": token or f"tok-{name}"}


A, B, C = caller("fip-a"), caller("fip-b"), caller("fip-c")


@pytest.fixture
def neutron(conf):
    with NeutronDouble() as double:
        for name in ("fip-a", "fip-b", "fip-c"):
            double.add_token(f"tok-{name}", name)
        conf.set_override("endpoints", [f"{REGION}|{double.url}"], group="network_api:neutron")
        yield double


@pytest.fixture
def fip(neutron) -> str:
    return neutron.assign("fip-a", "192.0.2.10")


async def set_ptr(client, fip_id: str, headers=A, **body):
    body.setdefault("ptrdname", "host.example.org.")
    return await client.patch(f"{URL}/{REGION}:{fip_id}", json=body, headers=headers)


async def ptr_recordsets(client) -> list[dict]:
    response = await client.get("/v2/recordsets", params={"type": "PTR"}, headers=ADMIN_ALL)
    return response.json()["recordsets"]


async def reverse_zones(client) -> list[dict]:
    response = await client.get("/v2/zones", params={"name": ZONE}, headers=ADMIN_ALL)
    return response.json()["zones"]


# --- reading -----------------------------------------------------------------------------------
async def test_without_neutron_endpoint_or_catalog_is_a_configuration_error(client):
    response = await client.get(URL, headers=A)
    assert response.status_code == 500
    assert response.json()["type"] == "configuration_error"
    assert response.json()["message"] == "No service_catalog and no configured endpoints"


async def test_list_shows_the_callers_floating_ips_without_ptr(client, neutron, fip):
    other = neutron.assign("fip-b", "198.51.100.7")
    response = await client.get(URL, headers=A)
    assert response.status_code == 200, response.text
    body = response.json()
    assert list(body) == ["floatingips", "links"]
    assert body["links"] == {"self": f"http://api.test{URL}"}
    assert body["floatingips"] == [{
        "id": f"{REGION}:{fip}", "description": None, "address": "192.0.2.10", "ptrdname": None,
        "ttl": None, "action": "NONE", "status": "INACTIVE",
        "links": {"self": f"http://api.test{URL}/{REGION}:{fip}"}}]
    assert neutron.requests[-1] == {"token": "tok-fip-a", "project_id": "fip-a"}
    listed = (await client.get(URL, headers=B)).json()["floatingips"]
    assert [f["id"] for f in listed] == [f"{REGION}:{other}"]


async def test_get_one_and_its_errors(client, neutron, fip):
    response = await client.get(f"{URL}/{REGION}:{fip}", headers=A)
    assert response.status_code == 200, response.text
    assert response.json()["address"] == "192.0.2.10"

    bad = await client.get(f"{URL}/{fip}", headers=A)
    assert bad.status_code == 400
    assert bad.json()["message"] == f"Floating IP {fip} is not in the format of <region>:<uuid>"

    foreign = await client.get(f"{URL}/{REGION}:{fip}", headers=B)
    assert foreign.status_code == 404
    assert foreign.json()["type"] == "not_found"
    assert foreign.json()["message"] == \
        f'FloatingIP {fip} in {REGION} is not associated for project "fip-b"'

    elsewhere = await client.get(f"{URL}/RegionTwo:{fip}", headers=A)
    assert (elsewhere.status_code, elsewhere.json()["type"]) == (403, "no_endpoint")


async def test_neutron_failure_is_504(client, neutron, fip):
    neutron.failing = True
    for response in (await client.get(URL, headers=A),
                     await client.get(f"{URL}/{REGION}:{fip}", headers=A),
                     await set_ptr(client, fip)):
        assert response.status_code == 504, response.text
        assert response.json()["type"] == "neutron_communication_failure"


async def test_unreachable_neutron_is_504(client, conf):
    conf.set_override("endpoints", [f"{REGION}|http://127.0.0.1:9"], group="network_api:neutron")
    response = await client.get(URL, headers=A)
    assert (response.status_code, response.json()["type"]) == (504, "neutron_communication_failure")


# --- setting and unsetting ---------------------------------------------------------------------
async def test_set_creates_the_managed_reverse_zone_and_ptr(client, neutron, fip):
    response = await set_ptr(client, fip, ttl=600, description="web")
    assert response.status_code == 202, response.text
    body = response.json()
    assert (body["id"], body["address"], body["ptrdname"], body["ttl"], body["description"]) == \
        (f"{REGION}:{fip}", "192.0.2.10", "host.example.org.", 600, "web")
    assert (body["action"], body["status"]) == ("CREATE", "PENDING")

    zones = await reverse_zones(client)
    assert [(z["name"], z["project_id"], z["email"]) for z in zones] == \
        [(ZONE, MANAGED, "hostmaster@example.com")]
    [ptr] = await ptr_recordsets(client)
    assert (ptr["name"], ptr["records"], ptr["ttl"], ptr["zone_id"]) == \
        ("10.2.0.192.in-addr.arpa.", ["host.example.org."], 600, zones[0]["id"])

    shown = (await client.get(f"{URL}/{REGION}:{fip}", headers=A)).json()
    assert (shown["ptrdname"], shown["ttl"], shown["description"]) == \
        ("host.example.org.", 600, "web")
    listed = (await client.get(URL, headers=A)).json()["floatingips"]
    assert listed == [shown]


async def test_set_again_replaces_the_record_and_reuses_the_zone(client, neutron, fip):
    assert (await set_ptr(client, fip)).status_code == 202
    again = await set_ptr(client, fip, ptrdname="other.example.org.")
    assert again.status_code == 202, again.text
    assert again.json()["ttl"] == 3600  # no ttl: the zone's
    second = neutron.assign("fip-a", "192.0.2.11")
    assert (await set_ptr(client, second, ptrdname="two.example.org.")).status_code == 202
    assert len(await reverse_zones(client)) == 1
    records = sorted((r["name"], r["records"]) for r in await ptr_recordsets(client))
    assert records == [("10.2.0.192.in-addr.arpa.", ["other.example.org."]),
                       ("11.2.0.192.in-addr.arpa.", ["two.example.org."])]


async def test_unset_answers_null_and_removes_the_ptr(client, neutron, fip):
    assert (await set_ptr(client, fip)).status_code == 202
    response = await set_ptr(client, fip, ptrdname=None)
    assert response.status_code == 202
    assert response.text == "null"
    assert await ptr_recordsets(client) == []
    shown = (await client.get(f"{URL}/{REGION}:{fip}", headers=A)).json()
    assert (shown["ptrdname"], shown["action"], shown["status"]) == (None, "NONE", "INACTIVE")
    again = await set_ptr(client, fip, ptrdname=None)
    assert again.status_code == 404
    assert again.json()["message"] == f"No such FloatingIP {REGION}:{fip}"


async def test_body_rules(client, neutron, fip):
    unknown = await set_ptr(client, fip, foo=1)
    assert unknown.status_code == 400
    assert unknown.json()["message"] == \
        "Provided object does not match schema. Keys ['foo'] are not valid for floatingip"
    relative = await set_ptr(client, fip, ptrdname="host.example.org")
    assert (relative.status_code, relative.json()["type"]) == (400, "invalid_object")
    negative = await set_ptr(client, fip, ttl=-1)
    assert (negative.status_code, negative.json()["type"]) == (400, "invalid_object")
    read_only = await set_ptr(client, fip, address="192.0.2.99")
    assert_error(read_only, 400, "invalid_object", "Provided object does not match schema. "
                 "Keys ['address'] are not valid for floatingip")
    assert await ptr_recordsets(client) == []


# --- who may write -----------------------------------------------------------------------------
async def test_a_project_cannot_set_or_unset_the_ptr_of_a_floating_ip_it_does_not_own(
        client, neutron, fip):
    not_associated = f'FloatingIP {fip} in {REGION} is not associated for project "fip-b"'
    response = await set_ptr(client, fip, headers=B, ptrdname="evil.example.org.")
    assert_error(response, 404, "not_found", not_associated)
    assert (await set_ptr(client, fip)).status_code == 202
    unset = await set_ptr(client, fip, headers=B, ptrdname=None)
    assert_error(unset, 404, "not_found", not_associated)
    assert [r["records"] for r in await ptr_recordsets(client)] == [["host.example.org."]]


async def test_another_projects_token_does_not_reach_its_floating_ips(client, neutron, fip):
    """Project B presenting A's token: Neutron refuses the listing of B's project."""
    borrowed = {**project("fip-b"), "X-Auth-Token": "tok-fip-a"}
    response = await set_ptr(client, fip, headers=borrowed)
    assert response.status_code == 504
    assert await ptr_recordsets(client) == []


async def test_floating_ips_of_other_projects_are_ignored_even_if_neutron_lists_them(
        client, neutron, fip):
    neutron.leaky = True
    assert (await client.get(URL, headers=B)).json()["floatingips"] == []
    assert_error(await set_ptr(client, fip, headers=B), 404, "not_found",
                 f'FloatingIP {fip} in {REGION} is not associated for project "fip-b"')


async def test_a_reader_cannot_set_a_ptr(client, neutron, fip):
    response = await set_ptr(client, fip, headers=caller("fip-a", roles="reader"))
    assert (response.status_code, response.json()["type"]) == (403, "forbidden")
    readable = await client.get(URL, headers=caller("fip-a", roles="reader"))
    assert readable.status_code == 200


async def test_a_reverse_zone_owned_by_another_project_is_never_borrowed(client, neutron, fip):
    squat = await client.post("/v2/zones", headers=C,
                              json={"name": ZONE, "email": "evil@example.org"})
    assert squat.status_code == 202, squat.text
    response = await set_ptr(client, fip)
    assert response.status_code == 409
    assert response.json()["type"] == "duplicate_zone"
    assert response.json()["message"] == "Zone already exists, owned by a different tenant"
    assert await ptr_recordsets(client) == []
    assert [z["project_id"] for z in await reverse_zones(client)] == ["fip-c"]


async def test_the_reverse_zone_counts_against_the_managed_tenants_quota(client, conf, neutron):
    conf.set_override("quota_zones", 1)
    first = neutron.assign("fip-a", "192.0.2.10")
    second = neutron.assign("fip-a", "198.51.100.10")
    assert (await set_ptr(client, first)).status_code == 202
    response = await set_ptr(client, second)
    assert (response.status_code, response.json()["type"]) == (413, "over_quota")


# --- a floating IP that changed hands ----------------------------------------------------------
async def test_the_former_owners_ptr_is_invalidated_on_read(client, neutron, fip):
    assert (await set_ptr(client, fip)).status_code == 202
    neutron.assign("fip-b", "192.0.2.10", fip)
    assert (await client.get(URL, headers=A)).json()["floatingips"] == []
    shown = (await client.get(f"{URL}/{REGION}:{fip}", headers=B)).json()
    assert (shown["ptrdname"], shown["status"]) == (None, "INACTIVE")
    assert await ptr_recordsets(client) == []
    assert (await set_ptr(client, fip, headers=B, ptrdname="new.example.org.")).status_code == 202
    assert [r["records"] for r in await ptr_recordsets(client)] == [["new.example.org."]]


# --- endpoints from the caller's service catalog -----------------------------------------------
async def test_catalog_network_endpoints_are_used_when_none_is_configured(conf):
    with NeutronDouble() as double:
        double.add_token("tok", "cat")
        fip_id = double.assign("cat", "203.0.113.5")
        catalog = [{"type": "identity", "endpoints": [{"region": REGION, "publicURL": "x"}]},
                   {"type": "network", "endpoints": [
                       {"region": REGION, "publicURL": double.url, "internalURL": "http://no"}]}]
        ctx = RequestContext(project_id="cat", auth_token="tok")
        ctx.service_catalog = catalog
        fips = await neutron_client.list_floatingips(conf, ctx)
        assert [(f.region, f.id, f.address) for f in fips.values()] == \
            [(REGION, fip_id, "203.0.113.5")]
        ctx.service_catalog = catalog[:1]
        with pytest.raises(neutron_client.NetworkEndpointNotFound):
            await neutron_client.list_floatingips(conf, ctx)
