"""MX (RFC 1035): ``<preference> <exchange>``.

Designate splits on single spaces into exactly two fields. The preference must be written
canonically (``repr(int(x)) == x``: no sign, no leading zero, no padding) within 0..65535. The
exchange is only required to end with a dot and to be at most 255 characters long; Designate
applies no further syntax check to it, so neither does this module (dnspython may then refuse
to render such a record, and the DNS side skips it).
"""

from __future__ import annotations

from openkeel_designate.domain.rrtypes.base import RecordType, canonical_int, split_exact


class MX(RecordType):
    name = "MX"
    rank = 4

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        fields = split_exact(data, 2)
        if fields is None:
            return False
        preference, exchange = fields
        return (
            canonical_int(preference, 0, 65535)
            and exchange.endswith(".")
            and len(exchange) <= 255
        )


TYPE = MX()
