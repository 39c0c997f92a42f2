"""What central returns to the API: frozen copies of stored rows plus the pieces rendered with
them.

Views are built with ``of`` from rows at the end of an operation, so no ORM row (and no lazy
load, no accidental write) reaches the API.  Zone and recordset views keep the row's column
names (``view.zone.name``); the other resources still wrap rows and follow one by one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openkeel_designate.domain.conditions import strong_etag
from openkeel_designate.storage import rows
from openkeel_designate.storage.models import Record, RecordSet, Zone


def zone_etag(zone: Any) -> str:
    """From the zone row: every write bumps ``version``, every update (the worker's status too)
    moves ``updated_at``."""
    return strong_etag("zone", zone.id, zone.version, zone.updated_at)


def recordset_etag(recordset: Any, records: Any) -> str:
    """From the recordset row and its records' rows (their status is part of the answer)."""
    return strong_etag("recordset", recordset.id, recordset.version, recordset.updated_at,
                       *sorted(f"{r.id}/{r.status}/{r.action}/{r.updated_at}" for r in records))


@dataclass(frozen=True)
class ZoneView:
    zone: Any  # the zone's columns, frozen (storage.rows.snapshot), never the row
    attributes: dict[str, str] = field(default_factory=dict)
    masters: list[tuple[str, int]] = field(default_factory=list)
    shared: bool = False

    @classmethod
    def of(cls, zone: Zone, attributes: dict[str, str], masters: list[tuple[str, int]],
           shared: bool) -> ZoneView:
        return cls(rows.snapshot(zone), attributes, masters, shared)

    @property
    def etag(self) -> str:
        return zone_etag(self.zone)


@dataclass(frozen=True)
class RecordSetView:
    recordset: Any  # frozen columns of the recordset and of each record
    records: tuple[Any, ...]
    zone_name: str

    @classmethod
    def of(cls, recordset: RecordSet, records: list[Record], zone_name: str) -> RecordSetView:
        return cls(rows.snapshot(recordset), tuple(rows.snapshot(r) for r in records), zone_name)

    @property
    def etag(self) -> str:
        return recordset_etag(self.recordset, self.records)

    @property
    def status(self) -> str:
        """Worst of the records' statuses (no records: ACTIVE)."""
        statuses = {r.status for r in self.records}
        for status in ("ERROR", "PENDING", "ACTIVE", "DELETED"):
            if status in statuses:
                return status
        return "ACTIVE"

    @property
    def action(self) -> str:
        actions = [r.action for r in self.records]
        if actions and all(a == "CREATE" for a in actions):
            return "CREATE"
        if actions and all(a == "DELETE" for a in actions):
            return "DELETE"
        if any(a in ("CREATE", "UPDATE", "DELETE") for a in actions):
            return "UPDATE"
        return "NONE"


@dataclass
class ListResult:
    items: list
    total: int | None


@dataclass(frozen=True)
class ZoneTaskView:
    """An import or export as the API renders it (the imported file is not part of it)."""

    id: str
    version: int
    tenant_id: str | None
    zone_id: str | None
    task_type: str
    status: str
    message: str | None
    location: str | None
    created_at: datetime | None
    updated_at: datetime | None

    @classmethod
    def of(cls, row: Any) -> ZoneTaskView:
        return cls(id=row.id, version=row.version, tenant_id=row.tenant_id, zone_id=row.zone_id,
                   task_type=row.task_type, status=row.status, message=row.message,
                   location=row.location, created_at=row.created_at, updated_at=row.updated_at)
