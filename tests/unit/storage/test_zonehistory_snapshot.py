"""The IXFR history's snapshot blob: one JSON array with a newline between stretches of rows, so
that reading it can be sliced while any version still reads it whole; the blobs written before
(one array, no newline) read the same."""

from __future__ import annotations

import json
import zlib

from openkeel_designate import slices
from openkeel_designate.storage import zonehistory


def _rows(count: int) -> set[zonehistory.Row]:
    rows = {(f"h{i}.example.", "A", 300, f"192.0.2.{i % 250}") for i in range(count)}
    # JSON text never holds a raw newline: one inside a value is escaped, lines stay rows
    rows.add(("txt.example.", "TXT", 60, '"line one\nline two" "],[\\"x"'))
    return rows


def test_round_trip_in_stretches() -> None:
    rows = _rows(2 * zonehistory.STEP + 10)
    blob = slices.run(zonehistory.encode_steps(rows))
    text = zlib.decompress(blob)
    assert len(text.split(b"\n")) == 3  # STEP rows a stretch
    assert slices.run(zonehistory.decode_steps(blob)) == rows
    # still the one JSON array the version before decodes whole
    assert {tuple(row) for row in json.loads(text)} == rows


def test_empty_and_small_sets() -> None:
    for rows in (set(), _rows(3)):
        assert slices.run(zonehistory.decode_steps(slices.run(zonehistory.encode_steps(rows)))) == rows


def test_a_snapshot_written_before_still_reads() -> None:
    rows = _rows(5000)
    before = zlib.compress(json.dumps(sorted(rows), separators=(",", ":")).encode(), 6)
    assert slices.run(zonehistory.decode_steps(before)) == rows


def test_decoding_yields_between_lines() -> None:
    rows = _rows(3 * zonehistory.STEP)
    steps = zonehistory.decode_steps(slices.run(zonehistory.encode_steps(rows)))
    # decompress, then one step per stretch of STEP rows
    assert sum(1 for _ in steps) >= 4
