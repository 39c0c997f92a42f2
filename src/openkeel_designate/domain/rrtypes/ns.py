"""NS (RFC 1035): one absolute name server name.

The record is checked with Designate's zone-name rule. The recordset name is checked with the
same rule instead of the generic host-name one, so an NS recordset cannot be a wildcard.
"""

from __future__ import annotations

from openkeel_designate.domain.rrtypes.base import DOMAIN_RE, RecordType, is_domain


class NS(RecordType):
    name = "NS"

    def is_valid(self, data: str) -> bool:
        return is_domain(data)

    def is_valid_name(self, name: str) -> bool:
        return isinstance(name, str) and bool(DOMAIN_RE.match(name))


TYPE = NS()
