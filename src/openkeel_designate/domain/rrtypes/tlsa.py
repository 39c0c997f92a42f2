"""TLSA (RFC 6698): ``usage selector matching_type certificate``.

Designate removes every parenthesis, splits on any whitespace and joins all tokens after the
third into the certificate data, so zone-file style ``3 1 1 ( ab.. cd.. )`` is accepted.
Usage, selector and matching type are read with ``int()`` within 0..255; the certificate must
be hex of even length, exactly 64 digits for matching type 1 (SHA-256) and 128 for type 2
(SHA-512). The rdata is built from those parsed fields, since dnspython refuses unbalanced
parentheses that Designate simply drops.

The recordset name rule is an API check with its own messages (``name_error``):
``_<port>._<protocol>.`` must open the name (RFC 6698 §3) and the port must fit in 16 bits.
"""

from __future__ import annotations

import binascii
import re

import dns.rdata
import dns.rdataclass
import dns.rdtypes.ANY.TLSA

from openkeel_designate.domain.rrtypes.base import RecordType, loose_int

TLSA_NAME_RE = re.compile(r"^_(\d{1,5})\._[a-zA-Z]+\.")
NAME_FORMAT_MESSAGE = (
    "TLSA recordset name must follow the format _port._protocol.domain "
    "(e.g. _443._tcp.example.com.) as required by RFC 6698 Section 3"
)
HASH_LENGTHS = {1: 64, 2: 128}


def _parse(data: str) -> tuple[int, int, int, bytes] | None:
    tokens = data.replace("(", "").replace(")", "").split()
    if len(tokens) < 4:
        return None
    usage, selector, matching_type = tokens[:3]
    certificate = "".join(tokens[3:])
    if not all(loose_int(number, 0, 255) for number in (usage, selector, matching_type)):
        return None
    expected = HASH_LENGTHS.get(int(matching_type))
    if len(certificate) % 2 or (expected is not None and len(certificate) != expected):
        return None
    try:
        blob = binascii.unhexlify(certificate)
    except (binascii.Error, ValueError):
        return None
    return int(usage), int(selector), int(matching_type), blob


class TLSA(RecordType):
    name = "TLSA"
    rank = 17

    def is_valid(self, data: str) -> bool:
        return isinstance(data, str) and _parse(data) is not None

    def name_error(self, name: str) -> str | None:
        """Designate's 400 message for a TLSA recordset name, or None when it is acceptable."""
        match = TLSA_NAME_RE.match(name)
        if match is None:
            return NAME_FORMAT_MESSAGE
        port = int(match.group(1))
        if port > 65535:
            return (f"TLSA recordset name contains invalid port {port}: "
                    "port must be in range 0-65535")
        return None

    def render(self, data: str) -> dns.rdata.Rdata:
        parsed = _parse(data)
        if parsed is None:
            raise ValueError(f"not a TLSA record: {data!r}")
        return dns.rdtypes.ANY.TLSA.TLSA(dns.rdataclass.IN, self.rdatatype(), *parsed)


TYPE = TLSA()
