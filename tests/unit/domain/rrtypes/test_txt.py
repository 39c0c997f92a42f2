"""TXT: corpus verdicts (recordsets group) and records.md §3 (quoting, 255-character strings)."""

import pytest

from openkeel_designate.domain import rrtypes

TXT = rrtypes.get("TXT")

LONG_SPLIT = '"' + "a" * 200 + '" "' + "b" * 200 + '"'


@pytest.mark.parametrize(
    "data",
    ['"site"', "devwild", '"hello world"', '"say \\"hi\\""', "a" * 255, '"' + "a" * 253 + '"',
     LONG_SPLIT, '"v=spf1 include:_spf.example.org -all"'],
)
def test_accepts_and_renders(data):
    assert TXT.is_valid(data)
    TXT.render(data)


def test_long_value_renders_as_several_strings():
    rdata = TXT.render(LONG_SPLIT)
    assert rdata.strings == (b"a" * 200, b"b" * 200)


def test_unquoted_split_long_value_is_accepted():
    assert TXT.is_valid("a" * 200 + '" "' + "b" * 200)


@pytest.mark.parametrize(
    "data",
    [
        "hello world", "tab\there", '"half', 'half"', '"a"b"', '"line\nbreak"', "ends\\",
        "a" * 256, '"' + "a" * 254 + '"', '"' + "a" * 300 + '"',
        '"' + "a" * 300 + '" "b"', 16, None,
    ],
)
def test_rejects(data):
    assert not TXT.is_valid(data)
