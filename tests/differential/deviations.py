"""Differences from the reference that we keep on purpose, by step label, each with its reason.

Mirrored in the README's "Conformance deviations" list. A label matches exactly, or by prefix
when it ends with ``*``. Anything not listed here is a defect to fix.
"""

from __future__ import annotations

DEVIATIONS: dict[str, str] = {
    "recordsets/create-case-differs": (
        "names compare case-insensitively here, as DNS compares them: Designate tests that a "
        "recordset lies in its zone with a case-sensitive string test and refuses "
        "www.EXAMPLE.org. in example.org. (400 invalid_recordset_location)"),
    "route-sweep/route-admin:GET /v2/zones/tasks/transfer_accepts": (
        "as transfers/list-accepts: Designate's total_count counts every project's accepts"),
    "transfers/list-accepts": (
        "Designate's total_count of GET /v2/zones/tasks/transfer_accepts counts the accepts of "
        "every project while the list shows the caller's: ours counts what it lists"),
}


def allowed(label: str) -> str | None:
    """The reason a difference at ``label`` is kept, or None."""
    for pattern, reason in DEVIATIONS.items():
        if label == pattern or (pattern.endswith("*") and label.startswith(pattern[:-1])):
            return reason
    return None
