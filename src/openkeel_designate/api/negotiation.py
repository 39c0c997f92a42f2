"""``Accept`` negotiation and the 406 answer, as Designate's web stack (pecan over WebOb) does it.

Why by hand: Designate's answer depends on details of RFC 7231 matching as WebOb implements it
(q=0 excludes, the most specific range gives an offer its q, ties keep the offer order, an
unparsable header accepts everything) and on which of two layers writes the 406: pecan answers
``{"code", "title", "description"}`` when JSON is the client's best choice among text/plain,
text/html and JSON; otherwise WebOb renders its own page in HTML, JSON or plain text.

The zone file routes offer only ``text/dns``: ``text/dns``, ``text/*``, ``*/*``, any case, an
unparsable header, and (pecan's fallback) a header that merely starts with ``text/dns`` (so
``text/dns;q=0`` is served) are accepted; anything else is 406.
"""

from __future__ import annotations

import html
import json
import re

from starlette.responses import Response

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_PARAM = rf"(?:;\s*{_TOKEN}\s*=\s*(?:{_TOKEN}|\"[^\"]*\")\s*)"
_RANGE_RE = re.compile(rf"^\s*({_TOKEN})/({_TOKEN})\s*({_PARAM}*)$")
_Q_RE = re.compile(r"^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$")
ZONE_FILE = "text/dns"


def _ranges(header: str) -> list[tuple[str, str, dict[str, str], float]] | None:
    """(type, subtype, params, q) of each media range; None when the header does not parse."""
    ranges = []
    for element in header.split(","):
        if not element.strip():
            continue
        match = _RANGE_RE.match(element)
        if match is None:
            return None
        params: dict[str, str] = {}
        q = 1.0
        for param in filter(None, (p.strip() for p in match.group(3).split(";"))):
            key, _, value = param.partition("=")
            key, value = key.strip().lower(), value.strip().strip('"')
            if key == "q":
                if not _Q_RE.match(value):
                    return None
                q = float(value)
            else:
                params[key] = value.lower()
        ranges.append((match.group(1).lower(), match.group(2).lower(), params, q))
    return ranges


def acceptable_offers(header: str, offers: list[str]) -> list[str]:
    """The offers the header accepts, best first (WebOb's ``acceptable_offers``)."""
    ranges = _ranges(header)
    if ranges is None:
        return list(offers)
    scored = []
    for position, offer in enumerate(offers):
        kind, _, sub = offer.lower().partition("/")
        best: tuple[int, float] | None = None
        for r_kind, r_sub, params, q in ranges:
            if params:
                continue  # an offer without parameters never matches a range with some
            if (r_kind, r_sub) == (kind, sub):
                specificity = 3
            elif r_kind == kind and r_sub == "*":
                specificity = 2
            elif (r_kind, r_sub) == ("*", "*"):
                specificity = 1
            else:
                continue
            if best is None or specificity > best[0]:
                best = (specificity, q)
        if best is not None and best[1] > 0:
            scored.append((-best[1], position, offer))
    return [offer for _, _, offer in sorted(scored)]


def zone_file_acceptable(header: str | None) -> bool:
    """Whether a route that only offers ``text/dns`` may answer this ``Accept`` (pecan's rule)."""
    if not header or header == "*/*":
        return True
    return bool(acceptable_offers(header, [ZONE_FILE])) or header.startswith(ZONE_FILE)


def not_acceptable(header: str) -> Response:
    """Designate's 406 for this ``Accept`` header, in the format its layers would choose."""
    pecan_choice = acceptable_offers(header, ["text/plain", "text/html", "application/json"])
    if pecan_choice[:1] == ["application/json"]:
        body = {"code": 406, "title": "Not Acceptable", "description": None}
        return Response(json.dumps(body), 406, media_type="application/json")
    detail = ("The resource could not be generated that was acceptable to your browser\n"
              "(content of type {accept}. <br /><br />\n")
    webob_choice = acceptable_offers(header, ["text/html", "application/json"])
    if webob_choice[:1] == ["text/html"]:
        text = ("<html>\n <head>\n  <title>406 Not Acceptable</title>\n </head>\n <body>\n"
                "  <h1>406 Not Acceptable</h1>\n  " + detail.format(accept=html.escape(header))
                + "\n </body>\n</html>")
        return Response(text, 406, media_type="text/html")
    if webob_choice[:1] == ["application/json"]:
        body = {"message": detail.format(accept=header), "code": "406 Not Acceptable",
                "title": "Not Acceptable"}
        return Response(json.dumps(body), 406, media_type="application/json")
    plain = detail.format(accept=header).replace("\n", " ").replace("<br /><br />", "\n\n")
    return Response(f"406 Not Acceptable\n\n{plain}", 406, media_type="text/plain")
