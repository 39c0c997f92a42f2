"""CAA: records.md (flags 0/1, issue/issuewild/iodef only, unquoted values, key=value params)."""

import pytest

from openkeel_designate.domain import errors, rrtypes

CAA = rrtypes.get("CAA")


@pytest.mark.parametrize(
    "data",
    [
        "0 issue letsencrypt.org", "1 issuewild ca.example.net", "0 issue ca.org; policy=ev",
        "0 issue ca.org; a=1; b=2", "0 iodef mailto:security@example.org",
        "0 iodef mailto:sec+caa@example.org", "0 iodef https://iodef.example.org/report",
        "0 iodef http://iodef.example.org/",
    ],
)
def test_accepts_and_renders(data):
    assert CAA.is_valid(data)
    CAA.render(data)


def test_render_keeps_parameters_dnspython_would_read_as_a_comment():
    rdata = CAA.render("0 issue ca.org; policy=ev")
    assert (rdata.flags, rdata.tag, rdata.value) == (0, b"issue", b"ca.org; policy=ev")


@pytest.mark.parametrize(
    "data",
    [
        '0 issue "ca.org"', '0 issue ";"', "0 issue ;", "2 issue ca.org", "0 Issue ca.org",
        "0 tbs ca.org", "0 issue ca.org;policy=ev", "0 issue ca.org; policy",
        "0 issue bad_!.org", "0 iodef mailto:a@bad!.org", "0 iodef ftp://example.org/",
        "0 iodef https://example.org", "0 iodef security@example.org", "issue ca.org", "", None,
    ],
)
def test_rejects(data):
    assert not CAA.is_valid(data)


@pytest.mark.parametrize("data", ["0 issue", "1 iodef", "0 badtag", "0 "])
def test_tag_without_value_fails_the_whole_body(data):
    """Designate indexes the value without checking it exists: its IndexError is not a
    per-record format error but a 400 for the whole body (found by the differential harness)."""
    with pytest.raises(errors.InvalidObject) as caught:
        CAA.is_valid(data)
    assert caught.value.message == ("Provided object is not valid. Got a IndexError error with "
                                    "message list index out of range")
    assert not caught.value.errors


@pytest.mark.parametrize(("data", "value"), [
    ('0 issue "ca.org; policy=ev"', b"ca.org; policy=ev"),
    ('128 issue "ca.example.net"', b"ca.example.net"),
    ('0 iodef "https://example.org/caa/report"', b"https://example.org/caa/report"),
])
def test_render_reads_the_quoted_form_imports_store(data, value):
    rdata = CAA.render(data)
    assert rdata.value == value
    assert rdata.flags == int(data.split()[0])
