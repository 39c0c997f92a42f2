"""Per-request metrics and the request log line, outermost of the API's middleware.

Outermost so that everything the edge answers itself (404 of a disabled API, 413, 401, 503 of
maintenance) is counted and logged too.  The route label is the template the router matched
(``/v2/zones/{zone_id}``), never the path: ids in labels would make one series per zone.
Requests that matched no route count as ``unmatched``.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from openkeel_designate.observability import metrics

LOG = logging.getLogger("openkeel_designate.api.requests")
UNMATCHED = "unmatched"


class AccessMiddleware:
    """Times each HTTP request, counts it by route template and status, logs one line."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        sent = {"status": 500, "length": 0}

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                sent["status"] = message["status"]
            elif message["type"] == "http.response.body":
                sent["length"] += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, counting_send)
        finally:
            self._record(scope, sent["status"], sent["length"], time.perf_counter() - started)

    @staticmethod
    def _record(scope: Scope, status: int, length: int, duration: float) -> None:
        route = getattr(scope.get("route"), "path", None) or UNMATCHED
        method = scope["method"]
        metrics.API_REQUESTS.labels(method, route, str(status)).inc()
        metrics.API_DURATION.labels(method, route).observe(duration)
        request_id = scope.get("state", {}).get("request_id")
        client = (scope.get("client") or ("-",))[0]
        query = scope.get("query_string", b"").decode("latin-1")
        target = (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        if query:
            target += "?" + query
        LOG.info('[%s] %s "%s %s" status: %d len: %d time: %.7f', request_id, client, method,
                 target, status, length, duration,
                 extra={"request_id": request_id, "method": method, "route": route,
                        "status": status, "duration": round(duration, 7)})
