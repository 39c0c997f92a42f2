"""``domain/fields.py``: each coercer against what Designate 23.0.0's field of the same
kind does with the same value (its ``designate.objects.fields`` classes were run on every
value below): the value kept, or the Python error kind and text its 400 quotes."""

from __future__ import annotations

from typing import Any

import pytest

from openkeel_designate.domain import fields as f

LABEL = "a" * 64
TOO_LONG = "a." * 128 + "b"  # 257 characters


def refusal(coerce: Any, value: Any, name: str = "f") -> tuple[str, str]:
    with pytest.raises(f.FieldError) as caught:
        coerce(name, value)
    return caught.value.kind, caught.value.detail


# --- string ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "kept"), [
    (None, None), ("", ""), ("x" * 160, "x" * 160), (5, "5"), (1.5, "1.5"), (True, "True")])
def test_string_keeps_text_and_writes_numbers_out(value, kept):
    assert f.string(160)("description", value) == kept


def test_string_length_is_checked():
    assert refusal(f.string(160), "x" * 161, "description") == (
        "ValueError", "Value too long for description")


@pytest.mark.parametrize(("value", "kind"), [(["a"], "list"), ({"a": 1}, "dict")])
def test_string_refuses_lists_and_objects(value, kind):
    assert refusal(f.string(160), value, "description") == (
        "ValueError", f"A string is required in field description, not a {kind}")


# --- integer -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "kept"), [
    (None, None), (0, 0), (2147483647, 2147483647), ("5", 5), (" 5", 5), ("+5", 5), (5.9, 5),
    (True, 1)])
def test_integer_reads_with_int(value, kept):
    assert f.integer()("ttl", value) == kept


@pytest.mark.parametrize(("value", "detail"), [
    (-1, "Value must be >= 0 for field ttl"), (2147483648, "Value too high for ttl"),
    ("5.0", "invalid literal for int() with base 10: '5.0'"),
    ("abc", "invalid literal for int() with base 10: 'abc'")])
def test_integer_value_errors(value, detail):
    assert refusal(f.integer(), value, "ttl") == ("ValueError", detail)


@pytest.mark.parametrize("value", [[], {}])
def test_integer_of_a_list_or_object_is_a_type_error(value):
    assert refusal(f.integer(), value, "ttl") == (
        "TypeError", "int() argument must be a string, a bytes-like object or a real number, "
                     f"not '{type(value).__name__}'")


def test_integer_bounds_are_parameters():
    assert f.integer(1, 10)("n", 10) == 10
    assert refusal(f.integer(1, 10), 0, "n") == ("ValueError", "Value must be >= 1 for field n")


# --- enum --------------------------------------------------------------------------------------
def test_enum():
    zone_type = f.enum("PRIMARY", "SECONDARY", "CATALOG")
    assert zone_type("type", "PRIMARY") == "PRIMARY"
    assert zone_type("type", None) is None  # nullability is the resource's business
    for value, text in (("primary", "primary"), ("", ""), (5, "5"), (["PRIMARY"], "['PRIMARY']")):
        assert refusal(zone_type, value, "type") == ("ValueError", f"Field value {text} is invalid")


# --- domain (zone names) -----------------------------------------------------------------------
@pytest.mark.parametrize("value", ["example.org.", "_x.example.", "a-b.c.", "a." * 127])
def test_domain_accepts(value):
    assert f.domain("name", value) == value


@pytest.mark.parametrize(("value", "detail"), [
    (None, "Field `name' cannot be None"),
    ("example.org", "Domain example.org does not end with a dot"),
    ("", "Domain  does not end with a dot"),
    (42, "Domain 42 does not end with a dot"),
    (".", "Domain . is invalid"),
    ("*.example.", "Domain *.example. is invalid"),
    ("a..b.", "Domain a..b. is invalid"),
    ("-a.example.", "Domain -a.example. is invalid"),
    ("bad name.example.", "Domain bad name.example. is invalid"),
    (f"{LABEL}.example.", f"Host {LABEL} is too long"),
    (f"{LABEL}.example", f"Host {LABEL} is too long"),  # label lengths before the final dot
    (f"x.{LABEL}", f"Host {LABEL} is too long"),  # the last label counts without a final dot
    (TOO_LONG, "Value too long for name"),  # the whole length first of all
    (["x."], "A string is required in field name, not a list"),
])
def test_domain_refuses_in_designates_order(value, detail):
    assert refusal(f.domain, value, "name") == ("ValueError", detail)


# --- hostname (recordset names) ----------------------------------------------------------------
@pytest.mark.parametrize("value", ["www.example.", "*.example.", "_sip._tcp.example.", "A.B."])
def test_hostname_accepts(value):
    assert f.hostname("name", value) == value


@pytest.mark.parametrize(("value", "detail"), [
    ("nodot", "Host name nodot does not end with a dot"),
    (5, "Host name 5 does not end with a dot"),
    ("a.*.example.", "Host name a.*.example. is invalid"),
    ("bad!name.example.", "Host name bad!name.example. is invalid"),
    (f"{LABEL}.example", f"Host {LABEL} is too long"),
    ("a." * 128, "Value too long for name"),
    ({"a": 1}, "A string is required in field name, not a dict"),
])
def test_hostname_refuses_in_designates_order(value, detail):
    assert refusal(f.hostname, value, "name") == ("ValueError", detail)


# --- email -------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["a@example.org", "first.last@example.org", "a@b"])
def test_email_accepts(value):
    assert f.email("email", value) == value


@pytest.mark.parametrize(("value", "detail"), [
    ("not-an-email", "not-an-email is not an email"),
    ("", " is not an email"),
    (5, "5 is not an email"),
    ("a@@b.org", "a@@b.org is not an email"),
    ("a@-b.org", "Email a@-b.org is invalid"),
    ("a@" + "b." * 127 + "c", "Value too long for email"),
    ("x" * 251 + "@@b.c", "Value too long for email"),  # the length before the @ count
])
def test_email_refuses_in_designates_order(value, detail):
    assert refusal(f.email, value, "email") == ("ValueError", detail)


def test_email_may_be_null():
    assert f.email("email", None) is None


# --- uuid --------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [
    "0f0e0d0c-0b0a-4908-8706-050403020100", "0F0E0D0C-0B0A-4908-8706-050403020100",
    "0f0e0d0c0b0a49088706050403020100", None])
def test_uuid_accepts(value):
    assert f.uuid_string("pool_id", value) == value


@pytest.mark.parametrize("value", ["nope", "0f0e0d0c0b0a490887060504030201000", ""])
def test_uuid_refuses_with_pythons_words(value):
    assert refusal(f.uuid_string, value, "pool_id") == (
        "ValueError", "badly formed hexadecimal UUID string")


# --- attributes and lists ----------------------------------------------------------------------
# --- attributes (each pair an attribute with a key and a value field) --------------------------
def test_string_map_keeps_short_strings():
    assert f.string_map()("attributes", {"a": 1, "b": "x", "c": True}) == {
        "a": "1", "b": "x", "c": "True"}
    assert f.string_map()("attributes", {}) == {}


@pytest.mark.parametrize(("value", "kind", "detail"), [
    (["a"], "AttributeError", "'list' object has no attribute 'items'"),
    ("ab", "AttributeError", "'str' object has no attribute 'items'"),
    (5, "AttributeError", "'int' object has no attribute 'items'"),
    ({"k" * 51: "x" * 51}, "ValueError", "Value too long for key"),
    ({"k" * 51: None}, "ValueError", "Value too long for key"),
    ({"k": "x" * 51}, "ValueError", "Value too long for value"),
    ({"k": None}, "ValueError", "Field `value' cannot be None"),
    ({"k": ["a"]}, "ValueError", "A string is required in field value, not a list"),
])
def test_string_map_refusals(value, kind, detail):
    assert refusal(f.string_map(), value, "attributes") == (kind, detail)


def test_field_error_defaults_to_a_value_error():
    error = f.FieldError("detail")
    assert (error.kind, error.detail, str(error)) == ("ValueError", "detail", "detail")
