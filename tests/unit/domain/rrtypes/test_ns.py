"""NS: corpus verdicts (rr-ns), the zone-name rule for the recordset name, the managed apex."""

import pytest

from openkeel_designate.domain import rrtypes

NS = rrtypes.get("NS")


@pytest.mark.parametrize("data", ["ns1.example.org.", "ns2.example.org.", "ns3.example.org."])
def test_accepts_and_renders(data):
    assert NS.is_valid(data)
    assert NS.render(data).to_text() == data


@pytest.mark.parametrize(
    "data", ["192.0.2.1", "ns 1.example.org.", "ns1.example.org", "*.example.org.", "", None]
)
def test_rejects(data):
    assert not NS.is_valid(data)


def test_the_apex_ns_recordset_is_designates():
    assert NS.apex_managed
    assert not rrtypes.get("A").apex_managed


def test_recordset_name_cannot_be_a_wildcard():
    assert NS.is_valid_name("delegated.ns.rr.example.")
    assert not NS.is_valid_name("*.ns.rr.example.")
    assert not NS.is_valid_name("delegated.ns.rr.example")
