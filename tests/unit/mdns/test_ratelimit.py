"""The per-client token bucket of the UDP listeners (``mdns/ratelimit.py``), on a fake clock."""

from __future__ import annotations

import ipaddress

import pytest

from openkeel_designate.dnswire.addresses import host_networks, networks
from openkeel_designate.mdns.ratelimit import SourceRateLimiter, burst_for, client_of


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def answered(limiter: SourceRateLimiter, address: str, count: int) -> int:
    return sum(limiter.allow(address) for _ in range(count))


def test_a_client_gets_its_burst_then_its_rate() -> None:
    clock = Clock()
    limiter = SourceRateLimiter(10, burst=5, clock=clock)
    assert answered(limiter, "192.0.2.1", 50) == 5
    clock.now += 1.0
    assert answered(limiter, "192.0.2.1", 50) == 5  # 10 earned, capped at the burst
    clock.now += 0.25
    assert answered(limiter, "192.0.2.1", 50) == 2  # 2.5 earned: half a query waits


def test_the_burst_defaults_to_one_second_of_the_rate() -> None:
    clock = Clock()
    limiter = SourceRateLimiter(20, clock=clock)
    assert answered(limiter, "192.0.2.1", 100) == 20


def test_one_flooding_client_does_not_limit_another() -> None:
    clock = Clock()
    limiter = SourceRateLimiter(10, clock=clock)
    assert answered(limiter, "192.0.2.1", 1000) == 10
    assert answered(limiter, "192.0.2.2", 10) == 10


def test_exempt_networks_are_never_limited() -> None:
    limiter = SourceRateLimiter(1, exempt=networks(["192.0.2.0/24", "2001:db8::53"], "x"),
                                clock=Clock())
    assert answered(limiter, "192.0.2.77", 500) == 500
    assert answered(limiter, "::ffff:192.0.2.77", 500) == 500  # as a dual-stack socket says
    assert answered(limiter, "2001:db8::53", 500) == 500
    # Another host of the exempt address's /64 is a client like any other.
    assert answered(limiter, "2001:db8::54", 500) == 1
    assert answered(limiter, "198.51.100.1", 500) == 1


def test_exemptions_can_change() -> None:
    limiter = SourceRateLimiter(1, clock=Clock())
    assert answered(limiter, "192.0.2.1", 5) == 1
    limiter.set_exempt(host_networks(["192.0.2.1"]))
    assert answered(limiter, "192.0.2.1", 5) == 5
    limiter.set_exempt([])
    assert answered(limiter, "192.0.2.1", 5) == 0  # its bucket is still empty


def test_ipv6_clients_are_their_64() -> None:
    assert client_of("2001:db8:1:2:aaaa::1") == client_of("2001:db8:1:2:bbbb::2") == \
        "2001:db8:1:2::/64"
    assert client_of("2001:db8:1:3::1") != client_of("2001:db8:1:2::1")
    assert client_of("::ffff:198.51.100.7") == "198.51.100.7"
    assert client_of("198.51.100.7") == "198.51.100.7"
    limiter = SourceRateLimiter(5, clock=Clock())
    spread = sum(limiter.allow(f"2001:db8:1:2::{i:x}") for i in range(1, 200))
    assert spread == 5


def test_the_table_of_clients_is_bounded() -> None:
    limiter = SourceRateLimiter(1, max_clients=100, clock=Clock())
    for i in range(10_000):
        limiter.allow(str(ipaddress.IPv4Address(0x0A000000 + i)))
    assert len(limiter._buckets) <= 100 and len(limiter._verdicts) <= 100


def test_a_burst_never_takes_more_than_a_quarter_of_the_in_flight_bound() -> None:
    assert burst_for(20, 100) == 20
    assert burst_for(1000, 100) == 25
    assert burst_for(5, 2) == 1


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ValueError, match="udp_rate_limit_exempt: 'nope'"):
        networks(["nope"], "[service:mdns] udp_rate_limit_exempt")
    with pytest.raises(ValueError):
        SourceRateLimiter(0)


def test_host_networks_skip_names_and_read_wildcards_as_loopback() -> None:
    assert [str(n) for n in host_networks(["192.0.2.1", "ns1.example.net", "0.0.0.0", "::"])
            ] == ["192.0.2.1/32", "127.0.0.1/32", "::1/128"]
