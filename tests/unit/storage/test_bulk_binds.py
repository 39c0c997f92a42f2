"""The bulk insert's faster DateTime bind gives SQLite exactly the text SQLAlchemy gives it."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

from sqlalchemy.dialects import sqlite

from openkeel_designate.storage import bulk
from openkeel_designate.storage.models import Record


def test_datetime_text_is_sqlalchemy_s() -> None:
    dialect = sqlite.dialect()
    column_type = Record.__table__.c.created_at.type
    original = column_type.dialect_impl(dialect).bind_processor(dialect)
    faster = bulk._faster(original, column_type)
    rng = random.Random(3)
    values = [datetime(2026, 12, 3, 10, 0, 0), datetime(5, 1, 2, 3, 4, 5, 6),
              datetime(2026, 12, 3, 23, 59, 59, 999999), datetime.utcnow(), None,
              date(2026, 12, 3), datetime(2026, 1, 1, tzinfo=timezone.utc)]
    values += [datetime(2000, 1, 1) + timedelta(microseconds=rng.randrange(10**15))
               for _ in range(2000)]
    for value in values:
        assert faster(value) == original(value), value


def test_other_columns_keep_their_processor() -> None:
    dialect = sqlite.dialect()
    column_type = Record.__table__.c.managed.type
    original = column_type.dialect_impl(dialect).bind_processor(dialect)
    assert bulk._faster(original, column_type) is original
