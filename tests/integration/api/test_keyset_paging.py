"""Keyset pages (``marker``) and the cross-zone recordset list, on SQLite, PostgreSQL and MariaDB.

Every walk follows ``links.next`` with a small limit and must give exactly the rows of one big
page, in the same order: across ties in ``created_at`` (the row-value bound must fall back on
``id``), with ``sort_key=name``, with a nullable sort key (NULLs sort first on SQLite and
MariaDB, last on PostgreSQL), and across the two branches of ``GET /v2/recordsets`` (the
project's own zones and the zones shared with it).
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select, update

from conftest import project
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import RecordSet, Zone

A = project("page-a")
B = project("page-b")
C = project("page-c")
TIES = (datetime(2026, 1, 2, 3, 4, 5, 600000), datetime(2026, 1, 2, 3, 4, 5, 700000))


async def walk(client, path: str, headers: dict, limit: int = 2) -> list[dict]:
    """Every item of a list, page by page through ``links.next``."""
    key = "zones" if path.startswith("/v2/zones?") or path == "/v2/zones" else "recordsets"
    separator = "&" if "?" in path else "?"
    url, items = f"{path}{separator}limit={limit}", []
    for _ in range(200):
        body = (await client.get(url, headers=headers)).json()
        items += body[key]
        if "next" not in body["links"]:
            return items
        parts = urlsplit(body["links"]["next"])
        url = f"{parts.path}?{parts.query}"
    raise AssertionError(f"{path}: no last page after 200 pages")


async def whole(client, path: str, headers: dict) -> list[dict]:
    """The list in one page (limit 1000), as the engine orders it."""
    key = "zones" if path.startswith("/v2/zones?") or path == "/v2/zones" else "recordsets"
    separator = "&" if "?" in path else "?"
    body = (await client.get(f"{path}{separator}limit=1000", headers=headers)).json()
    assert "next" not in body["links"]
    return body[key]


async def assert_pages_match(client, path: str, headers: dict) -> list[dict]:
    full = await whole(client, path, headers)
    paged = await walk(client, path, headers)
    assert [i["id"] for i in paged] == [i["id"] for i in full], path
    return full


async def new_zone(client, name: str, headers: dict) -> dict:
    response = await client.post("/v2/zones", json={"name": name, "email": "h@page.example"},
                                 headers=headers)
    assert response.status_code == 202, response.text
    return response.json()


async def new_rrset(client, zone_id: str, name: str, rtype: str = "A", headers: dict = A,
                    ttl: int | None = None) -> dict:
    records = {"A": ["192.0.2.1"], "TXT": ['"t"'], "MX": ["10 mail.page.example."]}[rtype]
    body = {"name": name, "type": rtype, "records": records, **({"ttl": ttl} if ttl else {})}
    response = await client.post(f"/v2/zones/{zone_id}/recordsets", json=body, headers=headers)
    assert response.status_code == 202, response.text
    return response.json()


async def set_created_at(services, model, ids: list[str]) -> None:
    """Two created_at values shared by all ``ids``: ties that only ``id`` can order."""
    async def work(session):
        for index, row_id in enumerate(ids):
            await session.execute(update(model).where(model.id == row_id)
                                  .values(created_at=TIES[index % 2]))

    await services.db.transaction(work)


# --- zones ---------------------------------------------------------------------------------------
@pytest.fixture
async def tied_zones(client, services) -> list[dict]:
    zones = [await new_zone(client, f"{word}.page.example.", A)
             for word in ("kilo", "alpha", "juliet", "delta", "hotel", "bravo", "golf")]
    await set_created_at(services, Zone, [z["id"] for z in zones])
    return zones


@pytest.mark.parametrize("query", ["", "sort_dir=desc", "sort_key=name", "sort_key=name&sort_dir=desc",
                                   "sort_key=created_at&sort_dir=desc", "sort_key=ttl",
                                   "sort_key=updated_at", "sort_key=updated_at&sort_dir=desc"])
async def test_zone_pages_equal_one_page(client, tied_zones, query):
    full = await assert_pages_match(client, f"/v2/zones?{query}", A)
    assert sorted(z["id"] for z in full) == sorted(z["id"] for z in tied_zones)


async def test_zone_order_across_created_at_ties(client, tied_zones):
    tie = {z["id"]: TIES[index % 2] for index, z in enumerate(tied_zones)}
    full = await whole(client, "/v2/zones", A)
    assert [z["id"] for z in full] == sorted(tie, key=lambda zone_id: (tie[zone_id], zone_id))
    backwards = await whole(client, "/v2/zones?sort_dir=desc", A)
    assert [z["id"] for z in backwards] == [z["id"] for z in reversed(full)]
    descending = await whole(client, "/v2/zones?sort_key=name&sort_dir=desc", A)
    assert [z["name"] for z in descending] == sorted((z["name"] for z in tied_zones), reverse=True)


async def test_zone_updated_at_nulls_are_paged_once(client, tied_zones):
    """A nullable sort key: some zones were updated, the others have no updated_at."""
    for zone in tied_zones[::2]:
        response = await client.patch(f"/v2/zones/{zone['id']}", json={"ttl": 600}, headers=A)
        assert response.status_code == 202, response.text
    for query in ("sort_key=updated_at", "sort_key=updated_at&sort_dir=desc"):
        full = await assert_pages_match(client, f"/v2/zones?{query}", A)
        assert len(full) == len(tied_zones)


# --- recordsets -----------------------------------------------------------------------------------
@pytest.fixture
async def shared_world(client, services) -> dict:
    """A owns two zones, one shared with B; B owns one zone; names repeat across zones and types.

    Recordsets: A's and B's in A's shared zone, A's in A's other zone, B's in B's zone, with
    TTLs that are partly unset (NULL), and created_at values that tie.
    """
    shared = await new_zone(client, "shared.page.example.", A)
    private = await new_zone(client, "private.page.example.", A)
    guest_own = await new_zone(client, "guest.page.example.", B)
    response = await client.post(f"/v2/zones/{shared['id']}/shares",
                                 json={"target_project_id": "page-b"}, headers=A)
    assert response.status_code == 201, response.text
    made = []
    for zone, headers in ((shared, A), (shared, B), (private, A), (guest_own, B)):
        origin = zone["name"]
        for label, rtype, ttl in (("www", "A", None), ("www", "TXT", 300), ("mail", "MX", None),
                                  ("Api", "A", 60)):
            if headers is B and zone is shared:
                label = f"b{label}"
            made.append(await new_rrset(client, zone["id"], f"{label}.{origin}", rtype, headers, ttl))
    await set_created_at(services, RecordSet, [r["id"] for r in made])
    return {"shared": shared, "private": private, "guest_own": guest_own, "made": made}


async def zone_recordsets(client, zone_ids: list[str], headers: dict) -> set[str]:
    ids: set[str] = set()
    for zone_id in zone_ids:
        ids |= {r["id"] for r in await whole(client, f"/v2/zones/{zone_id}/recordsets", headers)}
    return ids


RS_QUERIES = ["", "sort_dir=desc", "sort_key=name", "sort_key=name&sort_dir=desc",
              "sort_key=ttl", "sort_key=ttl&sort_dir=desc", "sort_key=type&sort_dir=desc",
              "type=A", "sort_key=updated_at"]


@pytest.mark.parametrize("query", RS_QUERIES)
async def test_cross_zone_pages_equal_one_page(client, shared_world, query):
    for headers in (A, B):
        await assert_pages_match(client, f"/v2/recordsets?{query}", headers)


@pytest.mark.parametrize("query", ["sort_key=ttl", "sort_key=ttl&sort_dir=desc", "sort_key=name",
                                   "sort_key=name&sort_dir=desc", "", "sort_key=type",
                                   "sort_key=type&sort_dir=desc"])
async def test_one_zone_pages_equal_one_page(client, shared_world, query):
    path = f"/v2/zones/{shared_world['shared']['id']}/recordsets?{query}"
    full = await assert_pages_match(client, path, A)
    assert len(full) == 2 + 8  # SOA, NS and the eight made in it


async def test_type_sorts_in_designates_type_order(client, shared_world):
    """``sort_key=type`` follows Designate's list of types (its column is an enumeration):
    A, AAAA, CNAME, MX, SRV, TXT, SPF, NS, PTR, SSHFP, SOA ... — TXT before NS and SOA, which
    an alphabetical sort would reverse."""
    path = f"/v2/zones/{shared_world['shared']['id']}/recordsets?sort_key=type"
    types = [r["type"] for r in await whole(client, path, A)]
    assert [t for i, t in enumerate(types) if t not in types[:i]] == ["A", "MX", "TXT", "NS", "SOA"]
    descending = [r["type"] for r in await whole(client, path + "&sort_dir=desc", A)]
    assert [t for i, t in enumerate(descending) if t not in descending[:i]] == [
        "SOA", "NS", "TXT", "MX", "A"]


async def test_cross_zone_list_follows_the_zone_owner(client, shared_world):
    shared, private, guest_own = (shared_world[k]["id"] for k in ("shared", "private", "guest_own"))
    owner = await whole(client, "/v2/recordsets", A)
    assert {r["id"] for r in owner} == await zone_recordsets(client, [shared, private], A)
    assert {r["project_id"] for r in owner if r["zone_id"] == shared} == {"page-a", "page-b"}
    guest = await whole(client, "/v2/recordsets", B)
    assert {r["id"] for r in guest} == await zone_recordsets(client, [shared, guest_own], B)
    assert {r["zone_id"] for r in guest} == {shared, guest_own}
    assert await whole(client, "/v2/recordsets", C) == []
    body = (await client.get("/v2/recordsets?limit=3", headers=B)).json()
    assert body["metadata"]["total_count"] == len(guest)
    name_desc = await whole(client, "/v2/recordsets?sort_key=name&sort_dir=desc", B)
    names = [r["name"] for r in name_desc]
    assert names == sorted(names, key=str.lower, reverse=True)


async def test_cross_zone_list_after_delete_and_transfer(client, services, shared_world):
    private, guest_own = shared_world["private"]["id"], shared_world["guest_own"]["id"]

    async def deleted(session):  # what the worker does once the nameservers dropped the zone
        assert await zone_store.mark_deleted(session, private, None)

    await services.db.transaction(deleted)
    owner = await whole(client, "/v2/recordsets", A)
    assert private not in {r["zone_id"] for r in owner}
    offer = await client.post(f"/v2/zones/{guest_own}/tasks/transfer_requests",
                              json={"target_project_id": "page-c"}, headers=B)
    assert offer.status_code == 201, offer.text
    accept = await client.post("/v2/zones/tasks/transfer_accepts", headers=C, json={
        "key": offer.json()["key"], "zone_transfer_request_id": offer.json()["id"]})
    assert accept.status_code == 201, accept.text
    assert guest_own not in {r["zone_id"] for r in await whole(client, "/v2/recordsets", B)}
    moved = await whole(client, "/v2/recordsets", C)
    assert {r["zone_id"] for r in moved} == {guest_own} and len(moved) == 2 + 4
    await assert_pages_match(client, "/v2/recordsets", C)


async def test_every_recordset_carries_its_zone_owner(client, services, shared_world):
    """Zone creation, recordset creation (also by a guest) and a bulk insert without the column."""
    async def bulk(session):
        zone = (await session.execute(select(Zone).where(Zone.id == shared_world["private"]["id"]))
                ).scalar_one()
        await session.execute(RecordSet.__table__.insert(), [
            {"id": f"00000000-0000-4000-8000-00000000000{i}", "zone_id": zone.id, "zone_shard": 0,
             "tenant_id": "page-b", "name": f"bulk{i}.private.page.example.", "type": "A",
             "reverse_name": "x", "version": 1, "created_at": TIES[0]} for i in range(2)])

    await services.db.transaction(bulk)
    async with services.db.read() as session:
        rows = (await session.execute(select(RecordSet.zone_tenant_id, Zone.tenant_id)
                                      .join(Zone, Zone.id == RecordSet.zone_id))).all()
    assert len(rows) == 3 * 2 + 16 + 2
    assert all(copied == owner for copied, owner in rows), rows
    names = {r["name"] for r in await whole(client, "/v2/recordsets", A)}
    assert {"bulk0.private.page.example.", "bulk1.private.page.example."} <= names
