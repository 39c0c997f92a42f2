"""The one place errors become responses, in Designate's fault-wrapper format."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api.render import json_response
from openkeel_designate.domain import errors

LOG = logging.getLogger(__name__)


def request_id(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


def error_body(code: int, type_: str, message: str | None, errs, req_id: str | None) -> dict:
    body: dict = {"code": code, "type": type_}
    if message is not None:
        body["message"] = message
    if errs is not None:
        body["errors"] = errs
    if req_id is not None:
        body["request_id"] = req_id
    return body


def render_error(request: Request, exc: errors.DesignateError) -> Response:
    """Designate JSON for a known error; structured validation errors are double-nested."""
    errs = {"errors": exc.errors} if exc.errors is not None else None
    message = exc.message if exc.errors is None or exc.message_with_errors else None
    headers = {"Retry-After": "5"} if exc.code == 503 else None
    notify_fault(request, exc, exc.code)
    return json_response(error_body(exc.code, exc.type, message, errs, request_id(request)),
                         exc.code, headers=headers)


def render_unexpected(request: Request, exc: Exception, quirk: bool = False) -> Response:
    """Anything else is a 500 "unknown" (logged with its traceback, never shown).

    ``quirk``: a 500 Designate gives on purpose for this input (a JSON list as body): a client
    can send it at will, so it is one log line, not a traceback.
    """
    if quirk:
        LOG.info("%s %s answers 500 as Designate does (%s: %s)", request.method,
                 request.url.path, type(exc).__name__, exc)
    else:
        LOG.exception("unexpected error on %s %s", request.method, request.url.path)
    notify_fault(request, exc, 500)
    return json_response(error_body(500, "unknown", None, None, request_id(request)), 500)


def notify_fault(request: Request, exc: Exception, status: int) -> None:
    """``dns.api.fault`` (priority ERROR, publisher ``api.<host>``) when ``notify_api_faults``."""
    services = request.app.state.services
    if not services.conf.notify_api_faults or not services.notifier.enabled:
        return
    services.notifier.error("dns.api.fault", {"url": str(request.url), "exception": str(exc),
                                              "status": status}, publisher="api")
