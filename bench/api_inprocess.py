#!/usr/bin/env python3
"""CPU per API request in process: the ASGI app called directly, no HTTP, no load generator.

The HTTP figures of ``api_throughput.py`` move with whatever else the 2-core machine runs; this
one measures only the server's own work per request (``time.process_time``: every thread of this
process, the SQLite driver's included), so a change to the read path can be judged on a busy
machine. The app is the one ``serve`` runs (``create_app``), on a fresh SQLite file (or
``--database postgresql``), noauth, Designate's default policy, ``--zones`` zones in one project.

    .venv/bin/python bench/api_inprocess.py [--requests 2000] [--zones 100] [--database sqlite]

Figures (CPU, and wall clock: the calls run one after another), each after 200 warm-up calls: ``GET /`` (the framework's floor), ``GET /v2/zones/{id}``,
``GET /v2/zones`` (first page of 20), ``central.get_zone`` alone (no API), then the writes:
``POST /v2/zones`` (a new zone, unique name) and ``POST /v2/zones/{id}/recordsets`` (an A
recordset, unique name, spread round robin over the ``--zones`` zones), then a PUT of each of
those recordsets (new address and TTL) and a DELETE of each. No worker runs here, so
a write's figure is the API's own work up to its COMMIT, never propagation. Printed, never
asserted.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable

import httpx

from inprocess import DATABASES, HEADERS, run_on, wired
from openkeel_designate.central import zones as central_zones
from openkeel_designate.domain.context import RequestContext


async def asgi_get(app: object, path: str) -> int:
    """One GET through the ASGI app as uvicorn would call it; the status."""
    return await asgi_call(app, "GET", path)


async def asgi_post(app: object, path: str, body: dict) -> int:
    """One POST of a JSON body through the ASGI app; the status (202 expected)."""
    await asgi_expect(app, "POST", path, 202, body)
    return 202


async def asgi_created(app: object, path: str, body: dict) -> str:
    """``asgi_post``: the id of what it created."""
    answer = await asgi_expect(app, "POST", path, 202, body)
    return json.loads(answer[1]["body"])["id"]


async def asgi_expect(app: object, method: str, path: str, status: int,
                      body: dict | None = None) -> list[dict]:
    """One request with a JSON body (or none) that must answer ``status``; the messages it
    sent (``asgi_answer``)."""
    answer = await asgi_answer(app, method, path, json.dumps(body).encode() if body else b"")
    if answer[0]["status"] != status:
        raise SystemExit(f"{method} {path} answered {answer[0]['status']}")
    return answer


async def asgi_call(app: object, method: str, path: str, body: bytes = b"") -> int:
    """One request through the ASGI app as uvicorn would call it; the status."""
    return (await asgi_answer(app, method, path, body))[0]["status"]


async def asgi_answer(app: object, method: str, path: str, body: bytes = b"") -> list[dict]:
    """One request through the ASGI app as uvicorn would call it; the messages it sent."""
    extra = [(b"content-type", b"application/json"),
             (b"content-length", str(len(body)).encode())] if body else []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 9001),
             "headers": [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
             + [(b"host", b"api.bench")] + extra, "state": {}}
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)  # type: ignore[operator]
    return sent


async def per_call(call: Callable[[], Awaitable[object]], count: int) -> tuple[float, float]:
    """Milliseconds of this process's CPU, and of the clock, per call, after 200 warm-up calls.
    The difference is time spent waiting: on PostgreSQL, for the server's answers and COMMIT."""
    for _ in range(200):
        await call()
    started, clock = time.process_time(), time.perf_counter()
    for _ in range(count):
        await call()
    return (1000 * (time.process_time() - started) / count,
            1000 * (time.perf_counter() - clock) / count)


async def measure(url: str, state_dir: str, zones: int, count: int) -> None:
    # The POST figures add zones (warm-up included) and recordsets: quotas out of their way.
    async with wired(url, state_dir, quota_zones=-1, quota_zone_recordsets=-1,
                     quota_zone_records=-1) as (services, app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://api.bench", headers=HEADERS) as client:
            ids = []
            for index in range(zones):
                created = await client.post("/v2/zones", json={"name": f"z{index:04d}.bench.example.",
                                                              "email": "hostmaster@bench.example"})
                ids.append(created.json()["id"])
        ctx = RequestContext(user_id=None, project_id="bench", roles=["member", "reader"],
                             request_id="req-bench")
        figures = {
            "GET / (framework floor)": lambda: asgi_get(app, "/"),
            "GET /v2/zones/{id}": lambda: asgi_get(app, f"/v2/zones/{ids[0]}"),
            f"GET /v2/zones (page of 20 of {zones})": lambda: asgi_get(app, "/v2/zones"),
            "central.get_zone alone": lambda: central_zones.get_zone(services, ctx, ids[0]),
        }
        serial = itertools.count()
        figures["POST /v2/zones (a new zone)"] = lambda: asgi_post(app, "/v2/zones", {
            "name": f"p{next(serial)}.bench.example.", "email": "hostmaster@bench.example"})
        created: list[tuple[str, str]] = []  # (zone id, recordset id) of each POST below

        async def post_recordset(n: int) -> None:
            zone_id = ids[n % len(ids)]
            created.append((zone_id, await asgi_created(
                app, f"/v2/zones/{zone_id}/recordsets",
                {"name": f"r{n}.z{n % len(ids):04d}.bench.example.", "type": "A",
                 "records": ["192.0.2.1"]})))
        figures["POST /v2/zones/{id}/recordsets (A)"] = lambda: post_recordset(next(serial))
        # each recordset the POSTs made, changed once (new address and TTL), then deleted
        changing, deleting = iter(created), iter(created)
        figures["PUT /v2/zones/{id}/recordsets/{id}"] = lambda: (lambda pair: asgi_expect(
            app, "PUT", f"/v2/zones/{pair[0]}/recordsets/{pair[1]}", 202,
            {"records": ["192.0.2.2"], "ttl": 600}))(next(changing))
        figures["DELETE /v2/zones/{id}/recordsets/{id}"] = lambda: (lambda pair: asgi_expect(
            app, "DELETE", f"/v2/zones/{pair[0]}/recordsets/{pair[1]}", 202))(next(deleting))
        for name, call in figures.items():
            cpu, wall = await per_call(call, count)
            print(f"{name:40s} {cpu:7.3f} ms CPU, {wall:7.3f} ms wall per call", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--zones", type=int, default=100)
    ap.add_argument("--database", default="sqlite", choices=DATABASES)
    args = ap.parse_args()
    # The request log line is part of a request's cost; it goes nowhere here.
    logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"))
    print(f"load average {os.getloadavg()[0]:.1f}, {args.database}, {args.requests} calls each")
    run_on(args.database, lambda url, state_dir: measure(url, state_dir, args.zones,
                                                         args.requests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
