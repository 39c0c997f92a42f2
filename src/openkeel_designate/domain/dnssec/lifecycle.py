"""The life of a zone's keys and of its signing, as pure steps (central applies them to rows).

Each step keeps one rule: at no moment may a validator, whatever DS set the parent holds at
that moment of the procedure, find no KSK of that DS signing the zone's DNSKEY set.

* A ZSK rollover marks the ACTIVE ZSKs RETIRING with a time; a new ZSK is added beside them
  (double signature) and the producer removes them at that time.
* A KSK rollover marks the ACTIVE KSKs RETIRING with no time; a new KSK is added beside them.
  Every KSK signs the DNSKEY set and is named by CDS/CDNSKEY, so the parent may hold the old
  DS, the new, or both; completing (the tenant's word that the parent shows the new DS)
  removes the RETIRING KSKs.
* Turning signing off (RFC 8078 §4) is SIGNED → DISABLING (signed, delete CDS/CDNSKEY) →
  UNSIGNED on a second ask; turning it on again from DISABLING goes back to SIGNED.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol

from openkeel_designate.domain import errors

SIGNED, DISABLING, UNSIGNED = "SIGNED", "DISABLING", "UNSIGNED"
ACTIVE, RETIRING = "ACTIVE", "RETIRING"


class Key(Protocol):
    flags: int
    state: str
    retire_at: datetime | None


def setting_state(enabled: bool, disabling: bool) -> str:
    """What ``GET .../dnssec`` shows as ``state``."""
    if not enabled:
        return UNSIGNED
    return DISABLING if disabling else SIGNED


def after_disable(enabled: bool, disabling: bool) -> str:
    """The state one ``{"enabled": false}`` leads to: a signed zone first goes DISABLING (the
    parent may still hold the DS: unsigned answers would fail validation); a second ask — the
    tenant confirming the parent dropped the DS — or a zone never signed, UNSIGNED."""
    return DISABLING if enabled and not disabling else UNSIGNED


def check_can_roll(enabled: bool, disabling: bool) -> None:
    if not enabled:
        raise errors.BadRequest("DNSSEC is not enabled for this zone")
    if disabling:
        raise errors.BadRequest("DNSSEC is being disabled for this zone")


def retire_zsks(keys: Iterable[Key], retire_at: datetime) -> None:
    """Start a ZSK rollover: the ACTIVE ZSKs keep signing until ``retire_at`` (the caller
    adds the new ZSK)."""
    for key in keys:
        if not key.flags & 1 and key.state == ACTIVE:
            key.state, key.retire_at = RETIRING, retire_at


def retire_ksks(keys: Iterable[Key]) -> None:
    """Start a KSK rollover: the ACTIVE KSKs keep signing the DNSKEY set, with no time set —
    only the tenant knows when the parent shows the new DS (the caller adds the new KSK).
    One KSK rollover at a time: a second would retire the KSK the parent is moving to."""
    ksks = [k for k in keys if k.flags & 1]
    if any(k.state == RETIRING for k in ksks):
        raise errors.BadRequest("A KSK rollover is already in progress; complete it first")
    for key in ksks:
        key.state, key.retire_at = RETIRING, None


def ksks_to_remove(keys: Iterable[Key]) -> list[Key]:
    """Complete a KSK rollover: the RETIRING KSKs, which no validator needs any more once the
    parent shows the new DS."""
    leaving = [k for k in keys if k.flags & 1 and k.state == RETIRING]
    if not leaving:
        raise errors.BadRequest("No KSK rollover is in progress for this zone")
    return leaving
