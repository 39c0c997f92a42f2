"""``rrtypes/base.py``: the field helpers every type parses with, and the rules a type starts
from before its module declares its own."""

import pytest

from openkeel_designate.domain.rrtypes.base import (
    RecordType,
    canonical_int,
    is_domain,
    loose_int,
    split_exact,
    strip_wrapping_quotes,
)


@pytest.mark.parametrize("value", ["example.org.", "a.", "_sip._tcp.example.org.", "a-b.c."])
def test_domain_accepts(value):
    assert is_domain(value)


@pytest.mark.parametrize(
    "value", ["example.org", "*.example.org.", "-a.example.", "a-.example.", "a..b.", ".",
              "x" * 64 + ".", "a." * 127 + "b.", None, 5],
)
def test_domain_rejects(value):
    assert not is_domain(value)


def test_domain_max_len_is_a_parameter():
    assert is_domain("abc.de.", max_len=7)
    assert not is_domain("abc.de.", max_len=6)


def test_split_exact_counts_empty_fields_as_Designate_does():
    assert split_exact("10 mx.example.", 2) == ["10", "mx.example."]
    assert split_exact("10  mx.example.", 2) is None
    assert split_exact("10 mx.example. ", 2) is None
    assert split_exact("a,b", 2, sep=",") == ["a", "b"]


def test_strip_wrapping_quotes():
    assert strip_wrapping_quotes('"text"') == "text"
    assert strip_wrapping_quotes('"half') == '"half'
    assert strip_wrapping_quotes('"') == ""


@pytest.mark.parametrize(("value", "ok"), [("0", True), ("65535", True), ("65536", False),
                                           ("+5", False), ("05", False), (" 5", False),
                                           ("-1", False), ("x", False), (None, False)])
def test_canonical_int(value, ok):
    assert canonical_int(value, 0, 65535) is ok


@pytest.mark.parametrize(("value", "ok"), [("0", True), ("+5", True), ("05", True),
                                           (" 5", True), ("65536", False), ("-1", False),
                                           ("x", False), (None, False)])
def test_loose_int(value, ok):
    assert loose_int(value, 0, 65535) is ok


def test_a_type_starts_from_permissive_rules():
    plain = RecordType()
    assert plain.max_records is None
    assert not plain.exclusive and not plain.apex_managed and plain.api_writable
    assert plain.name_error("x.example.") is None
    assert plain.is_valid_name("*.example.org.")
    assert not plain.is_valid_name("a.*.example.org.")
    with pytest.raises(NotImplementedError):
        plain.is_valid("anything")


def test_a_record_is_judged_alone_unless_its_type_reads_the_name():
    from openkeel_designate.domain import rrtypes

    a_type = rrtypes.get("A")
    assert a_type.is_valid_in("_dns.example.org.", "192.0.2.1")
    assert a_type.is_valid_in(None, "192.0.2.1")
    assert not a_type.is_valid_in("www.example.org.", "192.0.2.256")
