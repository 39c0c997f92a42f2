"""Hostile request bodies and the guarantees of the API edge, in-process.

These exercise ``api/body.py`` and ``api/edge.py``: decoding, the body limit, the request id on
every error and the answer to an unexpected exception.  All of it happens before central or
storage are involved, so the SQLite database alone is used (the three-engine parametrisation of
``conftest.py`` would run the same edge code three times); the real-server side (chunked uploads
on a socket, timeouts, disconnects, memory) is ``tests/integration/faults/test_http_hostile.py``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from starlette.responses import Response

from conftest import project
from openkeel_designate.api.app import create_app
from openkeel_designate.api.body import MAX_DEPTH
from openkeel_designate.api.routing import Routes
from support.databases import empty_database_url

A = project("hostile")
JSON = {**A, "Content-Type": "application/json"}
ZONE = b'{"name": "hostile.example.", "email": "a@b.c"'  # + one more member + "}"


@pytest.fixture
def database_url() -> Iterator[str]:
    """SQLite only: see the module docstring."""
    with empty_database_url("sqlite", prefix="okd-edge-") as url:
        yield url


def same_request_id(response: httpx.Response) -> str:
    """The header is there and, in a JSON body, ``request_id`` is the same id."""
    header = response.headers["x-openstack-request-id"]
    assert header.startswith("req-")
    if response.headers.get("content-type", "").startswith("application/json") \
            and response.content:
        assert response.json()["request_id"] == header
    return header


UNDECODABLE = {
    "infinity": ZONE + b', "ttl": Infinity}',
    "minus-infinity": ZONE + b', "ttl": -Infinity}',
    "nan": ZONE + b', "ttl": NaN}',
    "nan-in-string-field": ZONE + b', "description": NaN}',
    "float-overflow": ZONE + b', "ttl": 1e400}',
    "lone-surrogate": ZONE + b', "description": "\\ud800"}',
    "lone-low-surrogate-in-key": ZONE + b', "\\udc00": 1}',
    "invalid-utf8": ZONE + b', "description": "\xff\xfe"}',
    "utf16": (ZONE + b"}").decode().encode("utf-16"),
    "nested-10000-arrays": b"[" * 10000 + b"]" * 10000,
    "nested-10000-objects": b'{"a":' * 10000 + b"1" + b"}" * 10000,
    "nested-just-too-deep": b'{"name": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}",
    "huge-integer": ZONE + b', "ttl": ' + b"9" * 5000 + b"}",
}


async def test_undecodable_body_is_400_invalid_json(client):
    """One test for all cases: each parametrised case would migrate its own database."""
    for name, content in UNDECODABLE.items():
        response = await client.post("/v2/zones", content=content, headers=JSON)
        assert response.status_code == 400, (name, response.text)
        body = response.json()
        assert body["type"] == "invalid_json" and body["code"] == 400, (name, body)
        assert body["message"], name
        same_request_id(response)
        print(f"{name}: {body['message'][:80]}")


async def test_undecodable_bodies_on_other_resources(client):
    zone = await client.post("/v2/zones", json={"name": "deep.example.", "email": "a@b.c"},
                             headers=A)
    assert zone.status_code == 202
    zone_id = zone.json()["id"]
    targets = [("PATCH", f"/v2/zones/{zone_id}"), ("POST", f"/v2/zones/{zone_id}/recordsets"),
               ("POST", "/v2/tsigkeys"), ("POST", "/v2/tlds"), ("PATCH", "/v2/quotas/hostile")]
    for method, path in targets:
        for name in ("nan", "lone-surrogate", "nested-10000-arrays"):
            response = await client.request(method, path, content=UNDECODABLE[name],
                                            headers={**JSON, "X-Roles": "admin"})
            assert response.status_code == 400, (method, path, name, response.text)
            assert response.json()["type"] == "invalid_json"
            same_request_id(response)


async def test_depth_limit_itself_is_allowed(client):
    """Exactly MAX_DEPTH levels decode; the field check then refuses the value as Designate."""
    inner = MAX_DEPTH - 1
    body = b'{"name": ' + b"[" * inner + b"]" * inner + b', "email": "a@b.c"}'
    response = await client.post("/v2/zones", content=body, headers=JSON)
    assert response.status_code == 400 and response.json()["type"] == "invalid_object"


async def test_paired_surrogates_and_bom_behave_as_designate(client):
    emoji = await client.post("/v2/zones", headers=JSON,
                              content=ZONE + b', "description": "\\ud83d\\ude00"}')
    assert emoji.status_code == 202 and emoji.json()["description"] == "\U0001F600"
    bom = await client.post("/v2/zones", content=b"\xef\xbb\xbf{}", headers=JSON)
    assert bom.status_code == 400 and bom.json()["type"] == "invalid_json"
    assert "BOM" in bom.json()["message"]


async def test_array_or_string_body_keeps_designate_500(client, caplog):
    """README, "Quirks reproduced on purpose": one log line, no traceback."""
    for body in (b"[1]", b'"a string"'):
        with caplog.at_level(logging.INFO):
            response = await client.post("/v2/zones", content=body, headers=JSON)
        assert response.status_code == 500, body
        assert response.json()["type"] == "unknown"
        same_request_id(response)
    assert not any(r.exc_info for r in caplog.records)


async def chunks(count: int, size: int, consumed: list[int]) -> AsyncIterator[bytes]:
    for _ in range(count):
        consumed[0] += 1
        yield b"x" * size


async def test_streamed_body_over_limit_is_413_without_reading_the_rest(client, conf):
    limit = conf.oslo_middleware.max_request_body_size
    consumed = [0]
    response = await client.post("/v2/zones", content=chunks(1000, 10_000, consumed),
                                 headers=JSON)
    assert response.status_code == 413
    assert response.text == "Request is too large."
    same_request_id(response)
    print(f"limit {limit} bytes: {consumed[0]} chunks of 10000 bytes read out of 1000")
    assert consumed[0] <= limit // 10_000 + 2


async def test_streamed_body_under_limit_is_read(client):
    consumed = [0]

    async def body() -> AsyncIterator[bytes]:
        async for _ in chunks(1, 1, consumed):
            yield b'{"name": "streamed.example.", '
        yield b'"email": "a@b.c"}'

    response = await client.post("/v2/zones", content=body(), headers=JSON)
    assert response.status_code == 202, response.text


async def test_content_length_over_limit_is_the_same_413(client, conf):
    limit = conf.oslo_middleware.max_request_body_size
    response = await client.post("/v2/zones", content=b" " * (limit + 1), headers=JSON)
    assert response.status_code == 413 and response.text == "Request is too large."
    assert response.headers["content-type"].startswith("text/plain")
    same_request_id(response)
    at_limit = await client.post("/v2/zones", content=b" " * limit, headers=JSON)
    assert at_limit.status_code == 400 and at_limit.json()["type"] == "empty_request_body"
    waiting = await client.post("/v2/zones", content=b" " * (limit + 1),
                                headers={**JSON, "Expect": "100-continue"})
    assert waiting.status_code == 413 and waiting.headers["connection"] == "close"
    assert waiting.text == "Request is too large."


async def test_every_error_carries_the_request_id(client, conf):
    answers = {
        "404 route": await client.get("/v2/nonexistent", headers=A),
        "404 admin disabled": await client.get("/admin/quotas/x", headers=A),
        "404 html": await client.get("/nothing-here"),
        "405": await client.put("/v2/zones", json={}, headers=A),
        "406": await client.get("/v2/zones", headers={**A, "Accept": "text/html"}),
        "415": await client.post("/v2/zones", content=b"{}",
                                 headers={**A, "Content-Type": "text/plain"}),
        "400 validation": await client.post("/v2/zones", json={"name": 1}, headers=A),
        "400 uuid": await client.get("/v2/zones/not-a-uuid", headers=A),
        "403 policy": await client.post("/v2/zones", json={"name": "r.example.",
                                                           "email": "a@b.c"},
                                        headers=project("p", "reader")),
        "403 flag": await client.get("/v2/zones", headers={**project("p"),
                                                           "X-Auth-All-Projects": "true"}),
        "413": await client.post("/v2/zones", content=b" " * 200_000, headers=JSON),
        "500 quirk": await client.get("/v2/recordsets?zone_id=x", headers=A),
    }
    conf.set_override("maintenance_mode", True, "service:api")
    try:
        answers["503 maintenance"] = await client.get("/v2/zones", headers=project("p"))
    finally:
        conf.clear_override("maintenance_mode", "service:api")
    ids = set()
    for what, response in answers.items():
        assert response.status_code == int(what[:3]), (what, response.status_code)
        ids.add(same_request_id(response))
    assert len(ids) == len(answers)


@pytest.fixture
async def failing_client(services) -> AsyncIterator[httpx.AsyncClient]:
    """The app with one extra route that fails the way a bug would."""
    app = create_app(services)
    extra = Routes()

    @extra.get("/v2/boom")
    async def boom() -> Response:
        raise RuntimeError("a bug")

    app.router.routes.extend(extra.routes)
    # The outermost middleware must not see the error either: raise_app_exceptions=True.
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        yield http


async def test_unexpected_exception_is_designate_500_not_reraised(failing_client, caplog):
    with caplog.at_level(logging.ERROR):
        response = await failing_client.get("/v2/boom", headers=A)
    assert response.status_code == 500
    assert set(response.json()) == {"code", "type", "request_id"}
    assert response.json()["type"] == "unknown"
    same_request_id(response)
    assert [r for r in caplog.records if r.exc_info], "the bug is logged with its traceback"


async def test_client_gone_mid_body_is_one_line(services, caplog):
    """The ASGI app directly: the body's first part arrives, then the client disconnects."""
    app = create_app(services)
    messages = [{"type": "http.request", "body": b'{"name": "gone', "more_body": True},
                {"type": "http.disconnect"}]
    sent: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/v2/zones", "raw_path": b"/v2/zones",
             "query_string": b"", "root_path": "", "server": ("api.test", 80),
             "client": ("127.0.0.1", 1), "headers": [(b"content-type", b"application/json"),
                                                     (b"x-auth-project-id", b"hostile"),
                                                     (b"transfer-encoding", b"chunked")]}
    with caplog.at_level(logging.INFO):
        await app(scope, receive, send)
    assert sent == []  # nobody to answer
    lines = [r for r in caplog.records if "went away" in r.getMessage()]
    assert len(lines) == 1 and "14 body bytes" in lines[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)
