"""The ASGI application: routes, error handlers, and the edge of Designate's paste pipeline.

The edge (request id, body limit, 404/406/503 before any route, authentication, the answer to an
unexpected exception) is ``api/edge.py``; errors of every kind are rendered in ``api/errors.py``.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response

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


def create_app(services: Services, auth: Authenticator | None = None) -> Starlette:
    """``auth`` defaults to the ``[service:api] auth_strategy`` of the services' config."""
    auth = auth or make_authenticator(services.conf)
    routes = [route for module in (root, health, console, zones, propagation, dnssec, recordsets,
                                   changes, pools, service_statuses, limits, reverse, tlds,
                                   tsigkeys, blacklists, admin, transfers, shares, zone_imports,
                                   zone_exports, zone_actions)
              for route in module.router.routes]
    configured = services.conf.supported_record_type
    routes.append(install_openapi(routes, [name for name in configured
                                           if rrtypes.enabled(name, configured)]))
    app = Starlette(routes=routes)
    app.router.redirect_slashes = False  # the edge strips a trailing "/" as Designate does
    app.state.services = services
    app.state.auth = auth
    _install_error_handlers(app)
    app.add_middleware(EdgeMiddleware, services=services, auth=auth)
    app.add_middleware(AccessMiddleware)  # outermost: counts and logs what the edge answers too
    return app


def _install_error_handlers(app: Starlette) -> None:
    async def designate_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, errors.DesignateError)
        return render_error(request, exc)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
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

    async def flag_refused(request: Request, exc: Exception) -> Response:
        return Response(b"", 403)

    async def designate_quirk(request: Request, exc: Exception) -> Response:
        return render_unexpected(request, exc, quirk=True)

    app.add_exception_handler(errors.DesignateError, designate_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(FlagRefused, flag_refused)
    # The 500s Designate gives on purpose (README, "Quirks reproduced on purpose").
    app.add_exception_handler(NotAnObject, designate_quirk)
    app.add_exception_handler(recordsets.ZoneIdFilterUnsupported, designate_quirk)
