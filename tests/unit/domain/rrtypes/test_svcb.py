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


# The DoH discovery rule (RFC 9461 §5) as the reference Designate 23.0.0 answers it: each
# refused record below is a 400 format error there, each accepted one a 202.
@pytest.mark.parametrize(("name", "data"), [
    ("_dns.resolver.example.org.", "1 doh.example.org. alpn=h2"),
    ("_dns.resolver.example.org.", "1 doh.example.org. alpn=h3,h2c"),
    ("_dns.resolver.example.org.", "1 dot.example.org. port=853"),  # no alpn at all
    ("r3._dns.example.org.", "1 doh.example.org. alpn=h2"),
    (None, DOH),  # a recordset without a name: Designate looks for _dns in None
])
def test_dns_names_refuse_records_without_the_doh_parameters(name, data):
    assert SVCB.is_valid(data)
    assert not SVCB.is_valid_in(name, data)


@pytest.mark.parametrize(("name", "data"), [
    ("_dns.resolver.example.org.", DOH),
    ("_dns.resolver.example.org.", "1 doh.example.org. alpn=http/1.1"),
    ("_DNS.resolver.example.org.", "1 doh.example.org. alpn=h2"),  # compared case-sensitively
    ("svc.example.org.", "1 doh.example.org. alpn=h2"),
])
def test_other_names_and_complete_records_pass(name, data):
    assert SVCB.is_valid_in(name, data)


def test_an_invalid_record_stays_invalid_under_any_name():
    assert not SVCB.is_valid_in("svc.example.org.", "1 . alpn=h2")


def test_https_records_are_not_held_to_the_doh_rule():
    https = rrtypes.get("HTTPS")
    assert https.is_valid_in("_dns.resolver.example.org.", "1 doh.example.org. alpn=h2")
    assert https.is_valid_in(None, "1 doh.example.org. alpn=h2")
