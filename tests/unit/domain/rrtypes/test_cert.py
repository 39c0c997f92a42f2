"""CERT: corpus verdicts (rr-cert) and records.md (mnemonics, ranges, lenient base64)."""

import pytest

from openkeel_designate.domain import rrtypes

CERT = rrtypes.get("CERT")


@pytest.mark.parametrize(
    "data",
    [
        "PKIX 1 RSASHA256 MIIBIjANBgkqhkiG9w0BAQEFAAOC", "1 2 8 MIIBIjANBgkqhkiG9w0BAQEFAAOD",
        "DPKIX 65535 DSA-NSEC3-SHA1 MIIB", "DPTR 0 ECC-GOST MIIB", "65535 1 255 MIIB",
        "PGP 1 ED448 MIIB IjAN", "URI 1 RSASHA1-NSEC3-SHA1 MIIBIjANBg==",
    ],
)
def test_accepts_and_renders(data):
    assert CERT.is_valid(data)
    CERT.render(data)


def test_render_maps_designate_mnemonics_to_numbers():
    rdata = CERT.render("DPKIX 7 DSA-NSEC3-SHA1 MIIB IjAN")
    assert (rdata.certificate_type, rdata.key_tag, rdata.algorithm) == (9, 7, 6)
    assert rdata.certificate == bytes.fromhex("3082012230 0d".replace(" ", ""))


@pytest.mark.parametrize(
    "data",
    [
        "pkix 1 RSASHA256 MIIBIjANBg", "PKIX 1 rsa MIIBIjANBg", "PKIX 70000 8 MIIBIjANBg",
        "PKIX 1 8 !!!notbase64!!!", "PKIX 1 256 MIIB", "65536 1 8 MIIB", "+1 1 8 MIIB",
        "PKIX 1 +8 MIIB", "XYZ 1 8 MIIB", "PKIX 1 8 MIIB\nIjAN", "PKIX 1 8", "PKIX 1 8 MIIBI",
        None,
    ],
)
def test_rejects(data):
    assert not CERT.is_valid(data)
