"""SVCB: records.md (HTTPS parameters plus dohpath, the _dns / dohpath rule)."""

import pytest

from openkeel_designate.domain import rrtypes

SVCB = rrtypes.get("SVCB")

DOH = "1 doh.example.org. alpn=h2,h3 dohpath=/dns-query{?dns}"


@pytest.mark.parametrize(
    "data",
    [
        DOH, "1 dns.example.org. alpn=h2", "0 svc.example.org.",
        "1 svc.example.org. port=53 ipv4hint=192.0.2.53 mandatory=port",
        "1 svc.example.org. alpn=h3 no-default-alpn",
    ],
)
def test_accepts_and_renders(data):
    assert SVCB.is_valid(data)
    SVCB.render(data)


@pytest.mark.parametrize(
    "data",
    [
        "1 doh.example.org. dohpath=dns-query{?dns}",
        "1 doh.example.org. dohpath=/{?dn}",
        "1 doh.example.org. dohpath=/{?dns",
        "1 doh.example.org. dohpath=/dns-query",
        "1 . alpn=h2",
        "1 doh.example.org. alpn=h2 mandatory=dohpath",
        None,
    ],
)
def test_rejects(data):
    assert not SVCB.is_valid(data)


def test_dns_names_with_http2_or_3_need_a_dohpath():
    assert SVCB.requires_dohpath("_dns.resolver.example.org.", "1 doh.example.org. alpn=h2")
    assert SVCB.requires_dohpath("_dns.resolver.example.org.", "1 doh.example.org. alpn=h2c,h3")
    assert not SVCB.requires_dohpath("_dns.resolver.example.org.", DOH)
    assert not SVCB.requires_dohpath("_dns.resolver.example.org.", "1 dot.example.org. port=853")
    assert not SVCB.requires_dohpath("svc.example.org.", "1 doh.example.org. alpn=h2")


def test_https_records_are_never_asked_for_a_dohpath():
    https = rrtypes.get("HTTPS")
    assert not https.requires_dohpath("_dns.example.org.", "1 doh.example.org. alpn=h2")
