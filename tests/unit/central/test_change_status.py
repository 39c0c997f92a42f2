"""A batch's status read from its zone: never ACTIVE before the serial that holds it is served."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from openkeel_designate.central.changes import status_of


@pytest.mark.parametrize(("zone_status", "zone_seq", "batch_seq", "expected"), [
    ("PENDING", 5, 5, "PENDING"),   # written, not pushed yet
    ("ACTIVE", 5, 5, "ACTIVE"),     # the push that covered it completed
    ("ACTIVE", 7, 5, "ACTIVE"),     # later writes were served too
    ("PENDING", 7, 5, "PENDING"),   # a later write pending: its serial may not be served
    ("ERROR", 5, 5, "ERROR"),
])
def test_status_of(zone_status: str, zone_seq: int, batch_seq: int, expected: str) -> None:
    zone = SimpleNamespace(status=zone_status, change_seq=zone_seq)
    assert status_of(zone, batch_seq) == expected  # type: ignore[arg-type]
