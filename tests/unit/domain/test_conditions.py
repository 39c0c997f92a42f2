"""If-Match / If-None-Match evaluation (RFC 9110 §13.1): strong for If-Match, weak otherwise."""

from __future__ import annotations

import pytest

from openkeel_designate.domain import errors
from openkeel_designate.domain.conditions import Condition, check, parse_tags, strong_etag

TAG = strong_etag("zone", "id", 3, "2026-01-01 00:00:00.000001")


def test_etag_is_quoted_strong_and_follows_the_values() -> None:
    assert TAG.startswith('"') and TAG.endswith('"') and len(TAG) == 34
    assert TAG == strong_etag("zone", "id", 3, "2026-01-01 00:00:00.000001")
    assert TAG != strong_etag("zone", "id", 4, "2026-01-01 00:00:00.000001")


def test_parse_tags() -> None:
    assert parse_tags(None) is None
    assert parse_tags('"a", "b" ,') == ('"a"', '"b"')
    assert parse_tags('"a", *') == ("*",)
    assert parse_tags("") == ()


@pytest.mark.parametrize(("header", "current", "passes"), [
    ("*", TAG, True), ("*", None, False),
    (TAG, TAG, True), (f'"x", {TAG}', TAG, True), ('"x"', TAG, False),
    (f"W/{TAG}", TAG, False),  # weak tags never match If-Match
    (TAG, None, False), ("", TAG, False),
])
def test_if_match(header: str, current: str | None, passes: bool) -> None:
    condition = Condition(if_match=parse_tags(header))
    if passes:
        condition.check(current)
    else:
        with pytest.raises(errors.PreconditionFailed) as caught:
            condition.check(current)
        assert (caught.value.code, caught.value.type) == (412, "precondition_failed")


@pytest.mark.parametrize(("header", "current", "passes"), [
    ("*", None, True), ("*", TAG, False),
    (TAG, TAG, False), (f"W/{TAG}", TAG, False), ('"x"', TAG, True), (TAG, None, True),
])
def test_if_none_match(header: str, current: str | None, passes: bool) -> None:
    condition = Condition(if_none_match=parse_tags(header))
    if passes:
        condition.check(current)
    else:
        with pytest.raises(errors.PreconditionFailed):
            condition.check(current)


def test_no_condition_checks_nothing() -> None:
    check(None, None)
