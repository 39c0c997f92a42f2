"""CNAME (RFC 1035): one absolute domain name.

Designate checks the target with its zone-name rule (trailing dot, labels of 1..63 characters
from ``[A-Za-z0-9_-]`` not starting or ending with ``-``, no wildcard, under 255 characters)
and allows a single record per recordset, hence ``max_records = 1``. A CNAME is alone at its
name (``exclusive``): not at the zone apex, and no other recordset beside it.
"""

from __future__ import annotations

from typing import ClassVar

from openkeel_designate.domain.rrtypes.base import RecordType, is_domain


class CNAME(RecordType):
    name = "CNAME"
    rank = 3
    max_records: ClassVar[int | None] = 1
    exclusive: ClassVar[bool] = True

    def is_valid(self, data: str) -> bool:
        return is_domain(data)


TYPE = CNAME()
