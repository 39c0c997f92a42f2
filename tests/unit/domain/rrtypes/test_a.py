"""A: corpus verdicts (rr-a, recordsets groups) and the dnspython + dotted-quad strictness."""

import pytest

from openkeel_designate.domain import rrtypes

A = rrtypes.get("A")

CORPUS_VALID = [
    "192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.5", "192.0.2.6", "192.0.2.21", "192.0.2.25",
    "192.0.2.99",
]
CORPUS_INVALID = ["192.0.2.256", "not-an-ip", "2001:db8::1", "", "192.0.2.0/24", 3232235521, None]


@pytest.mark.parametrize("data", CORPUS_VALID + ["0.0.0.0", "255.255.255.255"])
def test_accepts_and_renders(data):
    assert A.is_valid(data)
    assert A.render(data).to_text() == data


@pytest.mark.parametrize(
    "data", CORPUS_INVALID + ["01.2.3.4", "1.2.3", " 1.2.3.4", "1.2.3.4 ", "1.2.3.4.5", "0x1.2.3.4"]
)
def test_rejects(data):
    assert not A.is_valid(data)


def test_generic_name_rule():
    assert A.is_valid_name("*.rs.example.")
    assert A.is_valid_name("UPPER.rs.example.")
    assert not A.is_valid_name("a.*.rs.example.")
    assert not A.is_valid_name("bad!name.rs.example.")
    assert not A.is_valid_name("nodot.rs.example")
    assert not A.is_valid_name("x" * 64 + ".rs.example.")
