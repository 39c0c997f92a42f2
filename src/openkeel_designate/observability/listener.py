"""The metrics listener: ``/metrics``, ``/livez`` and ``/readyz`` from a thread of the process.

Why a thread and not a route of the API: every role (a worker-only or mdns-only process too)
needs probes and metrics, and a scrape must still answer — saying so — when the event loop is
stuck; a loop that cannot run a no-op within ``LIVE_TIMEOUT`` is what ``/livez`` reports, so
Kubernetes restarts a wedged process.  Work that needs the loop (gauges read from the database,
readiness checks) is handed to it with a bound, never run on this thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from openkeel_designate.observability import metrics

LOG = logging.getLogger(__name__)
LIVE_TIMEOUT = 5.0
READY_TIMEOUT = 3.0
REFRESH_TIMEOUT = 2.0

Check = Callable[[], Awaitable[None]]  # raises when not ready; the message says why


class Probes:
    """What the listener asks the process: the loop, readiness checks, scrape-time refresh."""

    def __init__(self, loop: asyncio.AbstractEventLoop, checks: dict[str, Check] | None = None,
                 refresh: Callable[[], Awaitable[None]] | None = None):
        self.loop = loop
        self.checks = dict(checks or {})
        self.refresh = refresh

    def run(self, make: Callable[[], Awaitable], timeout: float):
        """Run a coroutine on the process's loop and wait for it here, at most ``timeout``."""
        async def bounded():
            return await asyncio.wait_for(make(), timeout)

        future = asyncio.run_coroutine_threadsafe(bounded(), self.loop)
        try:
            return future.result(timeout + 0.5)
        except BaseException:
            future.cancel()
            raise

    def live(self) -> tuple[bool, str]:
        try:
            self.run(_noop, LIVE_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - any failure means "not live"
            return False, f"event loop did not answer within {LIVE_TIMEOUT:.0f} s ({exc!r})"
        return True, "ok"

    def ready(self) -> tuple[bool, list[str]]:
        """Kubernetes' verbose form: one ``[+]name ok`` / ``[-]name failed: why`` per check."""
        lines, ok = [], True
        for name, check in self.checks.items():
            try:
                self.run(check, READY_TIMEOUT)
                lines.append(f"[+]{name} ok")
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                ok = False
                lines.append(f"[-]{name} failed: {str(exc) or type(exc).__name__}")
        return ok, lines

    def refresh_gauges(self) -> None:
        if self.refresh is None:
            return
        try:
            self.run(self.refresh, REFRESH_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - the scrape still answers with what it has
            LOG.warning("metrics: scrape-time gauges not refreshed: %r", exc)


async def _noop() -> None:
    return None


class MetricsListener:
    """One HTTP listener on ``(host, port)``; port 0 picks a free one (see ``port``)."""

    def __init__(self, host: str, port: int, probes: Probes):
        self.probes = probes
        handler = type("Handler", (_Handler,), {"probes": probes})
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def start(self) -> None:
        self._thread = threading.Thread(target=self._server.serve_forever, name="metrics",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    probes: Probes
    server_version = "openkeel-designate-metrics"

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?")[0].rstrip("/") or "/"
        if path == "/metrics":
            self.probes.refresh_gauges()
            self._answer(200, generate_latest(metrics.REGISTRY), CONTENT_TYPE_LATEST)
        elif path == "/livez":
            ok, why = self.probes.live()
            self._answer(200 if ok else 503, f"{why}\n".encode())
        elif path == "/readyz":
            ok, lines = self.probes.ready()
            lines.append("readyz check passed" if ok else "readyz check failed")
            self._answer(200 if ok else 503, ("\n".join(lines) + "\n").encode())
        else:
            self._answer(404, b"not found: /metrics, /livez, /readyz\n")

    def _answer(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - http.server's signature
        LOG.debug("metrics listener: " + format, *args)
