"""The status of one change (a batch, or a served serial step): PENDING, ACTIVE or ERROR.

Why not the zone's status: the zone says whether its *newest* write is served; a change made
before it may be served already.  So a change is ACTIVE once every nameserver of the pool was
seen (by the worker, or a propagation request) serving a serial at or past the change's serial
(RFC 1982 order) — and it stays ACTIVE whatever a later write does.  The zone's own ACTIVE still
counts, for the moment between a push's completion and the recording of what it saw (and for
batches older than their ``serial`` column): an ACTIVE zone serves every write up to its
counter.  A change not served while the zone is in ERROR shares the zone's error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from openkeel_designate.domain.serial import serial_ge


class ZoneState(Protocol):
    status: str
    serial: int
    change_seq: int


def status_of(zone: ZoneState, served: Sequence[int | None], serial: int | None,
              change_seq: int | None = None) -> str:
    """``served``: the serial each pool nameserver was last seen serving (None: never seen).

    ``serial`` is the one that first serves the change (None until a worker claimed it);
    ``change_seq`` the zone's write counter after a batch (None for a served serial step).
    """
    if serial is not None and served and all(
            seen is not None and serial_ge(seen, serial) for seen in served):
        return "ACTIVE"
    if zone.status == "ACTIVE" and (
            (change_seq is not None and zone.change_seq >= change_seq)
            or (change_seq is None and serial is not None and serial_ge(zone.serial, serial))):
        return "ACTIVE"
    return "ERROR" if zone.status == "ERROR" else "PENDING"
