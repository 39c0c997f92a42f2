"""NAPTR: corpus verdicts (rr-naptr) and records.md (six single-space fields, field regexes)."""

import pytest

from openkeel_designate.domain import rrtypes

NAPTR = rrtypes.get("NAPTR")

REGEXP = '"!^.*$!sip:info@example.org!"'


@pytest.mark.parametrize(
    "data",
    [
        f'100 10 "U" "E2U+sip" {REGEXP} sip.example.org.',
        '200 20 "S" "SIP+D2U" "" _sip._udp.example.org.',
        '200 20 S SIP+D2U "" _sip._udp.example.org.',
        '0 0 "" "" "" a.example.org.',
        '10 100 "a" "http+I2R" "" _http._tcp.example.com.',
    ],
)
def test_accepts_and_renders(data):
    assert NAPTR.is_valid(data)
    NAPTR.render(data)


@pytest.mark.parametrize(
    "data",
    [
        f'100 10 "X" "E2U+sip" {REGEXP} .',
        f'70000 10 "U" "E2U+sip" {REGEXP} .',
        '100 10 "U"',
        f'100 10 "U" "E2U+sip" {REGEXP} .',
        f'100 10 "U" "E2U+sip" {REGEXP} sip.example.org',
        f'100 10 "U" "1sip" {REGEXP} sip.example.org.',
        '100 10 "U" "E2U+sip" "1abc1" sip.example.org.',
        '100 10 "U" "E2U+sip" "!^.*$!a b!" sip.example.org.',
        f'100  10 "U" "E2U+sip" {REGEXP} sip.example.org.',
        f'-1 10 "U" "E2U+sip" {REGEXP} sip.example.org.',
        None,
    ],
)
def test_rejects(data):
    assert not NAPTR.is_valid(data)
