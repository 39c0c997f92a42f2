"""Helpers of the tests of writes without a transaction (test_unlocked_create.py,
test_unlocked_change.py) and of the recordset PUT and DELETE (test_recordset_put_delete.py):
what an unlocked write answered, a write put exactly between a request's read and its write,
and a recordset's rows as stored."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from sqlalchemy import select

from openkeel_designate.storage.models import Record, RecordSet, Zone


def spy(monkeypatch: Any, module: ModuleType, name: str) -> list[bool]:
    """What each call of the unlocked write ``module.name`` answered: True written, False
    sent the locked way."""
    answers: list[bool] = []
    real = getattr(module, name)

    async def recorded(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
        written = await real(*args, **kwargs)
        answers.append(written)
        return written

    monkeypatch.setattr(module, name, recorded)
    return answers


def between(monkeypatch: Any, module: ModuleType, name: str, write: Any) -> None:
    """Run the coroutine function ``write()`` once, right after the next call of the unlocked
    read ``module.name`` returned."""
    real = getattr(module, name)
    pending = [write]

    async def read_then_write(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - passes through
        found = await real(*args, **kwargs)
        if pending:
            await pending.pop()()
        return found

    monkeypatch.setattr(module, name, read_then_write)


async def stored_recordset(services: Any, zone_id: str, recordset_id: str
                           ) -> tuple[Zone, RecordSet | None, dict[str, Record]]:
    """(the zone, the recordset or None, its records by data), as stored."""
    async with services.db.read() as session:
        zone = await session.get(Zone, zone_id)
        recordset = await session.get(RecordSet, recordset_id)
        records = (await session.execute(select(Record).where(
            Record.recordset_id == recordset_id))).scalars().all()
        return zone, recordset, {r.data: r for r in records}
