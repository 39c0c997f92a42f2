"""The webhook's HTTP side: ExternalDNS's four calls, and ``/healthz`` on its own listener.

Status codes follow how ExternalDNS's client reads them (``provider/webhook/webhook.go``): a 5xx
is a soft error it retries on its next sync, anything else ends its run.  So 5xx is kept for what
a retry can cure (the database unreachable, a zone deleted or a recordset created by someone
else while the plan was applied) and a body that can never apply is a 4xx, in Designate's error
format with every problem listed.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from openkeel_designate.central import health
from openkeel_designate.central.services import Services
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import new_request_id
from openkeel_designate.externaldns import wire
from openkeel_designate.externaldns.provider import ApplyFailed, Provider

LOG = logging.getLogger(__name__)
#: central's answers that a new sync cures: the zone went away, a concurrent writer won a race
RETRYABLE = (errors.NotFound, errors.Duplicate)


class BodyTooLarge(Exception):
    pass


def create_app(svc: Services) -> Starlette:
    options = svc.conf["service:externaldns"]
    provider = Provider(svc, options.project_id, list(options.domain_filter))
    webhook = Webhook(provider, options.max_body_size)
    return Starlette(routes=[
        Route("/", webhook.negotiate, methods=["GET"]),
        Route("/records", webhook.get_records, methods=["GET"]),
        Route("/records", webhook.post_records, methods=["POST"]),
        Route("/adjustendpoints", webhook.adjust_endpoints, methods=["POST"]),
    ], exception_handlers={404: _not_found, 405: _method_not_allowed})


def create_health_app(svc: Services) -> Starlette:
    async def healthz(request: Request) -> Response:
        try:
            await health.check_database(svc.db)
        except RuntimeError as exc:
            return Response(f"database: {exc}\n", 503, media_type="text/plain")
        return Response("ok\n", 200, media_type="text/plain")

    return Starlette(routes=[Route("/healthz", healthz, methods=["GET"])])


class Webhook:
    def __init__(self, provider: Provider, max_body_size: int):
        self.provider = provider
        self.max_body_size = max_body_size

    async def negotiate(self, request: Request) -> Response:
        return _json(wire.domain_filter(self.provider.filters))

    async def get_records(self, request: Request) -> Response:
        try:
            endpoints = await self.provider.records()
        except errors.DesignateError as exc:
            return _failure(exc)
        return _json([wire.write_endpoint(endpoint) for endpoint in endpoints])

    async def post_records(self, request: Request) -> Response:
        try:
            changes = wire.read_changes(await self._body(request))
            applied = await self.provider.apply(changes)
        except _Refusal as exc:
            return exc.response
        except wire.WireError as exc:
            return _error(400, "invalid_object", "The body is not an ExternalDNS plan",
                          exc.problems)
        except ApplyFailed as exc:
            return _refused(exc)
        except errors.DesignateError as exc:
            return _failure(exc)
        LOG.info("externaldns: plan applied as change batches %s (%d skipped)",
                 ",".join(applied.change_ids) or "-", len(applied.skipped))
        return Response(status_code=204)

    async def adjust_endpoints(self, request: Request) -> Response:
        try:
            endpoints = wire.read_endpoints(await self._body(request))
        except _Refusal as exc:
            return exc.response
        except wire.WireError as exc:
            return _error(400, "invalid_object", "The body is not a list of endpoints",
                          exc.problems)
        adjusted = self.provider.adjust(endpoints)
        return _json([wire.write_endpoint(endpoint) for endpoint in adjusted])

    async def _body(self, request: Request) -> Any:
        """The JSON body, at most ``max_body_size`` bytes (413 above), strictly parsed (400)."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_size:
            raise _Refusal(413, "request_too_large",
                           f"The body is over {self.max_body_size} bytes")
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > self.max_body_size:
                raise _Refusal(413, "request_too_large",
                               f"The body is over {self.max_body_size} bytes")
        try:
            return json.loads(bytes(raw), parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            raise _Refusal(400, "invalid_json", f"The body is not JSON: {exc}") from exc


class _Refusal(Exception):
    def __init__(self, code: int, type_: str, message: str):
        super().__init__(message)
        self.response = _error(code, type_, message)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _refused(exc: ApplyFailed) -> Response:
    """A zone's batch refused: nothing of that zone applied; earlier zones' batches stay."""
    error, batch = exc.error, exc.batch
    if isinstance(error, RETRYABLE) or error.code >= 500:
        return _failure(error, f"zone {batch.zone.name}: ")
    message = (f"zone {batch.zone.name}: the plan's changes to this zone were refused and none "
               f"of them applied")
    if exc.applied:
        message += f" (the batches of {len(exc.applied)} zone(s) before it were applied)"
    problems = [_located(entry, batch) for entry in (error.errors or [])] or None
    if problems is None:
        message += f": {error.message or error.type}"
    return _error(error.code, error.type, message, problems)


def _located(entry: dict[str, Any], batch: Any) -> dict[str, Any]:
    """Central's ``["changes", i, ...]`` as the plan's ``[section, index, ...]``."""
    path = list(entry.get("path", []))
    if len(path) >= 2 and path[0] == "changes" and isinstance(path[1], int) \
            and path[1] < len(batch.origins):
        section, index = batch.origins[path[1]]
        rest = ["targets" if part == "records" else part for part in path[2:]]
        path = [section, index, *rest]
    return {**entry, "path": path}


def _failure(error: errors.DesignateError, prefix: str = "") -> Response:
    """Retryable answers: 503 with Retry-After, whatever central's code was."""
    if isinstance(error, RETRYABLE) or error.code >= 500:
        LOG.warning("externaldns: %s%s (answered 503, ExternalDNS retries)", prefix,
                    error.message or error.type)
        return _error(503, "service_unavailable",
                      f"{prefix}{error.message or error.type}; retry", headers={"Retry-After": "5"})
    return _error(error.code, error.type, error.message or error.type, error.errors)


def _error(code: int, type_: str, message: str, problems: list[dict[str, Any]] | None = None,
           headers: dict[str, str] | None = None) -> Response:
    body: dict[str, Any] = {"code": code, "type": type_, "message": message,
                            "request_id": new_request_id()}
    if problems:
        body["errors"] = {"errors": problems}
    return Response(orjson.dumps(body), code, headers=headers, media_type="application/json")


def _json(body: Any) -> Response:
    return Response(orjson.dumps(body), 200, media_type=wire.MEDIA_TYPE)


async def _not_found(request: Request, exc: Exception) -> Response:
    return _error(404, "not_found", f"No webhook call at {request.url.path}: ExternalDNS calls "
                                    "GET /, GET and POST /records, POST /adjustendpoints")


async def _method_not_allowed(request: Request, exc: Exception) -> Response:
    return _error(405, "method_not_allowed", f"{request.method} is not allowed on "
                                             f"{request.url.path}")
