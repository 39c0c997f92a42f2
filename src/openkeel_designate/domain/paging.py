"""What a list call asks for, as plain data: the API builds it, central passes it on, storage
turns it into SQL.  It lives in the domain so that no layer above storage needs storage to name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Page:
    """What a list call asks for: criteria are already column-name → raw string."""

    criteria: dict[str, str] = field(default_factory=dict)
    limit: int | None = None
    marker: str | None = None
    sort_key: str | None = None
    sort_dir: str = "asc"
