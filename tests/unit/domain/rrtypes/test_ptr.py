"""PTR: records.md (a domain of at most 255 characters, anywhere in the tree)."""

import pytest

from openkeel_designate.domain import rrtypes

PTR = rrtypes.get("PTR")


@pytest.mark.parametrize("data", ["host.example.org.", "www.example.com.", "a." * 100 + "org."])
def test_accepts_and_renders(data):
    assert PTR.is_valid(data)
    PTR.render(data)


@pytest.mark.parametrize(
    "data", ["host.example.org", "192.0.2.1", "*.example.org.", "a b.org.", "a." * 127 + "b.", 1]
)
def test_rejects(data):
    assert not PTR.is_valid(data)


def test_reverse_zone_names_are_ordinary_names():
    assert PTR.is_valid_name("1.2.0.192.in-addr.arpa.")
    assert PTR.is_valid_name("host.example.org.")
