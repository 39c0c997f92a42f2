"""HTTPS: corpus verdicts (rr-https) and records.md (SVCB parameters without dohpath)."""

import pytest
import dns.exception

from openkeel_designate.domain import rrtypes

HTTPS = rrtypes.get("HTTPS")


@pytest.mark.parametrize(
    "data",
    [
        "1 www.example.org. alpn=h2,h3 ipv4hint=192.0.2.1",
        "1 cdn.example.org. alpn=h2",
        "0 www.example.org.",
        "1 www.example.org. alpn=h2 no-default-alpn mandatory=alpn",
        "1 www.example.org. port=443 ipv6hint=2001:db8::1,2001:db8::2",
        "2 www.example.org. alpn=http/1.1,h2c ipv4hint=192.0.2.1,192.0.2.2",
    ],
)
def test_accepts_and_renders(data):
    assert HTTPS.is_valid(data)
    HTTPS.render(data)


@pytest.mark.parametrize(
    "data",
    [
        "1 www.example.org. ech=AAAA",
        "1 www.example.org. ech=AA==",
        "1 www.example.org. ech=",
        "1 www.example.org. alpn=h2 alpn=h3",
        "1 www.example.org. foo=a=b",
        "+1 www.example.org. alpn=h2",
    ],
)
def test_accepts_designate_quirks(data):
    assert HTTPS.is_valid(data)


def test_ech_is_only_base64_checked_so_dnspython_may_refuse_it():
    assert HTTPS.is_valid("1 www.example.org. ech=AAAA")
    with pytest.raises(dns.exception.DNSException):
        HTTPS.render("1 www.example.org. ech=AAAA")


@pytest.mark.parametrize(
    "data",
    [
        "1 . ipv4hint=999.0.0.1",
        "1 www.example.org. alpn",
        "1 . alpn=h2",
        "1 www.example.org. dohpath=/dns-query{?dns}",
        "1 www.example.org. alpn=h4",
        "1 www.example.org. alpn=",
        "1 www.example.org. no-default-alpn",
        "1 www.example.org. mandatory=port alpn=h2",
        "1 www.example.org. port=https",
        "1 www.example.org. port=123456",
        "1 www.example.org. ipv6hint=192.0.2.1",
        "1 www.example.org. ech=A\\AA",
        "1 www.example.org. ech=AAA",
        "1 www.example.org. key65000=x",
        "1 www.example.org.  alpn=h2",
        "1 www.example.org. alpn=h2 ",
        "70000 www.example.org. alpn=h2",
        "1 www.example.org",
        "1",
        None,
    ],
)
def test_rejects(data):
    assert not HTTPS.is_valid(data)
