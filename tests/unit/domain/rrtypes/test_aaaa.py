"""AAAA: records.md (netaddr IPv6 parser); no corpus group exists for this type."""

import pytest

from openkeel_designate.domain import rrtypes

AAAA = rrtypes.get("AAAA")


@pytest.mark.parametrize(
    "data",
    ["2001:db8::1", "2001:DB8::1", "::", "::1", "::ffff:192.0.2.1", "1:2:3:4:5:6:7:8", "fe80::1"],
)
def test_accepts_and_renders(data):
    assert AAAA.is_valid(data)
    AAAA.render(data)


@pytest.mark.parametrize(
    "data",
    [
        "192.0.2.1", "1::2::3", "1:2:3:4:5:6:7:8:9", "fe80::1%eth0", "2001:db8::/64", " ::1",
        "::1 ", "[::1]", "00001::1", "", "not-an-ip", 1, None,
    ],
)
def test_rejects(data):
    assert not AAAA.is_valid(data)
