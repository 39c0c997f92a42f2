"""SOA: records.md (seven fields, serial 1..2^32-1, timers 0..2^31-1), not written by users."""

import pytest

from openkeel_designate.domain import rrtypes

SOA = rrtypes.get("SOA")

RECORDED = "ns.example.org. admin.example.org. 1 3600 600 86400 3600"


def test_users_may_not_write_soa_recordsets():
    assert SOA.api_writable is False


@pytest.mark.parametrize(
    "data",
    [RECORDED, "ns1.example.net. hostmaster.example.org. 4294967295 0 0 0 2147483647"],
)
def test_accepts_and_renders(data):
    assert SOA.is_valid(data)
    assert SOA.render(data).to_text() == data


@pytest.mark.parametrize(
    "data",
    [
        "ns.example.org. admin.example.org. 0 3600 600 86400 3600",
        "ns.example.org. admin.example.org. 4294967296 3600 600 86400 3600",
        "ns.example.org. admin.example.org. 1 2147483648 600 86400 3600",
        "ns.example.org. admin.example.org. 1 3600 600 86400",
        "ns.example.org admin.example.org. 1 3600 600 86400 3600",
        "ns.example.org. admin@example.org 1 3600 600 86400 3600",
        "ns.example.org.  admin.example.org. 1 3600 600 86400 3600",
        None,
    ],
)
def test_rejects(data):
    assert not SOA.is_valid(data)
