"""What a process keeps known of a zone after a recordset create (``central.known_zones``):
the counts it may judge the next create on, and which zones it keeps (no database)."""

from __future__ import annotations

import pytest

from openkeel_designate.central import known_zones
from openkeel_designate.central.known_zones import KnownZones, after_create
from openkeel_designate.storage import rows
from openkeel_designate.storage.models import Zone
from openkeel_designate.storage.recordsets import PlacementFacts

LIMITS = {"zone_recordsets": 10, "zone_records": 20, "recordset_records": 5}
UNLIMITED = {"zone_recordsets": -1, "zone_records": -1, "recordset_records": -1}


def _zone(zone_id: str = "z1", owner: str = "p1", change_seq: int = 7) -> Zone:
    values = {c.key: None for c in Zone.__table__.columns}
    values.update(id=zone_id, tenant_id=owner, change_seq=change_seq, version=3,
                  status="ACTIVE", action="NONE", name="example.org.", type="PRIMARY")
    return rows.frozen_from(Zone, values)


def _facts(recordsets: int = 4, records: int = 6, children: list[str] | None = None,
           stored: dict[str, int] | None = None) -> PlacementFacts:
    return PlacementFacts(children or [], ["A"], recordsets, records, stored or {})


def test_a_create_leaves_the_zone_one_write_on_with_its_counts():
    known = after_create(_zone(), _facts(stored={"zone_records": 20}), LIMITS, records=2)
    assert known is not None
    assert (known.zone.change_seq, known.zone.version, known.zone.status, known.zone.action) == (
        8, 4, "PENDING", "UPDATE")
    assert (known.recordsets, known.unmanaged_records, known.stored_quotas) == (
        5, 8, {"zone_records": 20})
    facts = known.facts(LIMITS)
    # a name no recordset holds (the write checks it), no child zone (the write checks it)
    assert facts == PlacementFacts([], [], 5, 8, {"zone_records": 20})


def test_counts_read_without_a_limit_are_not_kept():
    """An unlimited quota reads no count at all (``storage.quotas.capped``): zero is no count."""
    known = after_create(_zone(), _facts(recordsets=0, records=0), UNLIMITED, records=1)
    assert known is not None and (known.recordsets, known.unmanaged_records) == (None, None)
    assert known.facts(UNLIMITED) == PlacementFacts([], [], 0, 0, {})
    # a limit set since: the create must count, so it reads
    assert known.facts({**UNLIMITED, "zone_records": 100}) is None
    assert known.facts({**UNLIMITED, "zone_recordsets": 100}) is None


def test_a_zone_with_child_zones_is_not_kept():
    assert after_create(_zone(), _facts(children=["sub.example.org."]), LIMITS, 1) is None


def test_only_the_owner_takes_and_a_take_is_alone():
    kept = KnownZones()
    kept.keep(after_create(_zone(), _facts(), LIMITS, 1))
    assert kept.take("z1", "someone-else") is None
    kept.keep(after_create(_zone(), _facts(), LIMITS, 1))
    first = kept.take("z1", "p1")
    assert first is not None and first.zone.change_seq == 8
    assert kept.take("z1", "p1") is None  # a create beside it reads


def test_forget_and_the_bound():
    kept = KnownZones()
    kept.keep(after_create(_zone("z1"), _facts(), LIMITS, 1))
    kept.forget("z1")
    assert kept.take("z1", "p1") is None
    for index in range(known_zones.KEPT_ZONES + 5):
        kept.keep(after_create(_zone(f"z{index}"), _facts(), LIMITS, 1))
    assert kept.take("z0", "p1") is None  # the oldest went
    assert kept.take(f"z{known_zones.KEPT_ZONES + 4}", "p1") is not None


def test_a_contended_zone_is_not_kept_for_a_moment(monkeypatch: pytest.MonkeyPatch):
    now = [100.0]
    monkeypatch.setattr(known_zones.time, "monotonic", lambda: now[0])
    kept = KnownZones()
    kept.missed("z1")
    kept.keep(after_create(_zone(), _facts(), LIMITS, 1))
    assert kept.take("z1", "p1") is None
    now[0] += known_zones.CONTENDED_SECONDS + 0.01
    kept.keep(after_create(_zone(), _facts(), LIMITS, 1))
    assert kept.take("z1", "p1") is not None
