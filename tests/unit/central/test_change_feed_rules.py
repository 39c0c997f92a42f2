"""The change feed's pure parts: which entries a page shows, when a feed is complete, and how a
served difference reads as batch actions."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from openkeel_designate.central import change_feed as feed
from openkeel_designate.domain import errors
from openkeel_designate.storage.changes import BATCH, SERIAL, Heading

ZONE = "11111111-2222-3333-4444-555555555555"
T0 = datetime(2026, 1, 1)


def step(row: int, serial: int, from_serial: int | None, minute: int) -> Heading:
    return Heading(str(row), SERIAL, serial, from_serial, None, T0 + timedelta(minutes=minute))


def batch(key: str, serial: int | None, minute: int) -> Heading:
    return Heading(key, BATCH, serial, None, 2, T0 + timedelta(minutes=minute))


HISTORY = [step(1, 100, None, 0), step(2, 101, 100, 2), step(3, 102, 101, 4),
           batch("b1", 101, 1), batch("b2", None, 5)]


def ids(headings: list[Heading]) -> list[str]:
    return [h.key for h in headings]


def test_newest_first_without_the_base_row() -> None:
    page, total = feed.select(ZONE, HISTORY, feed.ChangeQuery(limit=20))
    assert (ids(page), total) == (["b2", "3", "2", "b1"], 4)


def test_since_serial_keeps_only_later_serials_and_origin_filters() -> None:
    page, total = feed.select(ZONE, HISTORY, feed.ChangeQuery(limit=20, since_serial=100))
    assert (ids(page), total) == (["3", "2", "b1"], 3)
    page, _ = feed.select(ZONE, HISTORY, feed.ChangeQuery(limit=20, origin=SERIAL,
                                                          newest_first=False))
    assert ids(page) == ["2", "3"]


def test_marker_continues_after_the_entry_it_names() -> None:
    marker = feed.serial_change_id(ZONE, 102)
    page, _ = feed.select(ZONE, HISTORY, feed.ChangeQuery(limit=1, marker=marker))
    assert ids(page) == ["2"]
    with pytest.raises(errors.MarkerNotFound):
        feed.select(ZONE, HISTORY, feed.ChangeQuery(limit=1, marker=feed.serial_change_id(
            ZONE, 999)))


def test_serial_ids_are_stable_uuids_per_zone_and_serial() -> None:
    assert feed.serial_change_id(ZONE, 101) == feed.serial_change_id(ZONE, 101)
    assert feed.serial_change_id(ZONE, 101) != feed.serial_change_id(ZONE, 102)


@pytest.mark.parametrize(("since", "expected"), [
    (100, True), (101, True), (102, True), (200, True),  # in the chain, or nothing newer
    (99, False),  # older than the history: steps are missing
])
def test_complete_needs_an_unbroken_chain(since: int, expected: bool) -> None:
    assert feed.complete(HISTORY, since) is expected


def test_a_broken_chain_is_not_complete() -> None:
    broken = [step(1, 100, None, 0), step(2, 101, 100, 1), step(3, 105, None, 2),
              step(4, 106, 105, 3)]
    assert feed.complete(broken, 100) is False
    assert feed.complete(broken, 105) is True


def test_record_changes_group_removals_then_additions() -> None:
    removed = [["a.x.", "A", 300, "192.0.2.2"], ["a.x.", "A", 300, "192.0.2.1"]]
    added = [["a.x.", "A", 60, "192.0.2.1"], ["t.x.", "TXT", 300, '"v"']]
    assert feed.record_changes(removed, added) == [
        {"action": "REMOVE_RECORDS", "name": "a.x.", "type": "A",
         "records": ["192.0.2.1", "192.0.2.2"]},
        {"action": "ADD_RECORDS", "name": "a.x.", "type": "A", "ttl": 60,
         "records": ["192.0.2.1"]},
        {"action": "ADD_RECORDS", "name": "t.x.", "type": "TXT", "ttl": 300, "records": ['"v"']},
    ]
