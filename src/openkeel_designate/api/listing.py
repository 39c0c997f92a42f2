"""List requests: limit / marker / sort / filters in, ``links`` and ``metadata`` out."""

from __future__ import annotations

import functools
import sys
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlencode

from starlette.datastructures import URL
from starlette.requests import Request

from openkeel_designate.api.context import remaining_query
from openkeel_designate.api.paths import is_uuid
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext
from openkeel_designate.domain.paging import Page

_PAGING = ("limit", "marker", "sort_key", "sort_dir")


@dataclass(frozen=True)
class ListSpec:
    """What one list endpoint accepts."""

    filters: tuple[str, ...]
    sort_keys: tuple[str, ...]
    # filter name -> column name (None: accepted but ignored, as Designate does)
    columns: dict[str, str | None] = field(default_factory=dict)
    # sort keys listed by Designate that have no column (400 "Sort key supplied is invalid")
    unsortable: tuple[str, ...] = ()
    upper_case: tuple[str, ...] = ("status",)


def base_url(request: Request) -> str:
    """Where links point: the request's host, or ``api_base_uri`` when host headers are off."""
    api = request.app.state.services.conf["service:api"]
    if api.enable_host_header:
        scope = request.scope
        server = scope.get("server")
        return _origin(scope.get("scheme", "http"), request.headers.get("host"),
                       None if server is None else tuple(server))
    return api.api_base_uri.rstrip("/")


@functools.lru_cache(maxsize=256)
def _origin(scheme: str, host: str | None, server: tuple[str, int] | None) -> str:
    """``scheme://netloc`` as Starlette's ``request.url`` reads them from the scope, parsed once
    per distinct host: building and parsing the whole URL was 3-4% of a recordset POST's CPU
    (bench/README.md, "Issue 13, session of 2026-12-07 (06:16-)")."""
    headers = [] if host is None else [(b"host", host.encode("latin-1"))]
    url = URL(scope={"type": "http", "scheme": scheme, "server": server, "path": "/",
                     "headers": headers})
    return f"{url.scheme}://{url.netloc}"


def parse(request: Request, ctx: RequestContext, spec: ListSpec) -> Page:
    """A validated ``Page`` from the query string (400s as Designate words them)."""
    api = request.app.state.services.conf["service:api"]
    query = remaining_query(request)
    names = [k for k, _ in query if k not in _PAGING]
    invalid = [n for n in names if n not in spec.filters]
    if invalid:
        raise errors.BadRequest(f"Invalid filters {', '.join(invalid)}")
    duplicates = [n for n, c in Counter(names).items() if c > 1]
    if duplicates:
        raise errors.BadRequest(f"Duplicate filters {', '.join(duplicates)}")
    params = dict(query)
    page = Page(limit=_limit(params.get("limit"), api.default_limit_v2, api.max_limit_v2))
    marker = params.get("marker")
    if marker is not None:
        if not is_uuid(marker):
            raise errors.InvalidMarker()
        page.marker = marker
    sort_dir = params.get("sort_dir", "asc")
    if sort_dir not in ("asc", "desc"):
        raise errors.InvalidSortDir("Unknown sort direction, must be 'desc' or 'asc'")
    page.sort_dir = sort_dir
    sort_key = params.get("sort_key")
    if sort_key is not None:
        if sort_key not in spec.sort_keys:
            raise errors.InvalidSortKey(f"sort key must be one of {list(spec.sort_keys)!r}")
        if sort_key in spec.unsortable:
            raise errors.InvalidSortKey("Sort key supplied is invalid: None")
        if sort_key != "tenant_id" or ctx.all_tenants:
            page.sort_key = sort_key
    for name in names:
        column = spec.columns.get(name, name)
        if column is None:
            continue
        value = params[name]
        page.criteria[column] = value.upper() if name in spec.upper_case else value
    return page


def _limit(raw: str | None, default: int, maximum: int) -> int:
    if raw is None:
        return default
    if raw.lower() == "max":
        return maximum
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0 or value > sys.maxsize:
        raise errors.InvalidLimit(f"limit should be an integer between 1 and {maximum}")
    return value


def links(request: Request, collection_path: str, page: Page, last_id: str | None,
          count: int) -> dict[str, str]:
    """``self`` keeps the request's query (flags removed); ``next`` appears on a full page."""
    base = base_url(request) + collection_path
    query = remaining_query(request)
    result = {"self": base + (f"?{urlencode(query)}" if query else "")}
    if page.limit is not None and count == page.limit and last_id is not None:
        next_query = [(k, v) for k, v in query if k != "marker"] + [("marker", last_id)]
        result["next"] = f"{base}?{urlencode(next_query)}"
    return result


def envelope(request: Request, key: str, collection_path: str, page: Page, items: list[dict],
             total: int | None) -> dict:
    last_id = items[-1]["id"] if items else None
    body = {key: items, "links": links(request, collection_path, page, last_id, len(items))}
    body["metadata"] = {"total_count": total} if total is not None else {}
    return body
