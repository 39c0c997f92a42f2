"""The signer's output, written as a zone file, passes BIND's own ``dnssec-verify``."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from openkeel_designate.domain.dnssec.sign import SignatureCache, sign_zone
from support.dnssec_zone import as_rrsets, make_keys, rrsets_of_text

pytestmark = pytest.mark.skipif(shutil.which("dnssec-verify") is None,
                                reason="BIND's dnssec-verify not installed")

ORIGIN = "signed.example."
ZONE_TEXT = """
@ 3600 IN SOA ns1.signed.example. hostmaster.signed.example. 7 3600 600 86400 300
@ 3600 IN NS ns1.signed.example.
@ 300 IN MX 10 mail.signed.example.
ns1 3600 IN A 192.0.2.1
mail 300 IN A 192.0.2.25
www 300 IN A 192.0.2.10
www 300 IN AAAA 2001:db8::10
a.b.c 300 IN TXT "deep"
*.wild 300 IN A 192.0.2.77
sub 3600 IN NS ns.sub.signed.example.
ns.sub 3600 IN A 192.0.2.53
secure 3600 IN NS ns.other.net.
secure 3600 IN DS 12345 13 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
"""


def write_signed(path, algorithm: str, nsec3: bool) -> None:
    rrsets = rrsets_of_text(ZONE_TEXT, ORIGIN)
    signed = sign_zone(ORIGIN, rrsets, make_keys(algorithm), nsec3, SignatureCache(),
                       int(time.time()))
    path.write_text("".join(r.to_text() + "\n" for r in as_rrsets(rrsets, signed.records)))


@pytest.mark.parametrize("algorithm", ["ECDSAP256SHA256", "ED25519"])
@pytest.mark.parametrize("nsec3", [False, True], ids=["nsec", "nsec3"])
def test_dnssec_verify_accepts_the_signed_zone(tmp_path, algorithm, nsec3):
    path = tmp_path / "signed.zone"
    write_signed(path, algorithm, nsec3)
    result = subprocess.run(["dnssec-verify", "-o", "signed.example.", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Zone fully signed" in result.stdout + result.stderr
