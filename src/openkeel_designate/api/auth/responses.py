"""The answers keystonemiddleware gives when it stops a request, byte for byte where clients look.

Clients (keystoneauth, the openstack CLI) read the 401's ``WWW-Authenticate`` to find where to
authenticate; the bodies are the middleware's, not Designate's JSON, because in Designate the
middleware answers before the API code runs.
"""

from __future__ import annotations

import json

from starlette.responses import Response

_UNAUTHORIZED_BODY = json.dumps({"error": {
    "code": 401, "title": "Unauthorized",
    "message": "The request you have made requires authentication."}})
_UNAVAILABLE_DETAIL = "The Keystone service is temporarily unavailable."
_UNAVAILABLE_EXPLANATION = ("The server is currently unavailable. Please try again at a later "
                            "time.")


def unauthorized(www_authenticate_uri: str) -> Response:
    """401 for a missing, invalid or expired token."""
    return Response(_UNAUTHORIZED_BODY, 401, media_type="application/json; charset=UTF-8",
                    headers={"WWW-Authenticate": f'Keystone uri="{www_authenticate_uri}"'})


def unavailable(accept: str | None) -> Response:
    """503 when Keystone cannot be asked, in the form the client's ``Accept`` prefers."""
    kind = _negotiate(accept)
    if kind == "json":
        body = json.dumps({"message": f"{_UNAVAILABLE_EXPLANATION}<br /><br />\n"
                                      f"{_UNAVAILABLE_DETAIL}\n\n",
                           "code": "503 Service Unavailable", "title": "Service Unavailable"})
        return Response(body, 503, media_type="application/json; charset=UTF-8")
    if kind == "html":
        body = ("<html>\n <head>\n  <title>503 Service Unavailable</title>\n </head>\n <body>\n"
                "  <h1>503 Service Unavailable</h1>\n  "
                f"{_UNAVAILABLE_EXPLANATION}<br /><br />\n{_UNAVAILABLE_DETAIL}\n\n\n"
                " </body>\n</html>")
        return Response(body, 503, media_type="text/html; charset=UTF-8")
    body = (f"503 Service Unavailable\n\n{_UNAVAILABLE_EXPLANATION}\n\n"
            f" {_UNAVAILABLE_DETAIL}  ")
    return Response(body, 503, media_type="text/plain; charset=UTF-8")


def _negotiate(accept: str | None) -> str:
    """``html``, ``json`` or ``plain``: the better of text/html and application/json, html on a tie."""
    if not accept or not accept.strip():
        return "plain"
    # per kind: (specificity of the most specific matching range, its q)
    best: dict[str, tuple[int, float]] = {"html": (0, 0.0), "json": (0, 0.0)}
    for part in accept.split(","):
        media, *params = [p.strip() for p in part.split(";")]
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        media = media.lower()
        for kind, ranges in (("html", ("*/*", "text/*", "text/html")),
                             ("json", ("*/*", "application/*", "application/json"))):
            if media in ranges:
                specificity = ranges.index(media) + 1
                if specificity > best[kind][0]:
                    best[kind] = (specificity, q)
    html, json_q = best["html"][1], best["json"][1]
    if html <= 0 and json_q <= 0:
        return "plain"
    return "html" if html >= json_q else "json"
