"""DNS names compared as DNS compares them: ASCII letters without regard to case (RFC 4343).

Designate keeps a name as the user wrote it (``CaseTest.Example.`` is shown so) and relies on
MariaDB's case-insensitive collation to find, de-duplicate and order names. SQLite and
PostgreSQL compare bytes, so every rule here works on ``key(name)`` instead: the stored
``name_key`` columns of zones and recordsets (migration 0005) and every comparison in central.

Only A-Z fold: ``str.lower`` would also fold non-ASCII letters, which DNS does not (a name with
such bytes is another name), and SQL ``lower()`` of the three engines disagree on them.
"""

from __future__ import annotations

_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def key(name: str) -> str:
    """The comparison form of a DNS name: ASCII letters in lower case, nothing else changed.

    An ASCII name (nearly all) folds through ``str.lower``, the same result ten times faster
    than the table, which counts when mdns folds every owner of a 100,000-record zone."""
    return name.lower() if name.isascii() else name.translate(_FOLD)


def same(first: str, second: str) -> bool:
    return key(first) == key(second)


def is_within(name: str, zone_name: str) -> bool:
    """``name`` is ``zone_name`` itself or a name below it (case-insensitive)."""
    folded, zone = key(name), key(zone_name)
    return folded == zone or folded.endswith("." + zone)


def is_below(name: str, zone_name: str) -> bool:
    """``name`` is strictly below ``zone_name`` (case-insensitive)."""
    return key(name).endswith("." + key(zone_name))
