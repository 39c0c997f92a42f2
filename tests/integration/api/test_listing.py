"""Zone listing: filters with operators and wildcards, sorting, markers, links, counts."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from conftest import project

A = project("proj-list")


async def seed(client):
    for name, ttl, email in (("alpha.zl.", 3600, "a@x.org"), ("bravo.zl.", 7200, "b@x.org"),
                             ("charlie.zl.", 600, "a@x.org"), ("delta.zl.", 3600, "d@y.net")):
        response = await client.post("/v2/zones", json={"name": name, "ttl": ttl, "email": email},
                                     headers=A)
        assert response.status_code == 202


async def names(client, query: str) -> list[str]:
    response = await client.get(f"/v2/zones?{query}", headers=A)
    assert response.status_code == 200, response.text
    return [z["name"] for z in response.json()["zones"]]


async def test_filters(client):
    await seed(client)
    assert await names(client, "name=bravo.zl.") == ["bravo.zl."]
    assert await names(client, "name=*a*.zl.&sort_key=name") == [
        "alpha.zl.", "bravo.zl.", "charlie.zl.", "delta.zl."]
    assert await names(client, "email=a@x.org&sort_key=name") == ["alpha.zl.", "charlie.zl."]
    assert await names(client, "ttl=>=3600&sort_key=name") == ["alpha.zl.", "bravo.zl.", "delta.zl."]
    assert await names(client, "ttl=!3600&sort_key=name") == ["bravo.zl.", "charlie.zl."]
    assert await names(client, "ttl=BETWEEN 500,4000&sort_key=name") == [
        "alpha.zl.", "charlie.zl.", "delta.zl."]
    assert await names(client, "ttl=abc") == []
    assert await names(client, "status=pending&sort_key=name&sort_dir=desc") == [
        "delta.zl.", "charlie.zl.", "bravo.zl.", "alpha.zl."]


async def test_pagination_links_and_total(client):
    await seed(client)
    first = (await client.get("/v2/zones?sort_key=name&limit=2", headers=A)).json()
    assert [z["name"] for z in first["zones"]] == ["alpha.zl.", "bravo.zl."]
    assert first["metadata"] == {"total_count": 4}
    next_url = urlsplit(first["links"]["next"])
    assert parse_qs(next_url.query)["marker"] == [first["zones"][1]["id"]]
    second = (await client.get(f"/v2/zones?{next_url.query}", headers=A)).json()
    assert [z["name"] for z in second["zones"]] == ["charlie.zl.", "delta.zl."]
    third = (await client.get(f"/v2/zones?{urlsplit(second['links']['next']).query}",
                              headers=A)).json()
    assert third["zones"] == [] and "next" not in third["links"]


async def test_list_errors(client):
    cases = {
        "limit=0": ("invalid_limit", "limit should be an integer between 1 and 1000"),
        "sort_dir=up": ("invalid_sort_dir", "Unknown sort direction, must be 'desc' or 'asc'"),
        "colour=red": ("bad_request", "Invalid filters colour"),
        "name=a&name=b": ("bad_request", "Duplicate filters name"),
        "marker=0f0e0d0c-0b0a-4908-8706-050403020100": ("marker_not_found",
                                                         "Marker None could not be found"),
    }
    for query, (error_type, message) in cases.items():
        body = (await client.get(f"/v2/zones?{query}", headers=A)).json()
        assert (body["type"], body["message"]) == (error_type, message), query
    assert (await client.get("/v2/zones?marker=zzz", headers=A)).json()["type"] == "invalid_marker"
