"""TXT (RFC 1035 §3.3.14, long values as several strings per RFC 7208 §3.3).

Designate validates the submitted text without rewriting it:

* a value longer than 255 characters must be wrapped in quotes or contain ``" "``; it is
  split on ``" "`` (after stripping outer quotes) and every piece, re-quoted, must pass the
  single-string rules below;
* a single string is at most 255 characters (quotes included), holds no line feed, has either
  both or neither surrounding quotes, has no whitespace unless quoted, and any ``"`` inside
  the quotes is escaped with ``\\``;
* a value ending with ``\\`` is refused ("Do NOT put '\\' into end of TXT record").

dnspython reads the accepted forms (``"a" "b"`` included) as they are, so rendering is the
default one.
"""

from __future__ import annotations

from openkeel_designate.domain.rrtypes.base import RecordType

MAX_STRING = 255
_SEPARATOR = '" "'


def is_wrapped(value: str) -> bool:
    """Whether ``value`` starts and ends with a double quote (a lone ``"`` counts)."""
    return value.startswith('"') and value.endswith('"')


def quotes_escaped(value: str) -> bool:
    """Whether every ``"`` left after stripping the outer quotes follows a backslash.

    Like Designate, the character before a quote at position 0 is the last character.
    """
    inner = value.strip('"')
    return all(inner[index - 1] == "\\" for index, char in enumerate(inner) if char == '"')


def is_valid_string(value: str) -> bool:
    """Designate's checks for one character-string of a TXT record."""
    if len(value) > MAX_STRING or "\n" in value:
        return False
    if value.startswith('"') != value.endswith('"'):
        return False
    if not is_wrapped(value):
        return not any(char.isspace() for char in value)
    return quotes_escaped(value)


def is_valid_text(value: str) -> bool:
    """Designate's TXT rules for a whole value, without the trailing-backslash field check."""
    if len(value) <= MAX_STRING:
        return is_valid_string(value)
    stripped = value.strip('"')
    if not is_wrapped(value) and _SEPARATOR not in stripped:
        return False
    return all(is_valid_string(f'"{piece}"') for piece in stripped.split(_SEPARATOR))


class TXT(RecordType):
    name = "TXT"
    rank = 6

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str) or data.endswith("\\"):
            return False
        return is_valid_text(data)


TYPE = TXT()
