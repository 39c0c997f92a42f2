"""CERT (RFC 4398): ``type key_tag algorithm certificate``.

Designate splits on the first three spaces. The type is one of its mnemonics (``PKIX`` ...
``DPTR``, upper case only) or a plain number 0..65535; the key tag is read with ``int()``
within 0..65535; the algorithm is one of its DNSSEC mnemonics (``RSASHA256``,
``DSA-NSEC3-SHA1`` ...) or a plain number 0..255. The certificate may be split by spaces, holds
no line feed, and must be accepted by Python's lenient base64 decoder once spaces are removed.

dnspython knows neither ``DPKIX``/``DPTR`` nor the hyphenated algorithm names, so the rdata is
built from the parsed fields with the IANA numbers.
"""

from __future__ import annotations

import base64
import binascii
import re

import dns.rdata
import dns.rdataclass
import dns.rdtypes.ANY.CERT

from openkeel_designate.domain.rrtypes.base import RecordType, loose_int

CERT_TYPES = {
    "PKIX": 1, "SPKI": 2, "PGP": 3, "IPKIX": 4, "ISPKI": 5, "IPGP": 6, "ACPKIX": 7,
    "IACPKIX": 8, "DPKIX": 9, "DPTR": 10, "URI": 253, "OID": 254,
}
CERT_ALGORITHMS = {
    "RSAMD5": 1, "DSA": 3, "RSASHA1": 5, "DSA-NSEC3-SHA1": 6, "RSASHA1-NSEC3-SHA1": 7,
    "RSASHA256": 8, "RSASHA512": 10, "ECC-GOST": 12, "ECDSAP256SHA256": 13,
    "ECDSAP384SHA384": 14, "ED25519": 15, "ED448": 16,
}
_DIGITS_RE = re.compile(r"^[0-9]+\Z")


def _code(value: str, mnemonics: dict[str, int], high: int) -> int | None:
    """The number a type/algorithm field stands for, or None when Designate refuses it."""
    if value in mnemonics:
        return mnemonics[value]
    if not _DIGITS_RE.match(value) or not loose_int(value, 0, high):
        return None
    return int(value)


def _certificate(value: str) -> bytes | None:
    if "\n" in value:
        return None
    try:
        return base64.b64decode(value.replace(" ", "").encode())
    except (binascii.Error, ValueError):
        return None


def _parse(data: str) -> tuple[int, int, int, bytes] | None:
    fields = data.split(" ", 3)
    if len(fields) != 4:
        return None
    cert_type, key_tag, algorithm, certificate = fields
    type_code = _code(cert_type, CERT_TYPES, 65535)
    algorithm_code = _code(algorithm, CERT_ALGORITHMS, 255)
    blob = _certificate(certificate)
    if type_code is None or algorithm_code is None or blob is None:
        return None
    if not loose_int(key_tag, 0, 65535):
        return None
    return type_code, int(key_tag), algorithm_code, blob


class CERT(RecordType):
    name = "CERT"
    rank = 14

    def is_valid(self, data: str) -> bool:
        return isinstance(data, str) and _parse(data) is not None

    def render(self, data: str) -> dns.rdata.Rdata:
        parsed = _parse(data)
        if parsed is None:
            raise ValueError(f"not a CERT record: {data!r}")
        return dns.rdtypes.ANY.CERT.CERT(dns.rdataclass.IN, self.rdatatype(), *parsed)


TYPE = CERT()
