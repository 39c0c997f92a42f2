"""``/healthcheck`` as oslo.middleware's healthcheck app answers it, plus Kubernetes probes.

``/healthcheck``: 200 ``OK`` (HEAD: 204), 503 with the reason when the database does not answer;
``Accept: application/json`` gives oslo's JSON, and its detailed form (``detailed: true``,
Python, platform, gc, thread stacks) goes to admins only — or to everyone with oslo's
``[healthcheck] detailed = True`` — since stacks say more than an anonymous caller should see.
``/livez`` says the API's loop answers; ``/readyz`` that this process can do its work (the
database answers). The metrics listener serves the same two probes for processes without API.
"""

from __future__ import annotations

import gc
import io
import json
import platform
import sys
import traceback
from datetime import datetime, timezone

from starlette.requests import Request
from starlette.responses import Response

from openkeel_designate.api.routing import Routes
from openkeel_designate.central import health

router = Routes()


@router.route("/healthcheck", ("GET", "HEAD"), include_in_schema=False)
async def healthcheck(request: Request) -> Response:
    services = request.app.state.services
    try:
        await health.check_database(services.db)
        result = {"reason": "OK", "details": "database answers", "class": "HealthcheckResult"}
        healthy = True
    except RuntimeError as exc:
        result = {"reason": str(exc), "details": repr(exc.__cause__),
                  "class": "HealthcheckResult"}
        healthy = False
    if request.method == "HEAD":
        return Response(b"", 204 if healthy else 503, media_type="text/plain")
    status = 200 if healthy else 503
    if not _wants_json(request.headers.get("accept", "")):
        return Response(result["reason"], status, media_type="text/plain")
    if await _detailed(request):
        body = _detailed_body(result)
    else:
        body = {"detailed": False, "reasons": [result["reason"]]}
    return Response(json.dumps(body, indent=4, sort_keys=True), status,
                    media_type="application/json")


@router.get("/livez")
async def livez() -> Response:
    return Response("ok\n", 200, media_type="text/plain")


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    try:
        await health.check_database(request.app.state.services.db)
    except RuntimeError as exc:
        return Response(f"[-]database failed: {exc}\nreadyz check failed\n", 503,
                        media_type="text/plain")
    return Response("[+]database ok\nreadyz check passed\n", 200, media_type="text/plain")


def _wants_json(accept: str) -> bool:
    """oslo's order of offers: text/plain first, so JSON only when asked for without it."""
    kinds = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    return "application/json" in kinds and "text/plain" not in kinds


async def _detailed(request: Request) -> bool:
    conf = request.app.state.services.conf
    if conf.healthcheck.detailed:
        return True
    auth = request.app.state.auth
    if await auth.authenticate(request.scope) is not None:
        return False  # no valid credentials: the short form, never a 401
    return "admin" in auth.identity(request).roles


def _detailed_body(result: dict) -> dict:
    stacks = []
    for frame in sys._current_frames().values():
        buffer = io.StringIO()
        traceback.print_stack(frame, file=buffer)
        stacks.append(buffer.getvalue())
    return {"detailed": True, "python_version": sys.version,
            "now": str(datetime.now(timezone.utc).replace(tzinfo=None)),
            "platform": platform.platform(),
            "gc": {"counts": gc.get_count(), "threshold": gc.get_threshold(),
                   "frozen": gc.get_freeze_count()},
            "reasons": [result], "greenthreads": [], "threads": stacks}
