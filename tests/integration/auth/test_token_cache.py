"""The token cache on its own: bounded, time-limited, and off when the time is not positive."""

from __future__ import annotations

import time

from openkeel_designate.api.auth.cache import TokenCache, token_key
from openkeel_designate.api.auth.identity_client import expires_at, identity_base
from openkeel_designate.api.auth.keystone import v2_catalog


def test_remembers_valid_and_invalid():
    cache = TokenCache(ttl=60, max_entries=10)
    cache.put("a", {"user": {}})
    cache.put("b", None)
    assert cache.get("a") == (True, {"user": {}})
    assert cache.get("b") == (True, None)
    assert cache.get("c") == (False, None)


def test_entries_expire():
    cache = TokenCache(ttl=0.05, max_entries=10)
    cache.put("a", None)
    time.sleep(0.06)
    assert cache.get("a") == (False, None)
    assert len(cache) == 0


def test_a_token_expiring_sooner_is_kept_shorter():
    cache = TokenCache(ttl=60, max_entries=10)
    cache.put("a", {}, ttl=0.01)
    time.sleep(0.02)
    assert cache.get("a") == (False, None)


def test_bounded():
    cache = TokenCache(ttl=60, max_entries=3)
    for key in "abcde":
        cache.put(key, None)
    assert len(cache) == 3
    assert cache.get("a")[0] is False and cache.get("e")[0] is True


def test_disabled():
    cache = TokenCache(ttl=-1, max_entries=3)
    cache.put("a", None)
    assert cache.get("a") == (False, None)


def test_keys_are_digests():
    assert token_key("secret") != "secret" and len(token_key("secret")) == 64


def test_helpers():
    assert identity_base("http://ks:5000/v3/") == "http://ks:5000"
    assert identity_base("http://ks:5000") == "http://ks:5000"
    assert expires_at({"expires_at": "1970-01-01T00:01:00.000000Z"}) == 60.0
    assert expires_at({}) is None
    catalog = [{"type": "network", "name": "neutron", "endpoints": [
        {"interface": "public", "region_id": "R1", "url": "http://n:9696"},
        {"interface": "internal", "region_id": "R1", "url": "http://i:9696"}]}]
    assert v2_catalog(catalog) == [{"type": "network", "name": "neutron", "endpoints": [
        {"region": "R1", "publicURL": "http://n:9696", "internalURL": "http://i:9696"}]}]
