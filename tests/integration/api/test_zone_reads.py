"""``GET /v2/zones/{id}`` and ``GET /v2/zones`` read back what the writes returned, on every engine.

A zone read is one statement: its shares, attributes and masters are folded into the zone's row
(a JSON aggregate each engine spells its own way), and a first page carries the project's count
and whether anything is shared with the project (``storage/zones.py``). A column off by one, an
aggregate that mangles quotes or non-ASCII text, a page that loses its count or the zones shared
with the caller would each show here as a body unlike the one the create answered.
"""

from __future__ import annotations

from conftest import project

OWNER = project("reads-owner")
GUEST = project("reads-guest")
LONER = project("reads-loner")  # owns nothing; one zone is shared with it
NOBODY = project("reads-nobody")  # owns nothing, nothing shared with it
ADMIN = project("reads-admin", "admin")
ATTRIBUTES = {"quote": "it's \"quoted\"", "accent": "été ✓", "slash": "a\\b/c", "empty": ""}
MASTERS = ["192.0.2.1", "[2001:db8::1]:5354", "198.51.100.7:5300"]


async def created(client, name: str, headers, **extra) -> dict:
    body = {"name": name, **extra}
    if extra.get("type") != "SECONDARY":
        body["email"] = "hostmaster@example.org"
    response = await client.post("/v2/zones", json=body, headers=headers)
    assert response.status_code == 202, response.text
    return response.json()


def in_any_order(zone: dict) -> dict:
    """The zone with its masters sorted (MariaDB keeps them in the order of their row ids)."""
    return {**zone, "masters": sorted(zone["masters"])}


async def listed(client, headers, query: str = "") -> dict:
    response = await client.get(f"/v2/zones{query}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_zone_reads_fold_attributes_masters_and_shares(client):
    primary = await created(client, "attrs.reads.example.", OWNER, attributes=ATTRIBUTES)
    secondary = await created(client, "masters.reads.example.", OWNER, type="SECONDARY",
                              masters=MASTERS, attributes={"k": "v"})
    plain = await created(client, "plain.reads.example.", OWNER)
    foreign = await created(client, "foreign.reads.example.", GUEST)
    # (masters in no set order: MariaDB keeps them in the order of their random row ids)
    assert (primary["attributes"], sorted(secondary["masters"])) == (ATTRIBUTES, sorted(MASTERS))

    # What the create answered is what a GET reads, column for column (nothing was shared yet;
    # the create answers the masters in the order given, a read in the database's order).
    read = {}
    for zone in (primary, secondary, plain):
        got = await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)
        assert got.status_code == 200 and in_any_order(got.json()) == in_any_order(zone)
        read[zone["id"]] = got.json()
    # From here on every read must agree with the first, masters' order included.
    primary, secondary, plain = (read[zone["id"]] for zone in (primary, secondary, plain))
    page = await listed(client, OWNER)
    assert page["zones"] == [primary, secondary, plain] and page["metadata"]["total_count"] == 3

    for target in ("reads-guest", "reads-loner"):
        share = await client.post(f"/v2/zones/{secondary['id']}/shares",
                                  json={"target_project_id": target}, headers=OWNER)
        assert share.status_code == 201, share.text
    secondary_shared = {**secondary, "shared": True}

    # The owner's list (nothing shared with the owner: the one-statement page) sees the flag.
    page = await listed(client, OWNER)
    assert page["zones"] == [primary, secondary_shared, plain]
    assert page["metadata"]["total_count"] == 3
    first = await listed(client, OWNER, "?limit=1")
    assert first["zones"] == [primary] and first["metadata"]["total_count"] == 3

    # The guest owns a zone and sees the shared one too (the general path), with its extras.
    guest_page = await listed(client, GUEST)
    assert guest_page["zones"] == [secondary_shared, foreign]
    assert guest_page["metadata"]["total_count"] == 2
    got = await client.get(f"/v2/zones/{secondary['id']}", headers=GUEST)
    assert got.status_code == 200 and got.json() == secondary_shared
    assert (await client.get(f"/v2/zones/{primary['id']}", headers=GUEST)).status_code == 404

    # A project owning nothing: its own page is empty, yet a zone is shared with it.
    assert (await listed(client, LONER))["zones"] == [secondary_shared]
    empty = await listed(client, NOBODY)
    assert empty["zones"] == [] and empty["metadata"]["total_count"] == 0
    assert (await client.get(f"/v2/zones/{foreign['id']}", headers=NOBODY)).status_code == 404

    # All projects: the same rows, whoever owns them.
    everything = await listed(client, {**ADMIN, "X-Auth-All-Projects": "True"})
    assert [primary, secondary_shared, plain, foreign] == [
        zone for zone in everything["zones"] if zone["name"].endswith(".reads.example.")]
    got = await client.get(f"/v2/zones/{primary['id']}",
                           headers={**ADMIN, "X-Auth-All-Projects": "True"})
    assert got.status_code == 200 and got.json() == primary


async def test_zone_reads_see_a_write_at_once(client):
    """Read-your-writes: a changed attribute set or a deleted zone is what the next read shows."""
    zone = await created(client, "rw.reads.example.", OWNER, attributes={"a": "1"})
    changed = await client.patch(f"/v2/zones/{zone['id']}", json={"attributes": {"b": "2"}},
                                 headers=OWNER)
    assert changed.status_code == 202, changed.text
    got = await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)
    assert got.json() == changed.json() and got.json()["attributes"] == {"b": "2"}
    assert (await listed(client, OWNER))["zones"] == [changed.json()]
    deleted = await client.delete(f"/v2/zones/{zone['id']}", headers=OWNER)
    assert deleted.status_code == 202
    assert (await client.get(f"/v2/zones/{zone['id']}", headers=OWNER)).json()["action"] == "DELETE"
