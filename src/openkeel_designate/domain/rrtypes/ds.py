"""DS (RFC 4034 §5): ``key_tag algorithm digest_type digest`` — an extension, opt-in.

Designate 23.0.0 has no DS type, so a signed parent could not vouch for a signed child: the
operator adds ``DS`` to ``[DEFAULT] supported_record_type`` to allow it (``opt_in``: left out
of the default list, and while unlisted refused exactly as an unknown type is).

The record is what ``GET /v2/zones/{id}/dnssec`` lists in ``ds``: three numbers and the digest
in hex, split on any whitespace (the digest may be split too, as zone files write long ones).
The key tag is 0..65535; algorithm and digest type 1..255 (0 is reserved; only the RFC 8078
delete CDS uses it, never a DS). The digest's length is tied to the digest types that fix one
(SHA-1 40 hex digits, SHA-256 and GOST 64, SHA-384 96); others need an even, non-empty length.

A DS recordset lives at a delegation point only — a name below the apex holding NS records
(``delegation_only``): the recordset service places it; the signer then signs it as the parent's
data while the NS beside it stays unsigned (RFC 4035 §2.2).

Rendering is dnspython's DS parser (the base rule): it reads every form accepted here, and also
the DS records a secondary zone's transfer brings, which need not follow the API's rules.
"""

from __future__ import annotations

import binascii
from typing import ClassVar

from openkeel_designate.domain.rrtypes.base import DOMAIN_RE, RecordType, canonical_int

DIGEST_LENGTHS = {1: 40, 2: 64, 3: 64, 4: 96}  # hex digits per fixed-size digest type


def _well_formed(data: str) -> bool:
    tokens = data.split()
    if len(tokens) < 4:
        return False
    key_tag, algorithm, digest_type = tokens[:3]
    digest = "".join(tokens[3:])
    if not (canonical_int(key_tag, 0, 65535) and canonical_int(algorithm, 1, 255)
            and canonical_int(digest_type, 1, 255)):
        return False
    expected = DIGEST_LENGTHS.get(int(digest_type))
    if len(digest) % 2 or (expected is not None and len(digest) != expected):
        return False
    try:
        binascii.unhexlify(digest)
    except (binascii.Error, ValueError):
        return False
    return True


class DS(RecordType):
    name = "DS"
    rank = 18
    opt_in: ClassVar[bool] = True
    delegation_only: ClassVar[bool] = True
    zone_cut: ClassVar[bool] = True

    def is_valid(self, data: str) -> bool:
        return isinstance(data, str) and _well_formed(data)

    def is_valid_name(self, name: str) -> bool:
        """A delegation point's name: no wildcard (RFC 4592 §4.6)."""
        return isinstance(name, str) and bool(DOMAIN_RE.match(name))


TYPE = DS()
