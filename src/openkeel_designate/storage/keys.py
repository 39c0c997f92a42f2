"""Ids and hashes of recordsets and records, made without a database.

Apart from the tables' code so that a zone import's worker process (``offload``), which makes
the keys of a hundred thousand records with the parse, imports no SQLAlchemy: a worker's start
is the first import's wait.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence


def record_hash(recordset_id: str, data: str) -> str:
    return hashlib.md5(f"{recordset_id}:{data}".encode()).hexdigest()


# One recordset's keys: its id and, per record in order, (record id, record hash).
Keys = tuple[str, list[tuple[str, str]]]


def new_ids(count: int) -> list[str]:
    """``count`` random version-4 UUIDs as text, in ascending order."""
    raw = os.urandom(16 * count).hex()
    ids = []
    for start in range(0, 32 * count, 32):
        digits = raw[start:start + 32]
        ids.append(f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-"
                   f"{'89ab'[int(digits[16], 16) & 3]}{digits[17:20]}-{digits[20:]}")
    ids.sort()
    return ids


def new_keys(record_data: Sequence[Sequence[str]]) -> list[Keys]:
    """Keys for new recordsets whose records hold ``record_data`` (one list per recordset)."""
    recordset_ids = new_ids(len(record_data))
    record_ids = iter(new_ids(sum(len(data) for data in record_data)))
    return [(rs_id, [(next(record_ids), record_hash(rs_id, item)) for item in data])
            for rs_id, data in zip(recordset_ids, record_data)]
