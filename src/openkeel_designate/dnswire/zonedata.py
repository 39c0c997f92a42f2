"""The zone content the DNS side serves, independent of where it is stored.

mdns reads zones through a ``ZoneSource`` (storage implements it against SQL; tests may use an
in-memory one).  Records are kept as the stored strings; rendering to wire goes through the
record-type registry (dnspython), and a record that cannot be rendered is skipped, never allowed
to break a whole transfer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ServedRecord:
    """One record as served: absolute owner name, type mnemonic, TTL, stored rdata text.

    ``wire``: the rdata already rendered (uncompressed), for records made rather than stored
    (DNSSEC signatures and chain): rendering them again from text would cost a transfer of a
    signed zone as much as signing it.  Not part of the record's identity."""

    name: str
    type: str
    ttl: int
    data: str
    wire: bytes | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ZoneHead:
    """What is needed to pick a zone and answer SOA: no record loading."""

    id: str
    name: str
    pool_id: str
    serial: int
    ttl: int
    type: str = "PRIMARY"
    masters: tuple[tuple[str, int], ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class ZoneDelta:
    """What changed from ``from_serial`` to ``serial`` (SOA excluded): one IXFR difference.

    ``old_soa``: the SOA as it was at ``from_serial`` (its serial field 0) when this step
    changed more of it than the serial — a new email or TTL — so that an IXFR opens with the
    SOA the client really holds (a strict client deletes exactly that record); None when only
    the serial moved."""

    from_serial: int
    serial: int
    removed: tuple[ServedRecord, ...]
    added: tuple[ServedRecord, ...]
    old_soa: ServedRecord | None = None


@dataclass(frozen=True, slots=True)
class SealedKey:
    """A zone's DNSSEC key as the DNS side gets it: the private half still sealed
    (``domain/dnssec/keys.py``), opened only where the zone is signed."""

    flags: int
    algorithm: int
    sealed: str


@dataclass(frozen=True, slots=True)
class ZoneSigning:
    """How a zone is signed (``enabled``) or was (a zone once signed keeps this, unsigned)."""

    enabled: bool
    nsec: str
    keys: tuple[SealedKey, ...]
    # going insecure (RFC 8078 §4): still signed, CDS/CDNSKEY ask the parent to delete the DS
    disabling: bool = False
    # the signing epoch (unix seconds) every version from ``epoch_serial`` on is signed with:
    # signatures depend on it, not on the clock of the process that signs (None: not set yet)
    epoch: int | None = None
    epoch_serial: int | None = None


class ZoneSource(Protocol):
    """Read access to served zones. Zones being deleted are not returned."""

    async def find_zone(self, name: str, pool_id: str | None) -> ZoneHead | None:
        """The zone with exactly this absolute name (in ``pool_id`` when given)."""

    async def zone_records(self, zone_id: str) -> list[ServedRecord]:
        """Every servable record of the zone, SOA and NS included, SOA first."""

    async def rrset(self, zone_id: str, name: str, rtype: str) -> list[ServedRecord]:
        """The records of one (name, type) of the zone."""


class ZoneHistory(Protocol):
    """Optional capability of a ``ZoneSource``: the serial-by-serial history IXFR answers from."""

    async def zone_changes(self, zone_id: str, since_serial: int) -> list[ZoneDelta] | None:
        """The deltas leading from ``since_serial`` to the newest recorded serial, in order, or
        None when the history does not reach back to ``since_serial`` without a gap."""


class ZoneSigningSource(Protocol):
    """Optional capability of a ``ZoneSource``: the zones' DNSSEC settings and keys."""

    async def zone_signing(self, zone_id: str) -> ZoneSigning | None:
        """None when DNSSEC was never turned on for the zone."""
