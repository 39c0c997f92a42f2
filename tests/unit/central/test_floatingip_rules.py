"""Central's floating IP rules, pure: the URL key and the reverse names (no database)."""

from __future__ import annotations

import pytest

from openkeel_designate.central.floatingips import parse_key, reverse_names
from openkeel_designate.domain import errors

FIP_ID = "c5ba6a5e-8b2a-4a0b-a7e5-0d1f3ab1c2d3"


def test_parse_key_splits_region_and_id():
    assert parse_key(f"RegionOne:{FIP_ID}") == ("RegionOne", FIP_ID)


def test_parse_key_refuses_a_key_without_region():
    with pytest.raises(errors.BadRequest, match="<region>:<uuid>") as caught:
        parse_key(FIP_ID)
    assert caught.value.type == "bad_request"


def test_reverse_names_put_one_ptr_per_address_in_the_slash_24_zone():
    assert reverse_names("192.0.2.17") == ("17.2.0.192.in-addr.arpa.", "2.0.192.in-addr.arpa.")


def test_reverse_names_refuse_ipv6():
    with pytest.raises(errors.BadRequest, match="only supported for IPv4"):
        reverse_names("2001:db8::1")
