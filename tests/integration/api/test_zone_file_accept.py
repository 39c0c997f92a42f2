"""``Accept: text/dns`` on the zone-file routes: what ``openstack zone export showfile`` sends.

Regression: the edge middleware answered every non-JSON Accept with 406, so the CLI printed
the 406 text instead of the zone file. Designate exposes these two routes as ``text/dns``.
"""

from __future__ import annotations

import pytest
from conftest import project

from openkeel_designate.central import task_runner

A = project("zf-a")
ADMIN = project("zf-a", roles="admin")
TEXT_DNS = {"Accept": "text/dns"}


@pytest.fixture(autouse=True)
async def _settle():
    yield
    await task_runner.drain()


@pytest.fixture
def conf(conf):
    conf.set_override("enable_api_admin", True, group="service:api")
    conf.set_override("enabled_extensions_admin", ["zones"], group="service:api")
    return conf


async def test_export_file_is_served_to_a_text_dns_accept(client):
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
    response = await client.get("/v2/zones", headers={**A, **TEXT_DNS})
    assert response.status_code == 406
    task_list = await client.get("/v2/zones/tasks/exports", headers={**A, **TEXT_DNS})
    assert task_list.status_code == 406
