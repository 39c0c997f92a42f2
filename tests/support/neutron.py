"""A small double of Neutron's floating IP API: a real HTTP server on a free loopback port.

Only ``GET /v2.0/floatingips?project_id=...`` is served, the way Designate asks it: the token in
``X-Auth-Token`` must be one the double knows, and it must belong to the project asked for
(a token of another project gets Neutron's 403 answer).  Tests move floating IPs between
projects with ``assign``, make Neutron fail with ``failing = True`` and ignore the
``project_id`` filter with ``leaky = True``.

    with NeutronDouble() as neutron:
        neutron.add_token("tok-a", "project-a")
        fip = neutron.assign("project-a", "192.0.2.10")
        conf.set_override("endpoints", [f"RegionOne|{neutron.url}"], group="network_api:neutron")
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit


class NeutronDouble:
    """Floating IPs per project, tokens per project, and the requests received."""

    def __init__(self) -> None:
        self.fips: dict[str, dict[str, Any]] = {}
        self.tokens: dict[str, str] = {}
        self.requests: list[dict[str, Any]] = []
        self.failing = False
        self.leaky = False  # answer every project's floating IPs, as an admin token could get
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def add_token(self, token: str, project_id: str) -> None:
        self.tokens[token] = project_id

    def assign(self, project_id: str, address: str, fip_id: str | None = None) -> str:
        """Give ``address`` to ``project_id`` (a new floating IP unless ``fip_id`` is known)."""
        fip_id = fip_id or str(uuid.uuid4())
        with self._lock:
            self.fips[fip_id] = {"id": fip_id, "floating_ip_address": address,
                                 "project_id": project_id, "tenant_id": project_id,
                                 "status": "ACTIVE"}
        return fip_id

    def listing(self, token: str | None, project_id: str | None) -> tuple[int, dict[str, Any]]:
        """Neutron's answer: 401 without a known token, 403 for another project's listing."""
        with self._lock:
            self.requests.append({"token": token, "project_id": project_id})
            if self.failing:
                return 500, {"NeutronError": {"type": "HTTPInternalServerError",
                                              "message": "Request Failed: internal server error"}}
            owner = self.tokens.get(token or "")
            if owner is None:
                return 401, {"error": {"code": 401, "title": "Unauthorized"}}
            if project_id != owner:
                return 403, {"NeutronError": {"type": "HTTPForbidden", "message": "Forbidden"}}
            return 200, {"floatingips": [dict(f) for f in self.fips.values()
                                         if self.leaky or f["project_id"] == project_id]}

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _handler(double: NeutronDouble) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path.rstrip("/") != "/v2.0/floatingips":
                self._reply(404, {"NeutronError": {"type": "HTTPNotFound", "message": "?"}})
                return
            project = parse_qs(parts.query).get("project_id", [None])[0]
            self._reply(*double.listing(self.headers.get("X-Auth-Token"), project))

        def _reply(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test's assertions say what matters."""

    return Handler
