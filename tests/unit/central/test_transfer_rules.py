"""Transfer request keys (no database)."""

from __future__ import annotations

from openkeel_designate.central import transfers


def test_new_key_is_a_fresh_secret_of_the_designate_shape():
    keys = {transfers.new_key() for _ in range(50)}
    assert len(keys) == 50
    assert {len(k) for k in keys} == {8}
    assert all(k.isalnum() and k.upper() == k for k in keys)
