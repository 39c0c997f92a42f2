#!/usr/bin/env python3
"""What the per-request metrics and log line cost the API, in CPU time per request.

Wall-clock benchmarks on the shared 2-core machine move by more than this overhead when a
neighbour runs tests, so this measures CPU time (``time.process_time``) of the same ASGI
request driven in-process, with and without ``AccessMiddleware`` (counter, histogram, one log
line written to a file as ``serve`` logs): around a trivial ASGI app called directly (the
middleware's own cost), and around the real app's ``GET /v2/zones/{id}`` on SQLite through
httpx's ASGI transport.  Rounds alternate and the minimum is kept.

    .venv/bin/python bench/observability_overhead.py [--requests N]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

import httpx  # noqa: E402

from openkeel_designate import config  # noqa: E402
from openkeel_designate.api import app as app_module  # noqa: E402
from openkeel_designate.api.access import AccessMiddleware  # noqa: E402
from openkeel_designate.central import pools  # noqa: E402
from openkeel_designate.central.policy import Policy  # noqa: E402
from openkeel_designate.central.services import Services  # noqa: E402
from openkeel_designate.observability.logs import TEXT_FORMAT  # noqa: E402
from openkeel_designate.storage import migrate  # noqa: E402
from openkeel_designate.storage.database import Database  # noqa: E402


async def trivial(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


async def direct(app, n: int) -> float:
    """CPU seconds per call of ``app`` invoked straight (no HTTP client in the measure)."""
    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        return None

    started = time.process_time()
    for _ in range(n):
        scope = {"type": "http", "method": "GET", "path": "/x", "raw_path": b"/x",
                 "query_string": b"", "headers": [], "client": ("127.0.0.1", 1), "state": {}}
        await app(scope, receive, send)
    return (time.process_time() - started) / n


async def via_client(app, path: str, headers: dict, n: int) -> float:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        started = time.process_time()
        for _ in range(n):
            await client.get(path, headers=headers)
        return (time.process_time() - started) / n


async def interleaved(first, second, rounds: int = 7) -> tuple[float, float]:
    """Minimum over interleaved rounds: the least disturbed by neighbours on a shared machine."""
    a, b = [], []
    for _ in range(rounds):
        a.append(await first())
        b.append(await second())
    return min(a), min(b)


def without_access(services):
    """The real app with AccessMiddleware taken out (the stack is built at the first call)."""
    app = app_module.create_app(services)
    app.user_middleware = [m for m in app.user_middleware if m.cls is not AccessMiddleware]
    return app


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="GETs per round")
    parser.add_argument("--calls", type=int, default=5000, help="trivial calls per round")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="okd-overhead-"))
    handler = logging.FileHandler(workdir / "server.log")
    handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.INFO)

    bare, wrapped = await interleaved(lambda: direct(trivial, args.calls),
                                      lambda: direct(AccessMiddleware(trivial), args.calls))
    request_log = logging.getLogger("openkeel_designate.api.requests")
    request_log.disabled = True
    _, metrics_only = await interleaved(lambda: direct(trivial, args.calls),
                                        lambda: direct(AccessMiddleware(trivial), args.calls))
    request_log.disabled = False

    url = f"sqlite:///{workdir / 'bench.sqlite'}"
    migrate.upgrade(url)
    conf = config.load([])
    conf.set_override("state_path", str(workdir))
    db = Database(url)
    services = Services(conf=conf, db=db, policy=Policy(conf))
    await pools.ensure_default_pool(services)
    headers = {"X-Auth-Project-ID": "bench", "X-Roles": "admin"}
    full = app_module.create_app(services)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=full),
                                 base_url="http://bench") as client:
        zone = (await client.post("/v2/zones", headers=headers, json={
            "name": "overhead.example.org.", "email": "a@example.org"})).json()
    path = f"/v2/zones/{zone['id']}"
    stripped = without_access(services)
    plain, with_metrics = await interleaved(
        lambda: via_client(stripped, path, headers, args.requests),
        lambda: via_client(full, path, headers, args.requests))
    await db.dispose()

    print(f"CPU time per request, minimum of 7 interleaved rounds ({args.calls} trivial calls, "
          f"{args.requests} GETs each)")
    print(f"trivial ASGI app            {bare * 1e6:8.1f} us")
    print(f"  + AccessMiddleware        {wrapped * 1e6:8.1f} us   (+{(wrapped - bare) * 1e6:.1f} us)")
    print(f"    of which metrics alone  {(metrics_only - bare) * 1e6:8.1f} us   (log line off)")
    print(f"GET /v2/zones/{{id}} (SQLite) {plain * 1e6:8.1f} us without metrics and log line")
    print(f"  with them                 {with_metrics * 1e6:8.1f} us   "
          f"(+{(with_metrics - plain) * 1e6:.1f} us, {100 * (with_metrics / plain - 1):+.1f}%)")


if __name__ == "__main__":
    asyncio.run(main())
