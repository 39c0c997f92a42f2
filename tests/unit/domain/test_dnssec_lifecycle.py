"""The key and signing state machine: rollovers and disabling step by step, and the rule they
keep — whatever DS set the parent holds at a moment of the procedure, some KSK of that DS is
in the zone (every KSK signs the DNSKEY set), so the zone never validates against no DS."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import count

import pytest

from openkeel_designate.domain import errors
from openkeel_designate.domain.dnssec import lifecycle

_TAGS = count(1)
WHEN = datetime(2026, 1, 1)


@dataclass
class Key:
    flags: int
    state: str = lifecycle.ACTIVE
    retire_at: datetime | None = None
    tag: int = 0

    def __post_init__(self) -> None:
        self.tag = next(_TAGS)


def ksk() -> Key:
    return Key(257)


def zsk() -> Key:
    return Key(256)


def validates(zone: list[Key], parent_ds: set[int]) -> bool:
    """A validator holding the parent's DS set finds a KSK of it signing the DNSKEY set."""
    return any(k.flags & 1 and k.tag in parent_ds for k in zone)


def test_a_ksk_rollover_validates_against_every_ds_set_the_parent_may_hold():
    old, data = ksk(), zsk()
    zone = [old, data]
    assert validates(zone, {old.tag})
    lifecycle.retire_ksks(zone)
    new = ksk()
    zone.append(new)  # central adds the new KSK beside the retiring one
    assert (old.state, old.retire_at, new.state) == ("RETIRING", None, "ACTIVE")
    assert data.state == "ACTIVE"  # the ZSK is not touched
    for parent in ({old.tag}, {old.tag, new.tag}, {new.tag}):  # before, during, after its change
        assert validates(zone, parent), parent
    for key in lifecycle.ksks_to_remove(zone):  # the parent shows the new DS
        zone.remove(key)
    assert zone == [data, new]
    for parent in ({old.tag, new.tag}, {new.tag}):  # the parent may still list the old DS
        assert validates(zone, parent), parent


def test_one_ksk_rollover_at_a_time_and_none_to_complete_before_it_starts():
    zone = [ksk(), zsk()]
    with pytest.raises(errors.BadRequest, match="No KSK rollover"):
        lifecycle.ksks_to_remove(zone)
    lifecycle.retire_ksks(zone)
    zone.append(ksk())
    with pytest.raises(errors.BadRequest, match="already in progress"):
        lifecycle.retire_ksks(zone)  # would retire the KSK the parent is moving to
    assert [k.state for k in zone] == ["RETIRING", "ACTIVE", "ACTIVE"]


def test_a_zsk_rollover_retires_the_active_zsks_at_a_time_and_leaves_the_ksks():
    old_ksk, retiring, active = ksk(), Key(256, lifecycle.RETIRING, WHEN), zsk()
    zone = [old_ksk, retiring, active]
    later = datetime(2026, 2, 1)
    lifecycle.retire_zsks(zone, later)
    assert [(k.state, k.retire_at) for k in zone] == [
        ("ACTIVE", None), ("RETIRING", WHEN), ("RETIRING", later)]


@pytest.mark.parametrize("enabled, disabling, after", [
    (True, False, "DISABLING"),  # first ask: still signed, delete CDS/CDNSKEY published
    (True, True, "UNSIGNED"),  # second ask: the parent dropped the DS
    (False, False, "UNSIGNED"),  # never signed (or already off): at once
])
def test_turning_signing_off_is_two_asks_for_a_signed_zone(enabled, disabling, after):
    assert lifecycle.after_disable(enabled, disabling) == after


def test_the_shown_state_and_which_states_may_roll():
    assert lifecycle.setting_state(True, False) == "SIGNED"
    assert lifecycle.setting_state(True, True) == "DISABLING"
    assert lifecycle.setting_state(False, False) == "UNSIGNED"
    lifecycle.check_can_roll(True, False)
    for enabled, disabling, reason in ((False, False, "not enabled"), (True, True, "disabled")):
        with pytest.raises(errors.BadRequest, match=reason):
            lifecycle.check_can_roll(enabled, disabling)
