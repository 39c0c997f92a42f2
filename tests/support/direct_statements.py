"""What the tests of the drivers' own statement runners share (``storage/asyncpg_statements``,
``storage/sqlite_statements``): a record of the statements SQLAlchemy's execution sent, TLD
rows to write, a zone.
"""

from __future__ import annotations

from sqlalchemy import event, insert, select

from openkeel_designate.storage import rows
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import Tld, Zone, new_id, utcnow

INSERT_TLD = insert(Tld.__table__)
TLD_NAMES = select(Tld.name).order_by(Tld.name)


def tld(name: str, tld_id: str | None = None) -> dict:
    return rows.complete(Tld, {"id": tld_id or new_id(), "name": name, "created_at": utcnow()})


def a_zone(**changes: object) -> Zone:
    return Zone(**{"id": "z-1", "tenant_id": "p", "name": "a.example.", "email": "h@a.example",
                   "ttl": 300, "refresh": 1, "retry": 2, "expire": 3, "minimum": 4, "serial": 5,
                   "shard": 6, "pool_id": "pool", "reverse_name": ".elpmaxe.a", **changes})


class SQLAlchemyStatements:
    """The statements SQLAlchemy's execution sent (those a runner ran itself are not here)."""

    def __init__(self, db: Database) -> None:
        self.sent: list[str] = []
        event.listen(db.engine.sync_engine, "before_cursor_execute", self._one)

    def _one(self, _conn, _cursor, statement, *_rest) -> None:  # noqa: ANN001
        self.sent.append(statement)
