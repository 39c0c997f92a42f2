"""The differences between the reference's answer and ours to the same step.

Compared: the status code, the content type, and the normalised body: for JSON every key and
value (so the error ``type``, ``code``, ``message`` and ``errors`` of Designate's error format,
and the key set of every object), for text the zone file as a set of lines. Lists are compared in
order only where the step asked for an explicit sort.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from . import normalise as norm


@dataclass
class Answer:
    """One side's answer, decoded; ``skipped`` when a capture it needed was never made."""

    status: int = 0
    content_type: str = ""
    body: Any = None
    text: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    skipped: str = ""
    error: str = ""

    def normalised(self, shape_only: bool, secondary: bool = False) -> Any:
        if self.body is None:
            return norm.zone_file(self.text, self.tokens) if self.text else None
        value = norm.normalise(self.body, self.tokens, secondary)
        return norm.shape(value) if shape_only else value


def differences(ref: Answer, ours: Answer, ordered: bool, shape_only: bool,
                secondary: bool = False, tie_key: str = "name") -> list[str]:
    """Human-readable differences, empty when the answers agree. In an ordered list, neighbours
    with the same ``tie_key`` (the step's sort key) may come in any order."""
    if ref.skipped or ours.skipped or ref.error or ours.error:
        if (ref.skipped or ref.error) and (ours.skipped or ours.error):
            return []  # neither could send it: an earlier difference already says why
        return [f"ref: {ref.skipped or ref.error or ref.status}, "
                f"ours: {ours.skipped or ours.error or ours.status}"]
    out: list[str] = []
    if ref.status != ours.status:
        out.append(f"status: ref {ref.status}, ours {ours.status}")
    if ref.content_type != ours.content_type and ref.status not in (204, 304):
        out.append(f"content-type: ref {ref.content_type!r}, ours {ours.content_type!r}")
    _diff(ref.normalised(shape_only, secondary), ours.normalised(shape_only, secondary), "$",
          ordered, out, tie_key=tie_key)
    return out


def _diff(ref: Any, ours: Any, path: str, ordered: bool, out: list[str], limit: int = 8,
          tie_key: str = "name") -> None:
    if len(out) >= limit:
        return
    if isinstance(ref, dict) and isinstance(ours, dict):
        missing, extra = sorted(set(ref) - set(ours)), sorted(set(ours) - set(ref))
        if missing:
            out.append(f"{path}: keys only in ref {missing}")
        if extra:
            out.append(f"{path}: keys only in ours {extra}")
        for key in ref:
            if key in ours:
                _diff(ref[key], ours[key], f"{path}.{key}", ordered, out, limit, tie_key)
        return
    if isinstance(ref, list) and isinstance(ours, list):
        if len(ref) != len(ours):
            out.append(f"{path}: {len(ref)} items in ref, {len(ours)} in ours: "
                       f"ref {_short(ref)} ours {_short(ours)}")
            return
        ref, ours = ((_ties_sorted(ref, tie_key), _ties_sorted(ours, tie_key)) if ordered
                     else (_sorted(ref), _sorted(ours)))
        for i, (a, b) in enumerate(zip(ref, ours)):
            _diff(a, b, f"{path}[{i}]", ordered, out, limit, tie_key)
        return
    if type(ref) is not type(ours) or ref != ours:
        out.append(f"{path}: ref {_short(ref)}, ours {_short(ours)}")


def _ties_sorted(items: list[Any], tie_key: str) -> list[Any]:
    """In order, except among neighbours with the same ``tie_key`` value (the apex SOA and NS
    by name, two A recordsets by type): Designate breaks such ties by ``created_at``, which it
    keeps in whole seconds on MariaDB, then by random id, so their order means nothing."""
    out: list[Any] = []
    group: list[Any] = []
    for item in items:
        if group and not (_tie(item, tie_key) is not None
                          and _tie(item, tie_key) == _tie(group[-1], tie_key)):
            out += _sorted(group)
            group = []
        group.append(item)
    return out + _sorted(group)


def _tie(item: Any, tie_key: str) -> str | None:
    value = item.get(tie_key) if isinstance(item, dict) else None
    return value.lower() if isinstance(value, str) else None


def _sorted(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))


def _short(value: Any, size: int = 160) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= size else text[:size] + "..."
