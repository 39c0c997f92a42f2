"""Condensing IXFR deltas and checking history chains: pure functions, no I/O."""

from __future__ import annotations

from openkeel_designate.dnswire.catalog import catalog_records
from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneDelta
from openkeel_designate.mdns.ixfr import complete_chain, condense


def rec(label: str, data: str = "192.0.2.1") -> ServedRecord:
    return ServedRecord(f"{label}.example.", "A", 300, data)


def test_condense_cancels_records_added_then_removed() -> None:
    deltas = [
        ZoneDelta(1, 2, removed=(rec("a"),), added=(rec("b"), rec("c"))),
        ZoneDelta(2, 3, removed=(rec("c"),), added=(rec("a"),)),
        ZoneDelta(3, 4, removed=(rec("b"),), added=(rec("b", "192.0.2.2"),)),
    ]
    removed, added = condense(deltas)
    assert removed == []
    assert added == [rec("b", "192.0.2.2")]


def test_chain_must_start_at_the_client_and_end_at_the_served_serial() -> None:
    chain = [ZoneDelta(1, 2, (), ()), ZoneDelta(2, 5, (), ())]
    assert complete_chain(chain, 1, 5)
    assert not complete_chain(chain, 2, 5)
    assert not complete_chain(chain, 1, 6)
    assert not complete_chain([ZoneDelta(1, 2, (), ()), ZoneDelta(3, 5, (), ())], 1, 5)
    assert not complete_chain(None, 1, 5)
    assert not complete_chain([], 1, 5)


def test_catalog_records_follow_rfc_9432_layout() -> None:
    records = catalog_records("cat.example.", 42, 60, [("id-1", "a.test."), ("id-2", "b.test.")])
    assert records[0].type == "SOA" and " 42 60 " in records[0].data
    assert ServedRecord("cat.example.", "NS", 0, "invalid.") in records
    assert ServedRecord("version.cat.example.", "TXT", 0, '"2"') in records
    assert ServedRecord("id-2.zones.cat.example.", "PTR", 0, "b.test.") in records
