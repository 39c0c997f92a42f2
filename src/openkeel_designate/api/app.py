"""The ASGI application: routes plus the edge behaviour of Designate's paste pipeline.

Edge rules handled here, before any route: trailing ``/`` stripped, request id assigned,
``/v2`` or ``/admin`` disabled → empty 404, maintenance mode → 503, oversized bodies → 413,
``Accept`` that excludes JSON → 406.  Errors of every kind are rendered in ``api/errors.py``.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from openkeel_designate.api.auth import Authenticator, FlagRefused, make_authenticator
from openkeel_designate.api.body import NotAnObject
from openkeel_designate.api.errors import error_body, render_error, render_unexpected, request_id
from openkeel_designate.api.openapi import install as install_openapi
from openkeel_designate.api.render import json_response
from openkeel_designate.api.routes import (
    admin,
    blacklists,
    limits,
    pools,
    recordsets,
    reverse,
    root,
    service_statuses,
    shares,
    tlds,
    transfers,
    tsigkeys,
    zone_actions,
    zone_exports,
    zone_imports,
    zones,
)
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import new_request_id

_FLASK_404 = (
    "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n"
    "<p>The requested URL was not found on the server. If you entered the URL manually please "
    "check your spelling and try again.</p>\n"
)


def create_app(services: Services, auth: Authenticator | None = None) -> FastAPI:
    """``auth`` defaults to the ``[service:api] auth_strategy`` of the services' config."""
    auth = auth or make_authenticator(services.conf)
    app = FastAPI(title="OpenKeel Designate", version="2.4", docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json", redirect_slashes=False)
    app.state.services = services
    app.state.auth = auth
    for module in (root, zones, recordsets, pools, service_statuses, limits, reverse,
                   tlds, tsigkeys, blacklists, admin,
                   transfers, shares,
                   zone_imports, zone_exports, zone_actions):
        app.include_router(module.router)
    _install_error_handlers(app)
    install_openapi(app)
    app.add_middleware(EdgeMiddleware, services=services, auth=auth)
    return app


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(errors.DesignateError)
    async def designate_error(request: Request, exc: errors.DesignateError) -> Response:
        return render_error(request, exc)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        path = request.url.path
        if exc.status_code == 405:
            return json_response(error_body(405, "method_not_allowed", None, None,
                                            request_id(request)), 405)
        if exc.status_code == 404 and (path.startswith("/v2") or path.startswith("/admin")):
            return json_response(error_body(404, "not_found", "resource not found", None,
                                            request_id(request)), 404)
        if exc.status_code == 404:
            return Response(_FLASK_404, 404, media_type="text/html")
        return json_response(error_body(exc.status_code, "unknown", None, None,
                                        request_id(request)), exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        return render_error(request, errors.BadRequest("Invalid request"))

    @app.exception_handler(FlagRefused)
    async def flag_refused(request: Request, exc: FlagRefused) -> Response:
        return Response(b"", 403)

    @app.exception_handler(NotAnObject)
    async def not_an_object(request: Request, exc: NotAnObject) -> Response:
        return render_unexpected(request, exc)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        return render_unexpected(request, exc)


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
        early = self._early_response(scope, path, req_id)
        if early is not None:
            await early(scope, receive, send)
            return

        async def send_with_id(message: dict) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", []).append(
                    (b"x-openstack-request-id", req_id.encode()))
            await send(message)

        # Designate's order: authtoken, then the context, then maintenance (which reads roles).
        if path.startswith("/v2") or path.startswith("/admin"):
            denied = await self.auth.authenticate(scope)
            if denied is not None:
                await denied(scope, receive, send_with_id)
                return
        busy = self._maintenance(scope, path)
        if busy is not None:
            await busy(scope, receive, send)
            return
        await self.app(scope, receive, send_with_id)

    def _early_response(self, scope: Scope, path: str, req_id: str) -> Response | None:
        api = self.services.conf["service:api"]
        is_v2, is_admin = path.startswith("/v2"), path.startswith("/admin")
        if (is_v2 and not api.enable_api_v2) or (is_admin and not api.enable_api_admin):
            return Response(b"", 404)
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        length = headers.get("content-length")
        limit = self.services.conf.oslo_middleware.max_request_body_size
        if length and length.isdigit() and int(length) > limit:
            return Response("Request is too large.", 413, media_type="text/plain")
        accept = headers.get("accept")
        if (is_v2 or is_admin) and accept and not _accepts(accept, _zone_file_path(path)):
            return Response(
                "406 Not Acceptable\nThe resource could not be generated that was acceptable "
                f"to your browser (content of type {accept}.\n\n   ", 406,
                media_type="text/plain")
        return None

    def _maintenance(self, scope: Scope, path: str) -> Response | None:
        """Roles from ``X-Roles``: the client's in noauth mode, the token's in keystone mode."""
        api = self.services.conf["service:api"]
        if not api.maintenance_mode:
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


def _accepts(accept: str, zone_file: bool = False) -> bool:
    for part in accept.split(","):
        media = part.split(";")[0].strip().lower()
        if media in ("*/*", "application/*", "application/json", "") or media.endswith("+json"):
            return True
        if zone_file and media in ("text/dns", "text/*"):
            return True
    return False

