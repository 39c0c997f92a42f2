"""DS (extension, opt-in): the ``ds`` lines of ``GET /v2/zones/{id}/dnssec`` are accepted as
they are; key tag, algorithm and digest type are bounded, fixed-size digests have their length."""

import dns.rdatatype
import pytest

from openkeel_designate.domain import rrtypes

DS = rrtypes.get("DS")

SHA1 = "2bb183af5f22588179a53b0a98631fad1a292118"
SHA256 = "c9f3b1ff81a1c4ba97ae33fa2bd0b2a2b2e8e9d5e7e5f3a6f9a4a1d1f3c2b7e8"
SHA384 = "ab" * 48


@pytest.mark.parametrize("data", [
    f"60485 5 1 {SHA1}", f"12345 13 2 {SHA256}", f"0 15 4 {SHA384}", f"65535 8 2 {SHA256.upper()}",
    f"1 13 2 {SHA256[:32]} {SHA256[32:]}",  # a zone file may split the digest
    "7 13 6 abcd",  # a digest type that fixes no length: even and non-empty
])
def test_accepts_and_renders(data):
    assert DS.is_valid(data)
    rdata = DS.render(data)
    assert rdata.rdtype == dns.rdatatype.DS
    assert rdata.key_tag == int(data.split()[0])


@pytest.mark.parametrize("data", [
    f"65536 13 2 {SHA256}", f"-1 13 2 {SHA256}", f"012 13 2 {SHA256}", f"+1 13 2 {SHA256}",
    f"1 0 2 {SHA256}", f"1 256 2 {SHA256}", f"1 ECDSAP256SHA256 2 {SHA256}",
    f"1 13 0 {SHA256}", f"1 13 256 {SHA256}",
    f"1 13 1 {SHA256}", f"1 13 2 {SHA1}", f"1 13 4 {SHA256}", f"1 13 2 {SHA256}00",
    "1 13 6 abc", f"1 13 2 {'zz' * 32}", "1 13 2", "", None, 12345,
])
def test_rejects(data):
    assert not DS.is_valid(data)


def test_a_ds_recordset_is_no_wildcard():
    assert DS.is_valid_name("child.example.org.")
    assert not DS.is_valid_name("*.example.org.")


def test_transferred_forms_the_api_refuses_still_render():
    """A secondary zone's DS comes as its primary wrote it: served, not judged."""
    assert not DS.is_valid(f"1 RSASHA256 2 {SHA256}")
    assert DS.render(f"1 RSASHA256 2 {SHA256}").algorithm == 8
    with pytest.raises(Exception):
        DS.render("1 13 2 00")  # nothing dnspython itself refuses is served
