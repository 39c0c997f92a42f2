"""RFC 1982 arithmetic, including the wrap-around cases secondaries depend on."""

import pytest

from openkeel_designate.domain.serial import next_serial, serial_add, serial_ge, serial_gt

MAX = 2**32 - 1


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (2, 1, True),
        (1, 2, False),
        (5, 5, False),
        (0, MAX, True),  # wrap: 0 follows 4294967295
        (MAX, 0, False),
        (10, MAX - 10, True),
        (2**31 - 1, 0, True),
        (2**31, 0, False),  # exactly half way: undefined, not newer
        (0, 2**31, False),
        (1_700_000_000, 1_600_000_000, True),
    ],
)
def test_serial_gt(a: int, b: int, expected: bool) -> None:
    assert serial_gt(a, b) is expected


def test_serial_ge() -> None:
    assert serial_ge(7, 7)
    assert serial_ge(8, 7)
    assert not serial_ge(6, 7)
    assert serial_ge(0, MAX)


def test_serial_add_wraps_and_bounds() -> None:
    assert serial_add(MAX, 1) == 0
    assert serial_add(5, 0) == 5
    with pytest.raises(ValueError):
        serial_add(1, 2**31)
    with pytest.raises(ValueError):
        serial_add(1, -1)


def test_next_serial_takes_time_when_newer() -> None:
    assert next_serial(1_600_000_000, 1_700_000_000) == 1_700_000_000


def test_next_serial_increments_when_time_not_newer() -> None:
    assert next_serial(1_700_000_000, 1_700_000_000) == 1_700_000_001
    assert next_serial(1_700_000_005, 1_700_000_000) == 1_700_000_006


def test_next_serial_new_zone_takes_time() -> None:
    assert next_serial(0, 1_700_000_000) == 1_700_000_000


def test_next_serial_wraps_and_skips_zero() -> None:
    assert next_serial(MAX, 5) == 5  # 5 is newer than MAX on the circle
    assert next_serial(MAX, MAX) == 1  # MAX + 1 wraps to 0, which is skipped
    assert serial_gt(next_serial(MAX, MAX), MAX)


def test_next_serial_is_always_newer() -> None:
    for old in (1, 2**31 - 1, 2**31, 2**31 + 1, MAX - 1, MAX, 1_700_000_000):
        for now in (0, 1, 1_700_000_000, 2**31, MAX):
            new = next_serial(old, now)
            assert new != 0
            assert serial_gt(new, old), (old, now, new)
