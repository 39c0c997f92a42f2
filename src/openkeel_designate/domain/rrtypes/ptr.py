"""PTR (RFC 1035): one absolute domain name.

Designate only applies its zone-name rule to the target; it does not require the recordset to
live under ``in-addr.arpa.``/``ip6.arpa.``, so neither does this module.
"""

from __future__ import annotations

from openkeel_designate.domain.rrtypes.base import RecordType, is_domain


class PTR(RecordType):
    name = "PTR"
    rank = 9

    def is_valid(self, data: str) -> bool:
        return is_domain(data)


TYPE = PTR()
