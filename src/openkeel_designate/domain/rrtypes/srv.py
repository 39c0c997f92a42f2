"""SRV (RFC 2782): ``priority weight port target``.

Designate splits on single spaces into exactly four fields; the three numbers are read with
Python's ``int()`` (so ``+5`` passes) and must be within 0..65535, the target follows the
zone-name rule. The recordset name has its own rule: it must start with two ``_label.``
labels (``_sip._tcp.example.com.``).
"""

from __future__ import annotations

import re

from openkeel_designate.domain.rrtypes.base import RecordType, is_domain, loose_int, split_exact

SRV_NAME_RE = re.compile(
    r"^(?:(?!\-)(?:\_[A-Za-z0-9_\-]{1,63}\.){2})(?!.{255,})"
    r"(?:(?!\-)[A-Za-z0-9_\-]{1,63}(?<!\-)\.)+\Z"
)


class SRV(RecordType):
    name = "SRV"
    rank = 5

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        fields = split_exact(data, 4)
        if fields is None:
            return False
        *numbers, target = fields
        return all(loose_int(number, 0, 65535) for number in numbers) and is_domain(target)

    def is_valid_name(self, name: str) -> bool:
        return isinstance(name, str) and bool(SRV_NAME_RE.match(name))


TYPE = SRV()
