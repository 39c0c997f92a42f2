"""``Accept: text/dns`` on the zone-file routes: what ``openstack zone export showfile`` sends.

Regression: the edge middleware answered every non-JSON Accept with 406, so the CLI printed
the 406 text instead of the zone file. Designate exposes these two routes as ``text/dns``.
"""

from __future__ import annotations

import pytest
from conftest import project
from support.api_errors import assert_error, assert_forbidden


A = project("zf-a")
ADMIN = project("zf-a", roles="admin")
TEXT_DNS = {"Accept": "text/dns"}
MISSING = "0f0e0d0c-0b0a-4908-8706-050403020100"


@pytest.fixture(autouse=True)
async def _settle(task_runner):
    yield
    await task_runner.drain()


@pytest.fixture
def conf(conf):
    conf.set_override("enable_api_admin", True, group="service:api")
    conf.set_override("enabled_extensions_admin", ["zones"], group="service:api")
    return conf


async def test_export_file_is_served_to_a_text_dns_accept(client, task_runner):
    zone = (await client.post("/v2/zones", json={"name": "zf.example.", "email": "h@zf.example"},
                              headers=A)).json()
    task = (await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=A)).json()
    await task_runner.drain()
    response = await client.get(task["links"]["self"] + "/export", headers={**A, **TEXT_DNS})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/dns")
    assert response.text.startswith("$ORIGIN zf.example.\n")

    admin = await client.get(f"/admin/zones/export/{zone['id']}", headers={**ADMIN, **TEXT_DNS})
    assert admin.status_code == 200
    assert admin.text.startswith("$ORIGIN zf.example.\n")


async def test_json_routes_still_refuse_text_dns(client):
    """WebOb's plain-text 406, as the reference writes it for these two routes."""
    for url in ("/v2/zones", "/v2/zones/tasks/exports"):
        response = await client.get(url, headers={**A, **TEXT_DNS})
        assert response.status_code == 406
        assert response.headers["content-type"].startswith("text/plain")
        assert response.text == ("406 Not Acceptable\n\nThe resource could not be generated that "
                                 "was acceptable to your browser (content of type text/dns. \n\n ")


async def _export(client, task_runner) -> tuple[str, str]:
    zone = (await client.post("/v2/zones", json={"name": "neg.example.", "email": "h@neg.example"},
                              headers=A)).json()
    task = (await client.post(f"/v2/zones/{zone['id']}/tasks/export", headers=A)).json()
    await task_runner.drain()
    return task["links"]["self"] + "/export", f"/admin/zones/export/{zone['id']}"


async def test_zone_file_accept_negotiation_as_designate(client, task_runner):
    """Found by the differential harness: pecan offers text/dns only; WebOb or pecan write the
    406 in the format the Accept header prefers."""
    download, admin = await _export(client, task_runner)
    served = ("text/dns", "*/*", "text/*", "TEXT/DNS", "text/dns;q=0", "garbage",
              "application/json, text/dns;q=0.5", "text/dns;charset=utf-8")
    for accept in served:
        for url, headers in ((download, A), (admin, ADMIN)):
            response = await client.get(url, headers={**headers, "Accept": accept})
            assert response.status_code == 200, (accept, url)
            assert response.text.startswith("$ORIGIN neg.example.")
    refused = {
        "application/json": ("application/json",
                             '{"code": 406, "title": "Not Acceptable", "description": null}'),
        "application/*": ("application/json",
                          '{"code": 406, "title": "Not Acceptable", "description": null}'),
        "text/plain": ("text/plain", "406 Not Acceptable\n\nThe resource could not be generated "
                       "that was acceptable to your browser (content of type text/plain. \n\n "),
        "text/html": ("text/html", None),
        "application/json, text/plain": ("application/json", None),
    }
    for accept, (media, body) in refused.items():
        for url, headers in ((download, A), (admin, ADMIN)):
            response = await client.get(url, headers={**headers, "Accept": accept})
            assert response.status_code == 406, (accept, url)
            assert response.headers["content-type"].startswith(media), accept
            if body is not None:
                assert response.text == body
    webob = await client.get(download, headers={**A, "Accept": "application/json, text/plain"})
    assert webob.json()["code"] == "406 Not Acceptable"
    html = await client.get(download, headers={**A, "Accept": "text/html"})
    assert html.text.startswith("<html>\n <head>\n  <title>406 Not Acceptable</title>")


async def test_export_file_rules_before_the_lookup(client):
    """A member without the reader role may not read exports: 403 even for an unknown one."""
    member_only = project("zf-a", roles="member")
    assert_forbidden(await client.get(f"/v2/zones/tasks/exports/{MISSING}/export",
                                      headers=member_only))
    reader = project("zf-a", roles="reader")
    assert_forbidden(await client.delete(f"/v2/zones/tasks/exports/{MISSING}", headers=reader))
    gone = await client.delete(f"/v2/zones/tasks/exports/{MISSING}", headers=A)
    assert_error(gone, 404, "zone_export_not_found", "Could not find ZoneExport")
