"""The guard on managed recordsets written by the sink and floating IPs (no database)."""

from __future__ import annotations

import pytest

from openkeel_designate.central.managed import check_values
from openkeel_designate.domain import errors


def test_check_values_accepts_a_record_inside_the_zone():
    check_values("example.org.", "vm1.example.org.", "A", ["192.0.2.1"])


def test_check_values_refuses_a_name_outside_the_zone():
    with pytest.raises(errors.InvalidRecordSetLocation) as caught:
        check_values("example.org.", "vm1.example.net.", "A", ["192.0.2.1"])
    assert (caught.value.code, caught.value.type) == (400, "invalid_recordset_location")


def test_check_values_refuses_an_unknown_type():
    with pytest.raises(errors.InvalidRecordSetName) as caught:
        check_values("example.org.", "vm1.example.org.", "BOGUS", ["x"])
    assert caught.value.type == "invalid_recordset_name"


def test_check_values_refuses_bad_data():
    with pytest.raises(errors.InvalidObject, match="are not A records"):
        check_values("example.org.", "vm1.example.org.", "A", ["192.0.2.1", "not-an-ip"])
