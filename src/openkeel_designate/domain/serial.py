"""RFC 1982 serial number arithmetic for SOA serials (32-bit, wrapping).

Serials are compared on a circle, not as plain integers: after 4294967295 comes 0, and a
secondary only transfers when the master's serial is "greater" in this sense.  Getting it wrong
makes secondaries ignore changes after a wrap, or a serial jump of more than 2^31.
"""

from __future__ import annotations

SERIAL_BITS = 32
_MODULUS = 1 << SERIAL_BITS
_HALF = 1 << (SERIAL_BITS - 1)


def serial_gt(a: int, b: int) -> bool:
    """Whether serial ``a`` is newer than ``b`` (RFC 1982 §3.2).

    The undefined pair (exactly 2^31 apart) counts as not newer, so nothing transfers on it.
    """
    a %= _MODULUS
    b %= _MODULUS
    return (a < b and b - a > _HALF) or (a > b and a - b < _HALF)


def serial_ge(a: int, b: int) -> bool:
    """Whether ``a`` is the same serial as ``b`` or newer."""
    return a % _MODULUS == b % _MODULUS or serial_gt(a, b)


def serial_add(serial: int, n: int) -> int:
    """``serial + n`` on the circle; RFC 1982 only allows 0 <= n < 2^31."""
    if not 0 <= n < _HALF:
        raise ValueError("serial increment must be in [0, 2^31)")
    return (serial + n) % _MODULUS


def next_serial(old: int, now: int) -> int:
    """The serial after ``old`` at unix time ``now``: max(now, old + 1) on the circle.

    Time-based serials tell an operator when a zone last changed; ``old + 1`` keeps the serial
    monotonic when changes come faster than once a second or the clock goes back.  A zone that has
    no serial yet (0) simply takes ``now``.  0 is skipped because Designate and the worker's
    polling read serial 0 as "no zone".
    """
    now %= _MODULUS
    if now != 0 and (old % _MODULUS == 0 or serial_gt(now, old)):
        candidate = now
    else:
        candidate = serial_add(old, 1)
    return candidate or 1  # only old = 2^32 - 1 lands on 0, and 1 is newer than it
