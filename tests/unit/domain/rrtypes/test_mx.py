"""MX: records.md (canonical preference, exchange only needs a trailing dot)."""

import pytest

from openkeel_designate.domain import rrtypes

MX = rrtypes.get("MX")


@pytest.mark.parametrize("data", ["10 mail.example.org.", "0 mx.example.com.", "65535 a.b."])
def test_accepts_and_renders(data):
    assert MX.is_valid(data)
    assert MX.render(data).to_text() == data


@pytest.mark.parametrize("data", ["10 mail..example.org.", "10 .", "10 m_x!.example.org."])
def test_exchange_has_no_syntax_check(data):
    assert MX.is_valid(data)


@pytest.mark.parametrize(
    "data",
    [
        "010 mail.example.org.", "+10 mail.example.org.", "-1 mail.example.org.",
        "65536 mail.example.org.", "ten mail.example.org.", "10 mail.example.org",
        "10  mail.example.org.", "10 mail.example.org. ", "mail.example.org.", "",
        "10 " + "a" * 255 + ".", 10, None,
    ],
)
def test_rejects(data):
    assert not MX.is_valid(data)
