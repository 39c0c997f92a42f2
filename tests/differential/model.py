"""What the generator produces and the runner consumes: steps and sequences, plain data.

A step names the captures it needs as ``<<name>>`` inside its path, headers, body or raw body;
each side keeps its own captures, so the reference's zone id and ours are substituted into
their own requests: ids are mapped by their position in the sequence, never by value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NO_BODY: Any = object()


@dataclass
class Wait:
    """Poll ``path`` on both sides (not compared) until ``until`` holds or ``timeout`` passes.

    ``settled``: the resource's status is no longer PENDING; ``gone``: the path answers 404.
    Needed where the reference's 5-8 s propagation would otherwise show in the next answer.
    """

    path: str
    until: str = "settled"
    timeout: float = 90.0


@dataclass
class Step:
    """One request, or a wait when ``wait`` is set.

    ``label`` is stable across seeds (``scenario/what``): deviations are listed by label.
    ``capture`` maps a capture name to a dotted path in the JSON answer (``id``,
    ``recordsets.0.id``). ``ordered``: lists are compared in order (explicit sort); otherwise
    as multisets, since ties in Designate's default order (created_at to the second) are random.
    ``shape_only``: only the status and the body's key structure are compared (service statuses,
    reports: values that describe the whole installation, not the request).
    ``secondary``: the step is about a secondary zone; its ERROR state is timing (see normalise).
    """

    label: str
    method: str = "GET"
    path: str = "/"
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = NO_BODY
    raw: str | None = None
    capture: dict[str, str] = field(default_factory=dict)
    wait: Wait | None = None
    ordered: bool = False
    shape_only: bool = False
    secondary: bool = False


@dataclass
class Sequence:
    """Steps that depend on each other (later steps use ids of earlier answers).

    ``projects`` are the project ids the sequence used: their zones are hard-deleted on the
    reference at the end. ``cleanup`` steps run on both sides afterwards and are not compared.
    """

    name: str
    index: int
    steps: list[Step]
    projects: list[str] = field(default_factory=list)
    cleanup: list[Step] = field(default_factory=list)
