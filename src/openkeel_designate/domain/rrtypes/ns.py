"""NS (RFC 1035): one absolute name server name.

The record is checked with Designate's zone-name rule. The recordset name is checked with the
same rule instead of the generic host-name one, so an NS recordset cannot be a wildcard.
The apex NS recordset holds the pool's nameservers (``apex_managed``): users delegate below
the apex, and update or delete the apex one only as managed records allow.
"""

from __future__ import annotations

from typing import ClassVar

from openkeel_designate.domain.rrtypes.base import DOMAIN_RE, RecordType, is_domain


class NS(RecordType):
    name = "NS"
    rank = 8
    apex_managed: ClassVar[bool] = True
    zone_cut: ClassVar[bool] = True

    def is_valid(self, data: str) -> bool:
        return is_domain(data)

    def is_valid_name(self, name: str) -> bool:
        return isinstance(name, str) and bool(DOMAIN_RE.match(name))


TYPE = NS()
