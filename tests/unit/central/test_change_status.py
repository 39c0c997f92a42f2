"""A change's status: from what each nameserver serves, never ACTIVE before its serial is served,
and still ACTIVE once served whatever later writes do to the zone."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from openkeel_designate.central.change_status import status_of


def _zone(status: str, seq: int = 5, serial: int = 100) -> SimpleNamespace:
    return SimpleNamespace(status=status, change_seq=seq, serial=serial)


@pytest.mark.parametrize(("zone_status", "zone_seq", "batch_seq", "expected"), [
    ("PENDING", 5, 5, "PENDING"),   # written, not pushed yet
    ("ACTIVE", 5, 5, "ACTIVE"),     # the push that covered it completed
    ("ACTIVE", 7, 5, "ACTIVE"),     # later writes were served too
    ("PENDING", 7, 5, "PENDING"),   # a later write pending, nothing seen served: not known
    ("ERROR", 5, 5, "ERROR"),
])
def test_from_the_zone_when_nothing_was_seen(zone_status: str, zone_seq: int, batch_seq: int,
                                             expected: str) -> None:
    assert status_of(_zone(zone_status, zone_seq), [None], None, batch_seq) == expected


@pytest.mark.parametrize("zone_status", ["PENDING", "ERROR", "ACTIVE"])
def test_served_by_every_nameserver_stays_active_whatever_the_zone_says(zone_status) -> None:
    zone = _zone(zone_status, seq=9, serial=120)
    assert status_of(zone, [110, 115], 110, 5) == "ACTIVE"
    assert status_of(zone, [110, 115], 110) == "ACTIVE"  # a served serial step


def test_one_nameserver_behind_or_never_seen_is_not_enough() -> None:
    assert status_of(_zone("PENDING", 9), [110, 109], 110, 5) == "PENDING"
    assert status_of(_zone("ERROR", 9), [110, None], 110, 5) == "ERROR"
    assert status_of(_zone("PENDING", 9), [], 110, 5) == "PENDING"  # a pool without nameservers


def test_serial_order_is_rfc1982() -> None:
    assert status_of(_zone("PENDING", 9), [3], 4294967290, 5) == "ACTIVE"  # wrapped past it


def test_serial_step_follows_the_zone_serial_when_active() -> None:
    assert status_of(_zone("ACTIVE", serial=120), [None], 110) == "ACTIVE"
    assert status_of(_zone("ACTIVE", serial=100), [None], 110) == "PENDING"
