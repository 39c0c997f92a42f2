"""The API edge: what Designate's paste pipeline does before any route, plus the guarantees every
response keeps.

Before any route: trailing ``/`` stripped, request id assigned, ``/v2`` or ``/admin`` disabled →
empty 404, bodies above ``[oslo_middleware] max_request_body_size`` → 413, ``Accept`` that
excludes JSON → 406, authentication, maintenance mode → 503.

Always, whatever happens below:

* every response carries ``x-openstack-request-id`` (its JSON body, when it has one, the same
  ``request_id``);
* the body limit holds however the body arrives — with a ``Content-Length`` it is refused before
  reading, chunked (or otherwise streamed) it is counted as it is read and the first byte past the
  limit answers the same 413, the rest never buffered;
* an unexpected exception is a 500 in Designate's format (logged once with its traceback) and the
  connection stays usable — never re-raised into the server, which would reset the connection;
* a client that goes away before its body is complete is one log line, not a traceback.

Connection-level limits (header and body timeouts, header size, connection count) live in
``api/listener.py``: they act before a request exists or after it is answered.
"""

from __future__ import annotations

import logging

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from openkeel_designate.api.auth import Authenticator
from openkeel_designate.api.errors import render_error, render_unexpected
from openkeel_designate.api.negotiation import not_acceptable
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import new_request_id

LOG = logging.getLogger(__name__)
# Set in the request's ``scope["state"]`` by the listener when it cut the connection itself
# (body timeout) and has logged why: the disconnect the route then sees is not news.
CLOSED_BY_SERVER = "okd.closed_by_server"
# Answered in maintenance mode too (as Designate's paste pipeline routes /healthcheck apart):
# a load balancer must tell "down for maintenance" from "down".
PROBE_PATHS = frozenset({"/healthcheck", "/livez", "/readyz"})


class BodyTooLarge(Exception):
    """The body read so far passed ``max_request_body_size``."""


def too_large() -> Response:
    """oslo.middleware's answer, kept byte for byte (text, not Designate JSON)."""
    return Response("Request is too large.", 413, media_type="text/plain")


class _Exchange:
    """One request's receive/send as the app sees them: counts the body, stamps the id."""

    def __init__(self, receive: Receive, send: Send, req_id: str, limit: int):
        self._receive = receive
        self._send = send
        self._id_header = (b"x-openstack-request-id", req_id.encode())
        self.limit = limit
        self.received = 0
        self.started = False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                raise BodyTooLarge(self.received)
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            message.setdefault("headers", []).append(self._id_header)
        await self._send(message)


class EdgeMiddleware:
    """Pure ASGI (cheap per request) edge handling; see the module docstring."""

    def __init__(self, app: ASGIApp, services: Services, auth: Authenticator):
        self.app = app
        self.services = services
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/"):
            scope["path"] = path = path.rstrip("/") or "/"
        req_id = new_request_id()
        scope.setdefault("state", {})["request_id"] = req_id
        exchange = _Exchange(receive, send, req_id,
                             self.services.conf.oslo_middleware.max_request_body_size)
        try:
            await self._handle(scope, path, exchange.receive, exchange.send)
        except BodyTooLarge:
            if not exchange.started:
                await too_large()(scope, exchange.receive, exchange.send)
        except ClientDisconnect:
            if not scope["state"].get(CLOSED_BY_SERVER):
                LOG.info("%s %s: client went away after %d body bytes (%s)", scope["method"],
                         path, exchange.received, req_id)
        except Exception as exc:  # noqa: BLE001 - the one place an unexpected error is answered
            await self._answer_failure(scope, exchange, exc)

    async def _handle(self, scope: Scope, path: str, receive: Receive, send: Send) -> None:
        early = self._early_response(scope, path)
        if early is not None:
            await early(scope, receive, send)
            return
        # Designate's order: authtoken, then the context, then maintenance (which reads roles).
        if path.startswith("/v2") or path.startswith("/admin"):
            denied = await self.auth.authenticate(scope)
            if denied is not None:
                await denied(scope, receive, send)
                return
        busy = self._maintenance(scope, path)
        if busy is not None:
            await busy(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _answer_failure(self, scope: Scope, exchange: _Exchange, exc: Exception) -> None:
        if exchange.started:  # nothing sane can follow a half-sent response: the server closes
            LOG.exception("error after the response started on %s %s", scope["method"],
                          scope["path"])
            return
        request = Request(scope, exchange.receive)
        if isinstance(exc, errors.DesignateError):
            response = render_error(request, exc)
        else:
            response = render_unexpected(request, exc)
        await response(scope, exchange.receive, exchange.send)

    def _early_response(self, scope: Scope, path: str) -> Response | None:
        api = self.services.conf["service:api"]
        is_v2, is_admin = path.startswith("/v2"), path.startswith("/admin")
        if (is_v2 and not api.enable_api_v2) or (is_admin and not api.enable_api_admin):
            return Response(b"", 404)
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length")
        limit = self.services.conf.oslo_middleware.max_request_body_size
        if length and length.isdigit() and int(length) > limit:
            response = too_large()
            if headers.get("expect", "").lower() == "100-continue":
                # The client waits for a 100 that never comes and may never send the body the
                # server would have to skip: end the connection rather than guess.
                response.headers["connection"] = "close"
            return response
        accept = headers.get("accept")
        # The zone file routes negotiate text/dns themselves (api/negotiation.py).
        if (is_v2 or is_admin) and accept and not _zone_file_path(path) and not _accepts(accept):
            return not_acceptable(accept)
        return None

    def _maintenance(self, scope: Scope, path: str) -> Response | None:
        """Roles from ``X-Roles``: the client's in noauth mode, the token's in keystone mode."""
        api = self.services.conf["service:api"]
        if not api.maintenance_mode or path in PROBE_PATHS:
            return None
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        roles = [r.strip() for r in headers.get("x-roles", "admin").split(",")]
        if path == "/" or api.maintenance_mode_role not in roles:
            return Response(b"", 503, headers={"Retry-After": "60"})
        return None


def _zone_file_path(path: str) -> bool:
    """The two routes Designate exposes as ``text/dns``: ``showfile`` asks with that Accept."""
    return path.startswith("/admin/zones/export/") or (
        path.startswith("/v2/zones/tasks/exports/") and path.endswith("/export"))


def _accepts(accept: str) -> bool:
    for part in accept.split(","):
        media = part.split(";")[0].strip().lower()
        if media in ("*/*", "application/*", "application/json", "") or media.endswith("+json"):
            return True
    return False
