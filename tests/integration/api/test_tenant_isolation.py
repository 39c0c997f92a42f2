"""Tenant isolation matrix: for each operation, which role of which project may do what to whose
resources — Designate 23.0.0's default policy (secure RBAC: member / reader / admin).

Rows are operations on project A's zone (fresh for every cell); columns are callers. 404 means
the resource is invisible to that caller, 403 that policy refuses it.

Every refused cell answers as the reference Designate 23.0.0 does (each asked on it, and the
corpus's ``tenancy/`` steps): 403 is a policy denial, ``forbidden`` without a message; 404 is
``zone_not_found`` "Could not find Zone" (a recordset of an invisible zone too).
"""

from __future__ import annotations

import pytest

from conftest import project
from support.api_errors import assert_error

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

CALLERS = {
    "owner-member": project("proj-a"),
    "owner-reader": project("proj-a", "reader"),
    "owner-norole": {"X-Auth-Project-ID": "proj-a", "X-Roles": ""},
    "other-member": project("proj-b"),
    "admin": project("proj-admin", "admin"),
    "admin-all": {**project("proj-admin", "admin"), "X-Auth-All-Projects": "true"},
}
Z = "{zone}"
R = "{recordset}"

# operation -> (method, path, body, expected status per caller)
MATRIX = {
    "get zone": ("GET", f"/v2/zones/{Z}", None,
                 dict(zip(CALLERS, (200, 200, 403, 404, 404, 200)))),
    "update zone": ("PATCH", f"/v2/zones/{Z}", {"ttl": 600},
                    dict(zip(CALLERS, (202, 403, 403, 404, 404, 202)))),
    "delete zone": ("DELETE", f"/v2/zones/{Z}", None,
                    dict(zip(CALLERS, (202, 403, 403, 404, 404, 202)))),
    "zone nameservers": ("GET", f"/v2/zones/{Z}/nameservers", None,
                         dict(zip(CALLERS, (200, 200, 403, 404, 404, 200)))),
    "list recordsets": ("GET", f"/v2/zones/{Z}/recordsets", None,
                        dict(zip(CALLERS, (200, 200, 403, 404, 404, 200)))),
    "create recordset": ("POST", f"/v2/zones/{Z}/recordsets",
                         {"name": "new.iso.example.", "type": "A", "records": ["192.0.2.9"]},
                         dict(zip(CALLERS, (202, 403, 403, 404, 404, 202)))),
    "get recordset": ("GET", f"/v2/zones/{Z}/recordsets/{R}", None,
                      dict(zip(CALLERS, (200, 200, 403, 404, 404, 200)))),
    "update recordset": ("PUT", f"/v2/zones/{Z}/recordsets/{R}", {"ttl": 60},
                         dict(zip(CALLERS, (202, 403, 403, 404, 404, 202)))),
    "delete recordset": ("DELETE", f"/v2/zones/{Z}/recordsets/{R}", None,
                         dict(zip(CALLERS, (202, 403, 403, 404, 404, 202)))),
    "export zone": ("POST", f"/v2/zones/{Z}/tasks/export", None,
                    dict(zip(CALLERS, (202, 403, 403, 404, 404, 202)))),
    "transfer request": ("POST", f"/v2/zones/{Z}/tasks/transfer_requests", {},
                         dict(zip(CALLERS, (201, 403, 403, 404, 404, 201)))),
    "share zone": ("POST", f"/v2/zones/{Z}/shares", {"target_project_id": "proj-c"},
                   dict(zip(CALLERS, (201, 403, 403, 404, 404, 201)))),
    # Designate checks the admin-only abandon rule before it looks the zone up: a member of
    # another project is refused (403) like the owner's member, an admin sees 404.
    "abandon zone": ("POST", f"/v2/zones/{Z}/tasks/abandon", None,
                     dict(zip(CALLERS, (403, 403, 403, 403, 404, 204)))),
    "create zone": ("POST", "/v2/zones", {"name": "mine.example.", "email": "h@mine.example"},
                    dict(zip(CALLERS, (202, 403, 403, 202, 202, 202)))),
    "A's quotas": ("GET", "/v2/quotas/proj-a", None,
                   dict(zip(CALLERS, (200, 200, 403, 403, 403, 200)))),
    "create TLD": ("POST", "/v2/tlds", {"name": "isolation"},
                   dict(zip(CALLERS, (403, 403, 403, 403, 201, 201)))),
    "list pools": ("GET", "/v2/pools", None,
                   dict(zip(CALLERS, (403, 403, 403, 403, 200, 200)))),
    "service statuses": ("GET", "/v2/service_statuses", None,
                         dict(zip(CALLERS, (403, 403, 403, 403, 200, 200)))),
}

CELLS = [(op, caller) for op in MATRIX for caller in CALLERS]
# refused status -> Designate's (type, message); None: no message key
REFUSALS = {403: ("forbidden", None), 404: ("zone_not_found", "Could not find Zone")}


@pytest.mark.parametrize(("operation", "caller"), CELLS, ids=[f"{o}|{c}" for o, c in CELLS])
async def test_matrix(client, operation: str, caller: str) -> None:
    owner = CALLERS["owner-member"]
    zone = (await client.post("/v2/zones", json={"name": "iso.example.",
                                                 "email": "h@iso.example"}, headers=owner)).json()
    recordset = (await client.post(f"/v2/zones/{zone['id']}/recordsets", json={
        "name": "www.iso.example.", "type": "A", "records": ["192.0.2.1"]},
        headers=owner)).json()
    method, path, body, expected = MATRIX[operation]
    url = path.replace(Z, zone["id"]).replace(R, recordset["id"])
    headers = CALLERS[caller]
    if body is None:
        response = await client.request(method, url, headers=headers)
    else:
        response = await client.request(method, url, json=body, headers=headers)
    assert response.status_code == expected[caller], (operation, caller, response.text)
    if expected[caller] >= 400:
        assert_error(response, expected[caller], *REFUSALS[expected[caller]])


async def test_lists_show_only_the_callers_zones(client) -> None:
    for name, caller in (("a.iso.example.", "owner-member"), ("b.iso.example.", "other-member")):
        created = await client.post("/v2/zones", json={"name": name, "email": "h@iso.example"},
                                    headers=CALLERS[caller])
        assert created.status_code == 202

    async def names(caller: str) -> list[str]:
        listing = await client.get("/v2/zones?sort_key=name", headers=CALLERS[caller])
        return [z["name"] for z in listing.json()["zones"]]

    assert await names("owner-member") == ["a.iso.example."]
    assert await names("owner-reader") == ["a.iso.example."]
    assert await names("other-member") == ["b.iso.example."]
    assert await names("admin") == []
    assert await names("admin-all") == ["a.iso.example.", "b.iso.example."]
    records = await client.get("/v2/recordsets", headers=CALLERS["other-member"])
    assert all(r["zone_name"] == "b.iso.example." for r in records.json()["recordsets"])
