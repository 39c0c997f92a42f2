"""Central's recordset rules, pure: body validation and the update guard (no database)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from openkeel_designate.central.recordsets import check_updatable, validate
from openkeel_designate.domain.recordset_types import supported_type
from openkeel_designate.central.views import RecordSetView
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext

TYPES = ["A", "AAAA", "CNAME", "MX", "NS", "SOA", "TXT"]


def _view(rtype: str, name: str = "www.example.org.", managed: bool = False) -> RecordSetView:
    recordset = SimpleNamespace(type=rtype, name=name)
    records = [SimpleNamespace(managed=managed, status="ACTIVE", action="NONE")]
    return RecordSetView(recordset, records, "example.org.")


def test_validate_keeps_the_first_of_each_duplicate_record():
    data = validate(TYPES, {"records": ["192.0.2.1", "192.0.2.2", "192.0.2.1"]}, "A",
                    "www.example.org.")
    assert data == ["192.0.2.1", "192.0.2.2"]


def test_validate_reports_every_bad_record_at_once():
    with pytest.raises(errors.InvalidObject) as caught:
        validate(TYPES, {"records": ["192.0.2.1", "nope", "also-nope"]}, "A", "www.example.org.")
    assert caught.value.type == "invalid_object"
    assert [e["path"] for e in caught.value.errors] == [["records", 1], ["records", 2]]


def test_validate_refuses_records_that_are_not_a_list():
    with pytest.raises(errors.InvalidObject) as caught:
        validate(TYPES, {"records": "192.0.2.1"}, "A", "www.example.org.")
    assert caught.value.errors[0]["validator"] == "type"


def test_validate_treats_null_records_as_none():
    assert validate(TYPES, {"records": None}, "A", "www.example.org.") == []


def test_validate_refuses_a_second_cname_record():
    with pytest.raises(errors.BadRequest) as caught:
        validate(TYPES, {"records": ["a.example.org.", "b.example.org."]}, "CNAME",
                 "www.example.org.")
    assert caught.value.type == "bad_request"


def test_validate_refuses_an_invalid_name_of_a_new_recordset():
    with pytest.raises(errors.InvalidObject, match="name is invalid"):
        validate(TYPES, {"records": []}, "A", "bad name.example.org.")


def test_supported_type_tells_unknown_from_unsupported():
    with pytest.raises(errors.InvalidObject) as unknown:
        supported_type(TYPES, "BOGUS")
    assert "is not a valid record type" in unknown.value.errors[0]["message"]
    with pytest.raises(errors.InvalidObject) as unsupported:
        supported_type(TYPES, "SRV")
    assert "is not a supported record type" in unsupported.value.errors[0]["message"]


def test_ds_unlisted_is_unknown_as_in_designate_listed_it_is_validated():
    with pytest.raises(errors.InvalidObject) as unlisted:
        supported_type(TYPES, "DS")
    assert unlisted.value.errors[0] == {
        "path": ["recordset", "type"], "message": "'DS' is not a valid record type",
        "validator": "value", "validator_value": ["DS"]}
    digest = "ab" * 32
    assert validate([*TYPES, "DS"], {"records": [f"1 13 2 {digest}"]}, "DS",
                    "child.example.org.") == [f"1 13 2 {digest}"]
    with pytest.raises(errors.InvalidObject) as bad:
        validate([*TYPES, "DS"], {"records": ["1 13 2 abcd"]}, "DS", "child.example.org.")
    assert bad.value.errors[0]["message"] == "'1 13 2 abcd' is not a 'DS' Record"


def test_check_updatable_refuses_managed_records():
    with pytest.raises(errors.BadRequest, match="Managed records may not be updated") as caught:
        check_updatable(RequestContext(project_id="p"), _view("A", managed=True))
    assert caught.value.type == "bad_request"


def test_check_updatable_refuses_soa_even_when_editing_managed_records():
    ctx = RequestContext(project_id="p", edit_managed_records=True)
    with pytest.raises(errors.BadRequest, match="Updating SOA recordsets is not allowed"):
        check_updatable(ctx, _view("SOA", name="example.org."))


def test_check_updatable_refuses_the_apex_ns():
    ctx = RequestContext(project_id="p", edit_managed_records=True)
    with pytest.raises(errors.BadRequest, match="root zone NS"):
        check_updatable(ctx, _view("NS", name="example.org."))


def test_check_updatable_lets_a_plain_recordset_through():
    check_updatable(RequestContext(project_id="p"), _view("A"))
