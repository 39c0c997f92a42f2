"""Routes: a path template and its methods bound to one operation, on Starlette's router.

Why Starlette alone and not FastAPI on top of it: the routes read their bodies and query strings
by hand (Designate's adapter rules, error texts and key order are not pydantic models), so
FastAPI gave only two things — a request context passed as a dependency, and a generated
OpenAPI document that ``api/openapi.py`` had to complete anyway. For that it cost 13.8 MB of
resident memory in an idle process (FastAPI and pydantic, measured as the increase from
importing it after everything else the service loads) and, on every request, its dependency
solver. Here a route states what its function takes by the names of its parameters:

- ``request``: the Starlette request;
- ``ctx``: the request's context (``api/context.build_context``), with the caller's flags
  already checked against policy;
- any other name: the path parameter of that name (always a string).

A ``guard`` runs before the context is built: an admin extension that is turned off answers 404
before any policy rule is looked at.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from openkeel_designate.api.context import build_context

Operation = Callable[..., Awaitable[Response]]
Guard = Callable[[Request], None]


class Routes:
    """The routes of one resource module, in the order they are declared."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def get(self, path: str, **options: Any) -> Callable[[Operation], Operation]:
        return self.route(path, ("GET",), **options)

    def post(self, path: str, **options: Any) -> Callable[[Operation], Operation]:
        return self.route(path, ("POST",), **options)

    def put(self, path: str, **options: Any) -> Callable[[Operation], Operation]:
        return self.route(path, ("PUT",), **options)

    def patch(self, path: str, **options: Any) -> Callable[[Operation], Operation]:
        return self.route(path, ("PATCH",), **options)

    def delete(self, path: str, **options: Any) -> Callable[[Operation], Operation]:
        return self.route(path, ("DELETE",), **options)

    def route(self, path: str, methods: tuple[str, ...], *, guard: Guard | None = None,
              include_in_schema: bool = True) -> Callable[[Operation], Operation]:
        """Exactly ``methods``: Starlette adds HEAD to every GET, which Designate's API does
        not answer (405), so it is taken off again unless asked for."""
        def register(operation: Operation) -> Operation:
            route = Route(path, _endpoint(operation, guard), methods=list(methods),
                          name=operation.__name__, include_in_schema=include_in_schema)
            if "HEAD" not in methods and route.methods is not None:
                route.methods.discard("HEAD")
            self.routes.append(route)
            return operation
        return register


def _endpoint(operation: Operation, guard: Guard | None) -> Callable[[Request], Awaitable[Response]]:
    """The Starlette endpoint that calls ``operation`` with the arguments it names."""
    names = list(inspect.signature(operation).parameters)
    wants_request = "request" in names
    wants_context = "ctx" in names
    path_names = [name for name in names if name not in ("request", "ctx")]

    async def endpoint(request: Request) -> Response:
        if guard is not None:
            guard(request)
        params = request.path_params
        arguments: dict[str, Any] = {name: params[name] for name in path_names}
        if wants_request:
            arguments["request"] = request
        if wants_context:
            arguments["ctx"] = build_context(request)
        return await operation(**arguments)

    return endpoint
