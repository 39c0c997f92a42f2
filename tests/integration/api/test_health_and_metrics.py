"""/healthcheck (oslo.middleware's answers), the probes, API metrics by route template and the
request log line carrying the response's request id.  SQLite only: nothing here depends on the
engine but the outage, which uses an address where no database listens."""

from __future__ import annotations

import json
import logging
import uuid

import httpx
import pytest

from openkeel_designate import config
from openkeel_designate.api.app import create_app
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services
from openkeel_designate.observability import metrics
from openkeel_designate.storage.database import Database
from support.server import free_port


@pytest.fixture(params=["sqlite"])
def database_url(request, tmp_path):
    from openkeel_designate.storage import migrate

    url = f"sqlite:///{tmp_path / 'health.sqlite'}"
    migrate.upgrade(url)
    return url


def _count(method: str, route: str, status: str) -> float:
    return metrics.REGISTRY.get_sample_value(
        "designate_api_requests_total", {"method": method, "route": route, "status": status}) or 0


async def test_healthcheck_answers_as_oslo_middleware(client):
    plain = await client.get("/healthcheck")
    assert (plain.status_code, plain.text) == (200, "OK")
    assert plain.headers["content-type"].startswith("text/plain")
    assert (await client.head("/healthcheck")).status_code == 204
    short = await client.get("/healthcheck", headers={"Accept": "application/json",
                                                     "X-Roles": "member"})
    assert short.json() == {"detailed": False, "reasons": ["OK"]}
    detailed = await client.get("/healthcheck", headers={"Accept": "application/json",
                                                        "X-Roles": "admin"})
    body = detailed.json()
    assert body["detailed"] is True and body["reasons"][0]["reason"] == "OK"
    assert {"python_version", "platform", "gc", "threads", "now"} <= set(body)


async def test_probes(client):
    assert (await client.get("/livez")).status_code == 200
    ready = await client.get("/readyz")
    assert ready.status_code == 200 and "[+]database ok" in ready.text


async def test_healthcheck_503_when_the_database_is_unreachable(conf):
    port = free_port()  # nothing listens there
    db = Database(f"postgresql://okd:okd@127.0.0.1:{port}/okd")
    app = create_app(Services(conf=conf, db=db, policy=Policy(conf)))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://api.test") as http:
        down = await http.get("/healthcheck")
        assert down.status_code == 503 and "database" in down.text.lower()
        assert (await http.head("/healthcheck")).status_code == 503
        assert (await http.get("/readyz")).status_code == 503
        assert (await http.get("/livez")).status_code == 200
    await db.dispose()


async def test_maintenance_mode_leaves_the_probes_answering(conf, services):
    conf.set_override("maintenance_mode", True, "service:api")
    app = create_app(services)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://api.test") as http:
        assert (await http.get("/v2/zones", headers={"X-Roles": "member"})).status_code == 503
        assert (await http.get("/healthcheck")).status_code == 200


async def test_requests_counted_by_route_template_never_by_id(client):
    missing = str(uuid.uuid4())
    route = "/v2/zones/{zone_id}"
    before = _count("GET", route, "404")
    listed_before = _count("GET", "/v2/zones", "200")
    assert (await client.get(f"/v2/zones/{missing}")).status_code == 404
    assert (await client.get(f"/v2/zones/{uuid.uuid4()}")).status_code == 404
    assert (await client.get("/v2/zones")).status_code == 200
    assert _count("GET", route, "404") == before + 2
    assert _count("GET", "/v2/zones", "200") == listed_before + 1
    assert (metrics.REGISTRY.get_sample_value(
        "designate_api_request_duration_seconds_count", {"method": "GET", "route": route})
        or 0) >= 2
    unmatched = _count("GET", "unmatched", "404")
    await client.get(f"/no/such/{missing}")
    assert _count("GET", "unmatched", "404") == unmatched + 1
    from prometheus_client import generate_latest
    assert missing.encode() not in generate_latest(metrics.REGISTRY)


async def test_one_log_line_per_request_with_its_request_id(client, caplog):
    caplog.set_level(logging.INFO, logger="openkeel_designate.api.requests")
    response = await client.get("/v2/zones", headers={"X-Auth-Project-ID": "p1"})
    request_id = response.headers["x-openstack-request-id"]
    lines = [r for r in caplog.records if r.name == "openkeel_designate.api.requests"]
    assert len(lines) == 1
    assert request_id in lines[0].getMessage() and lines[0].request_id == request_id
    assert '"GET /v2/zones" status: 200' in lines[0].getMessage()


def test_json_log_lines_carry_the_request_id():
    from openkeel_designate.observability.logs import JsonFormatter

    record = logging.LogRecord("openkeel_designate.api.requests", logging.INFO, __file__, 1,
                               "[%s] done", ("req-1",), None)
    record.request_id = "req-1"
    body = json.loads(JsonFormatter().format(record))
    assert body["message"] == "[req-1] done" and body["context"]["request_id"] == "req-1"
    assert body["levelname"] == "INFO" and body["name"] == "openkeel_designate.api.requests"


def test_use_json_is_oslo_logs_option_name():
    conf = config.load([])
    assert conf.use_json is False and conf["service:metrics"].listen is None
