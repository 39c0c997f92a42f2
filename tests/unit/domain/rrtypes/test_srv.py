"""SRV: corpus verdicts (rr-srv) and the two-underscore-label recordset name rule."""

import pytest

from openkeel_designate.domain import rrtypes

SRV = rrtypes.get("SRV")


@pytest.mark.parametrize(
    "data", ["10 60 5060 sip.example.org.", "20 10 5061 sips.example.org.", "0 0 0 a.b."]
)
def test_accepts_and_renders(data):
    assert SRV.is_valid(data)
    assert SRV.render(data).to_text() == data


def test_numbers_are_read_with_int():
    assert SRV.is_valid("+10 060 5060 sip.example.org.")


@pytest.mark.parametrize(
    "data",
    [
        "10 60 sip.example.org.", "10 60 70000 sip.example.org.", "10 abc 5060 sip.example.org.",
        "10 60 5060 sip.example.org", "10 60 5060 .", "-1 60 5060 sip.example.org.",
        "10 60  5060 sip.example.org.", "10 60 5060 sip.example.org. extra", None,
    ],
)
def test_rejects(data):
    assert not SRV.is_valid(data)


@pytest.mark.parametrize(
    "name", ["_sip._tcp.srv.rr.example.", "_inv-missing-port._tcp.srv.rr.example.", "_a._b.c."]
)
def test_accepts_service_names(name):
    assert SRV.is_valid_name(name)


@pytest.mark.parametrize(
    "name", ["sip.tcp.srv.rr.example.", "_sip.tcp.srv.rr.example.", "_sip._tcp.", "*._tcp.x."]
)
def test_rejects_other_names(name):
    assert not SRV.is_valid_name(name)
