"""SSHFP: corpus verdicts (rr-sshfp) and records.md (canonical ints, fingerprint lengths)."""

import pytest

from openkeel_designate.domain import rrtypes

SSHFP = rrtypes.get("SSHFP")

SHA1 = "0123456789abcdef0123456789abcdef01234567"
SHA256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize("data", [f"1 1 {SHA1}", f"4 2 {SHA256}", f"0 0 {SHA1.upper()}"])
def test_accepts_and_renders(data):
    assert SSHFP.is_valid(data)
    SSHFP.render(data)


def test_fingerprint_length_is_not_tied_to_its_type():
    assert SSHFP.is_valid(f"1 2 {SHA1}")
    assert SSHFP.is_valid("1 1 0123456789")


@pytest.mark.parametrize(
    "data",
    [
        f"9 1 {SHA1}", f"1 7 {SHA1}", "1 1 zzzz", "1 1", f"01 1 {SHA1}", f"+1 1 {SHA1}",
        f"5 1 {SHA1}", f"1 3 {SHA1}", "1 1 012345678", f"1 1 {SHA1}0", f"1 1 {SHA256}00",
        f"1  1 {SHA1}", f"1 1 {SHA1} ", None,
    ],
)
def test_rejects(data):
    assert not SSHFP.is_valid(data)
