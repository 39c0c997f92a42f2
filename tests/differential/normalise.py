"""Remove from an answer what may honestly differ between the reference and ours.

Only three things are normalised, as the harness's contract says (plus the index of a bad record
in an error, which Designate itself does not keep stable, see ``_value``): ids (each side's uuids become
the name of the capture that produced them, so ``zone_id`` must still point at the right zone),
timestamps, and the states that differ by propagation speed (the reference needs 5-8 s to turn a
change ACTIVE, ours tens of milliseconds). Everything else - status code, error type and code,
message, ``errors``, key sets and values - is compared as it is.
"""

from __future__ import annotations

import json
import re
from typing import Any

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")
URL_RE = re.compile(r"https?://(127\.0\.0\.1|localhost)(:\d+)?")
REQUEST_ID_RE = re.compile(r"req-[0-9a-fA-F-]{36}")
#: a pending change shows PENDING there and ACTIVE here; a finished task COMPLETE
PROPAGATION_STATES = {"PENDING", "ACTIVE", "COMPLETE"}
PROPAGATION_ACTIONS = {"CREATE", "UPDATE", "NONE"}
#: timestamps whose presence itself depends on propagation (set when the change settles)
SETTLING_TIMES = {"updated_at", "transferred_at"}
SECRET_KEYS = {"key"}  # transfer request keys are random
SERIAL_KEYS = {"serial", "version"}


def normalise(value: Any, tokens: dict[str, str], secondary: bool = False) -> Any:
    """A normalised deep copy of a decoded JSON answer; ``tokens`` maps this side's uuids.

    ``secondary``: the answer is about a secondary zone, whose ERROR (its master never answers)
    comes as soon as ours tries and only after minutes on the reference.
    """
    return _value(value, None, tokens, secondary=secondary)


def _value(value: Any, key: str | None, tokens: dict[str, str], secondary: bool) -> Any:
    if isinstance(value, dict):
        secondary = secondary or value.get("type") == "SECONDARY"
        out = {k: _value(v, k, tokens, secondary) for k, v in value.items()}
        if value.get("type") == "SOA" and isinstance(out.get("records"), list):
            out["records"] = [_soa_rdata(r) for r in out["records"]]
        return out
    if isinstance(value, list):
        if key == "path" and len(value) > 1 and value[0] == "records" and isinstance(value[1], int):
            # Designate reads a body's records into a set: the index of a bad one in its
            # error is the set's (hash-seeded, random per process) order, not the body's.
            return ["records", "<index>", *value[2:]]
        items = [_value(v, key, tokens, secondary) for v in value]
        if key == "records":  # the order of a recordset's records is not defined
            items.sort(key=lambda x: json.dumps(x, sort_keys=True))
        return items
    if key in SETTLING_TIMES:
        return "<time?>"
    if key in SERIAL_KEYS and isinstance(value, int) and not isinstance(value, bool):
        return "<serial>"
    if isinstance(value, str):
        return _string(value, key, tokens, secondary)
    return value


def _string(value: str, key: str | None, tokens: dict[str, str], secondary: bool) -> str:
    if key == "status" and (value in PROPAGATION_STATES or (secondary and value == "ERROR")):
        return "<state>"  # a secondary zone's state follows its (unreachable) master's timing
    if key == "action" and value in PROPAGATION_ACTIONS:
        return "<action>"
    if key == "request_id":
        return "<request_id>"
    if key in SECRET_KEYS:
        return "<key>"
    if TS_RE.match(value):
        return "<time>"
    return text(value, tokens)


def text(value: str, tokens: dict[str, str]) -> str:
    """Ids, request ids and base URLs inside a string (messages, links, zone files)."""
    value = REQUEST_ID_RE.sub("<request_id>", value)
    value = URL_RE.sub("<url>", value)
    return UUID_RE.sub(lambda m: tokens.get(m.group(0).lower(), "<uuid>"), value)


def _soa_rdata(rdata: Any) -> Any:
    """The serial changes with every push and the reference randomises the refresh."""
    parts = rdata.split() if isinstance(rdata, str) else []
    if len(parts) == 7:
        parts[2] = parts[3] = "<n>"
        return " ".join(parts)
    return rdata


def zone_file(body: str, tokens: dict[str, str]) -> str:
    """An exported zone file: serial/refresh of the SOA line normalised, lines as a set."""
    lines = []
    for line in text(body, tokens).splitlines():
        line = line.rstrip()
        if not line:
            continue
        if re.search(r"\sSOA\s", line):
            line = re.sub(r"(?<![\w.<])\d+(?![\w.>])", "<n>", line)
        lines.append(line)
    return "\n".join(sorted(lines))


def shape(value: Any) -> Any:
    """Only the structure: the keys of every object; lists and scalars stand for themselves
    (how many items and which values depend on the whole installation, or on a race)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    return "list" if isinstance(value, list) else "value"
