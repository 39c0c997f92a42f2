"""NAPTR (RFC 3403): ``order preference flags service regexp replacement``.

Designate splits on single spaces into exactly six fields, so a regexp containing a space can
never be stored. Order and preference are read with ``int()`` within 0..65535. Flags, service
and regexp may be wrapped in one pair of quotes, which are ignored for the checks: flags from
``[APSUapsu]*``, service ``ALPHA *ALNUM *("+" ...)``, regexp empty or
``<delim>ere<delim>repl<delim>[i]``, each at most 255 characters. The replacement follows the
zone-name rule, so the root ``.`` (RFC 3403's "no replacement") is refused.
"""

from __future__ import annotations

import re

from openkeel_designate.domain.rrtypes.base import (
    RecordType,
    is_domain,
    loose_int,
    split_exact,
    strip_wrapping_quotes,
)

FLAGS_RE = re.compile(r"^[APSUapsu]*\Z")
SERVICE_RE = re.compile(r"^([A-Za-z]([A-Za-z0-9]*)(\+[A-Za-z]([A-Za-z0-9]{0,31}))*)?\Z")
REGEXP_RE = re.compile(r"^(([^0-9i\\])(.*)\2((.+)|(\\[1-9]))?\2(i?))?\Z")
_MAX_FIELD = 255


def _text_field_ok(value: str, pattern: re.Pattern[str]) -> bool:
    return len(value) <= _MAX_FIELD and (not value or bool(pattern.match(value)))


class NAPTR(RecordType):
    name = "NAPTR"
    rank = 12

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        fields = split_exact(data, 6)
        if fields is None:
            return False
        order, preference, flags, service, regexp, replacement = fields
        return (
            loose_int(order, 0, 65535)
            and loose_int(preference, 0, 65535)
            and _text_field_ok(strip_wrapping_quotes(flags), FLAGS_RE)
            and _text_field_ok(strip_wrapping_quotes(service), SERVICE_RE)
            and _text_field_ok(strip_wrapping_quotes(regexp), REGEXP_RE)
            and is_domain(replacement)
        )


TYPE = NAPTR()
