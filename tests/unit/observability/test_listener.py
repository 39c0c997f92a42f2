"""The metrics listener answers from its own thread, and asks the event loop with a bound."""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request

from openkeel_designate.observability import listener as listener_module
from openkeel_designate.observability import metrics
from openkeel_designate.observability.listener import MetricsListener, Probes


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def test_metrics_probes_and_refresh():
    refreshed = []
    healthy = {"database": True}

    async def database() -> None:
        if not healthy["database"]:
            raise RuntimeError("database unreachable: connection refused")

    async def refresh() -> None:
        refreshed.append(1)
        metrics.WORKER_PENDING.set(7)

    probes = Probes(asyncio.get_running_loop(), checks={"database": database}, refresh=refresh)
    server = MetricsListener("127.0.0.1", 0, probes)
    server.start()
    base = f"http://127.0.0.1:{server.port}"
    try:
        status, body = await asyncio.to_thread(_get, base + "/metrics")
        assert status == 200 and refreshed
        assert "designate_worker_pending_zones 7.0" in body
        assert "# TYPE designate_api_requests_total counter" in body
        assert (await asyncio.to_thread(_get, base + "/livez"))[0] == 200
        assert await asyncio.to_thread(_get, base + "/readyz") == (
            200, "[+]database ok\nreadyz check passed\n")
        healthy["database"] = False
        status, body = await asyncio.to_thread(_get, base + "/readyz")
        assert status == 503 and "[-]database failed: database unreachable" in body
        assert (await asyncio.to_thread(_get, base + "/nothing"))[0] == 404
    finally:
        server.stop()


async def test_livez_fails_when_the_loop_is_stuck(monkeypatch):
    monkeypatch.setattr(listener_module, "LIVE_TIMEOUT", 0.2)
    probes = Probes(asyncio.get_running_loop())
    server = MetricsListener("127.0.0.1", 0, probes)
    server.start()
    try:
        request = asyncio.get_running_loop().run_in_executor(
            None, _get, f"http://127.0.0.1:{server.port}/livez")
        await asyncio.sleep(0)  # let the request start, then block the loop past the bound
        time.sleep(1.0)
        status, body = await request
        assert status == 503 and "event loop did not answer" in body
    finally:
        server.stop()
