"""What central returns to the API: stored rows plus the pieces rendered with them."""

from __future__ import annotations

from dataclasses import dataclass, field

from openkeel_designate.storage.models import Record, RecordSet, Zone


@dataclass
class ZoneView:
    zone: Zone
    attributes: dict[str, str] = field(default_factory=dict)
    masters: list[tuple[str, int]] = field(default_factory=list)
    shared: bool = False


@dataclass
class RecordSetView:
    recordset: RecordSet
    records: list[Record]
    zone_name: str

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
