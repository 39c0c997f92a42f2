"""Reading a JSON request body with Designate's rules (415 / 400 empty / 400 invalid JSON).

Decoding is strict (RFC 8259 and the I-JSON profile, RFC 7493), and every refusal is Designate's
``400 invalid_json``: the body must be UTF-8, numbers finite (``NaN``, ``Infinity`` and literals
that overflow a float such as ``1e400`` are refused), strings valid Unicode (no lone surrogate
``\\ud800``), and containers nested at most ``MAX_DEPTH`` deep.  Designate itself answers these
with a 500, with webob's HTML 400, or by storing ``"nan"``; nothing a client could rely on, and
each of them used to become a 500 here (orjson cannot render a lone surrogate, an ``int(inf)``
overflows, the C scanner raises ``RecursionError`` past ~1000 levels).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from starlette.requests import Request

from openkeel_designate.domain import errors

JSON_TYPES = ("application/json", "application/json-patch+json")
# Designate's deepest body (a pool with attributes, or records in a recordset) is 3 levels; 100
# leaves any honest client room while keeping the validation walk and renderers far from
# Python's recursion limit.
MAX_DEPTH = 100
_SURROGATE = re.compile("[\ud800-\udfff]")


class NotAnObject(Exception):
    """A body that is JSON but not an object: Designate answers 500 "unknown" for it."""


async def read_json(request: Request) -> dict[str, Any]:
    body = await read_json_value(request)
    if not isinstance(body, dict):
        raise NotAnObject(type(body).__name__)
    return body


async def read_json_value(request: Request) -> Any:
    """The decoded body, any JSON type: Designate's ``body_dict`` accepts a list or a string;
    only parsing it into an object fails later (500), so checks in between still win."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type not in JSON_TYPES:
        raise errors.UnsupportedContentType("Content-type must be application/json")
    if media_type == "application/json-patch+json":
        raise NotImplementedError("JSON patch bodies are not supported")
    raw = await request.body()
    if not raw.strip():
        raise errors.EmptyRequestBody("Request Body is empty")
    body = decode_json(raw)
    if body is None:
        raise errors.EmptyRequestBody("Request Body is empty")
    return body


def decode_json(raw: bytes) -> Any:
    """Strict JSON from request bytes, or ``InvalidJson`` saying what is wrong (see module doc).

    The message of a syntax error is the standard library's, as Designate shows it.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.InvalidJson(f"Request body is not valid UTF-8: {exc}") from exc
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError as exc:
        raise errors.InvalidJson(f"JSON nested deeper than {MAX_DEPTH} levels") from exc
    except ValueError as exc:  # JSONDecodeError, and int() refusing more than 4300 digits
        raise errors.InvalidJson(str(exc)) from exc
    _check_tree(value)
    return value


def _refuse_constant(name: str) -> Any:
    raise errors.InvalidJson(f"{name} is not a valid JSON number")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise errors.InvalidJson(f"Number {literal[:40]} is out of range")
    return value


def _check_tree(value: Any) -> None:
    """Depth and lone surrogates, iteratively (the point is not to recurse on hostile input)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _check_string(node)
            continue
        if not isinstance(node, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            raise errors.InvalidJson(f"JSON nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, dict):
            for key, item in node.items():
                _check_string(key)
                stack.append((item, depth + 1))
        else:
            stack.extend((item, depth + 1) for item in node)


def _check_string(text: str) -> None:
    found = _SURROGATE.search(text)
    if found is not None:
        raise errors.InvalidJson(
            f"Lone surrogate \\u{ord(found.group()):04x} in a string is not valid Unicode")
