"""``/console/``: the web console's static files, shipped in the package (no build step).

Only these files are served (no directory walk), and they call the public API like any client:
the console gets no privilege the caller's headers or token do not give.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from starlette.responses import Response

from openkeel_designate.api.routing import Routes
from openkeel_designate.domain import errors

router = Routes()
DIRECTORY = Path(__file__).resolve().parent.parent / "console"
FILES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
         "style.css": "text/css; charset=utf-8"}
# The console is same-origin with the API and loads nothing from elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


@lru_cache(maxsize=len(FILES))
def _read(name: str) -> bytes:
    return (DIRECTORY / name).read_bytes()


@router.get("/console", include_in_schema=False)
async def console_index() -> Response:
    # The edge strips a trailing "/", so /console/ arrives here too.
    return Response(_read("index.html"), 200, media_type=FILES["index.html"],
                    headers=SECURITY_HEADERS)


@router.get("/console/{name}", include_in_schema=False)
async def console_file(name: str) -> Response:
    if name not in FILES:
        raise errors.NotFound("resource not found")
    return Response(_read(name), 200, media_type=FILES[name], headers=SECURITY_HEADERS)
