"""SPF (RFC 4408, type 99): free text, checked more loosely than TXT.

Designate's SPF rule: no line feed; when the value neither starts nor ends with ``"`` it may
hold no whitespace; otherwise (it starts *or* ends with a quote) every ``"`` left after
stripping the outer quotes must follow a backslash. There is no length limit and no
trailing-backslash check, so ``v=spf1\\`` and the half-quoted ``v=spf1 -all"`` are accepted
(the real server answers 202 to both). dnspython cannot parse those two, so rendering raises
and the DNS side skips them, exactly as Designate's mdns does.
"""

from __future__ import annotations

from openkeel_designate.domain.rrtypes.base import RecordType
from openkeel_designate.domain.rrtypes.txt import quotes_escaped


class SPF(RecordType):
    name = "SPF"
    rank = 7

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str) or "\n" in data:
            return False
        if not data.startswith('"') and not data.endswith('"'):
            return not any(char.isspace() for char in data)
        return quotes_escaped(data)


TYPE = SPF()
