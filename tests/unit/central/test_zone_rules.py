"""Central's zone rules, pure: ownership of names, blacklists, the pending mark (no database)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from openkeel_designate.central.zones import (
    _blacklisted,
    _check_ownership,
    mark_pending,
    policy_target,
)
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

CTX = RequestContext(project_id="mine")


def _zone(name: str, tenant: str = "other", **extra) -> SimpleNamespace:
    return SimpleNamespace(name=name, tenant_id=tenant, **extra)


def test_check_ownership_refuses_a_name_another_project_holds():
    with pytest.raises(errors.DuplicateZone) as caught:
        _check_ownership(CTX, "Example.ORG.", [_zone("example.org.")])
    assert (caught.value.code, caught.value.type) == (409, "duplicate_zone")


def test_check_ownership_refuses_a_child_of_another_projects_zone():
    with pytest.raises(errors.IllegalChildZone) as caught:
        _check_ownership(CTX, "sub.example.org.", [_zone("example.org.")])
    assert (caught.value.code, caught.value.type) == (403, "illegal_child")


def test_check_ownership_refuses_a_parent_of_another_projects_zone():
    with pytest.raises(errors.IllegalParentZone) as caught:
        _check_ownership(CTX, "example.org.", [_zone("sub.example.org.")])
    assert (caught.value.code, caught.value.type) == (403, "illegal_parent")


def test_check_ownership_lets_a_child_of_an_own_zone_through():
    _check_ownership(CTX, "sub.example.org.", [_zone("example.org.", tenant="mine")])


def test_check_ownership_judges_the_nearest_ancestor():
    related = [_zone("example.org."), _zone("b.example.org.", tenant="mine")]
    _check_ownership(CTX, "a.b.example.org.", related)


def test_blacklisted_ignores_case_and_survives_a_bad_pattern():
    assert _blacklisted(r"^evil\.com\.$", "EVIL.com.")
    assert not _blacklisted(r"^evil\.com\.$", "good.com.")
    assert not _blacklisted("(", "anything.com.")


def test_mark_pending_moves_the_zone_on_and_asks_for_a_new_serial():
    zone = SimpleNamespace(type="PRIMARY", action="NONE", status="ACTIVE", change_seq=4,
                           version=2, next_attempt_at="later", error_reason="boom",
                           increment_serial=False, pending_since=None)
    mark_pending(zone)
    assert (zone.action, zone.status, zone.change_seq, zone.version) == ("UPDATE", "PENDING", 5, 3)
    assert (zone.next_attempt_at, zone.error_reason, zone.increment_serial) == (None, None, True)
    assert zone.pending_since is not None


def test_mark_pending_times_propagation_from_the_first_unserved_write():
    zone = SimpleNamespace(type="PRIMARY", action="NONE", status="PENDING", change_seq=1,
                           version=1, next_attempt_at=None, error_reason=None,
                           increment_serial=True, pending_since="first write")
    mark_pending(zone)
    assert zone.pending_since == "first write"


def test_mark_pending_leaves_a_secondary_zones_serial_to_its_master():
    zone = SimpleNamespace(type="SECONDARY", action="NONE", status="ACTIVE", change_seq=1,
                           version=1, next_attempt_at=None, error_reason=None,
                           increment_serial=False, pending_since=None)
    mark_pending(zone, action="CREATE")
    assert (zone.action, zone.increment_serial) == ("CREATE", False)


def test_policy_target_carries_owner_type_and_sharing():
    target = policy_target(_zone("example.org.", tenant="p", type="PRIMARY"), shared=True)
    assert target == {"project_id": "p", "tenant_id": "p", "zone_type": "PRIMARY",
                      "zone_shared": True}
