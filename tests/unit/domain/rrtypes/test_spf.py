"""SPF: corpus verdicts (rr-spf): looser than TXT, half-quoted and trailing-backslash accepted."""

import pytest
import dns.exception

from openkeel_designate.domain import rrtypes

SPF = rrtypes.get("SPF")


@pytest.mark.parametrize(
    "data", ['"v=spf1 ip4:192.0.2.0/24 -all"', '"v=spf1 -all"', "v=spf1", '"a \\"b\\" c"']
)
def test_accepts_and_renders(data):
    assert SPF.is_valid(data)
    SPF.render(data)


@pytest.mark.parametrize("data", ["v=spf1\\", 'v=spf1 -all"', '"v=spf1 -all', "x" * 300])
def test_accepts_what_designate_accepts(data):
    assert SPF.is_valid(data)


@pytest.mark.parametrize("data", ["v=spf1\\", 'v=spf1 -all"'])
def test_dnspython_cannot_render_some_accepted_values(data):
    with pytest.raises(dns.exception.DNSException):
        SPF.render(data)


@pytest.mark.parametrize(
    "data", ["v=spf1 -all", "v=spf1\t-all", '"a"b"', '"line\nbreak"', "a\nb", 99, None]
)
def test_rejects(data):
    assert not SPF.is_valid(data)
