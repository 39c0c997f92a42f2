"""The ASGI application: routes, error handlers, and the edge of Designate's paste pipeline.

The edge (request id, body limit, 404/406/503 before any route, authentication, the answer to an
unexpected exception) is ``api/edge.py``; errors of every kind are rendered in ``api/errors.py``.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from openkeel_designate.api.access import AccessMiddleware
from openkeel_designate.api.auth import Authenticator, FlagRefused, make_authenticator
from openkeel_designate.api.body import NotAnObject
from openkeel_designate.api.edge import EdgeMiddleware
from openkeel_designate.api.errors import error_body, render_error, render_unexpected, request_id
from openkeel_designate.api.openapi import install as install_openapi
from openkeel_designate.api.render import json_response
from openkeel_designate.api.routes import (
    admin,
    blacklists,
    changes,
    console,
    dnssec,
    health,
    limits,
    pools,
    propagation,
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
from openkeel_designate.domain import errors, rrtypes

_FLASK_404 = (
    "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n"
    "<p>The requested URL was not found on the server. If you entered the URL manually please "
    "check your spelling and try again.</p>\n"
)


def create_app(services: Services, auth: Authenticator | None = None) -> FastAPI:
    """``auth`` defaults to the ``[service:api] auth_strategy`` of the services' config."""
    auth = auth or make_authenticator(services.conf)
    app = FastAPI(title="OpenKeel Designate", version="2.4", docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json", redirect_slashes=False,
                  # FastAPI's own OpenTelemetry hooks off: the service's metrics and request log
                  # are its own (observability/), and the hooks looked up three global
                  # providers on every request only to find none configured.
                  telemetry={"tracing": False, "metrics": False, "logs": False})
    app.state.services = services
    app.state.auth = auth
    for module in (root, health, console, zones, propagation, dnssec, recordsets, changes, pools,
                   service_statuses,
                   limits, reverse,
                   tlds, tsigkeys, blacklists, admin,
                   transfers, shares,
                   zone_imports, zone_exports, zone_actions):
        # The routes themselves, in this order, not the routers: an included router is one
        # more candidate FastAPI matches the path against, router by router, then once more
        # inside the router it chose (~0.03 ms of a GET's 0.34 ms, bench/README.md). The
        # routers carry no prefix, dependencies or limits of their own, so nothing is lost.
        app.router.routes.extend(module.router.routes)
    _install_error_handlers(app)
    configured = services.conf.supported_record_type
    install_openapi(app, [name for name in configured if rrtypes.enabled(name, configured)])
    app.add_middleware(EdgeMiddleware, services=services, auth=auth)
    app.add_middleware(AccessMiddleware)  # outermost: counts and logs what the edge answers too
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

    async def designate_quirk(request: Request, exc: Exception) -> Response:
        return render_unexpected(request, exc, quirk=True)

    # The 500s Designate gives on purpose (README, "Quirks reproduced on purpose").
    app.add_exception_handler(NotAnObject, designate_quirk)
    app.add_exception_handler(recordsets.ZoneIdFilterUnsupported, designate_quirk)

