"""SSHFP (RFC 4255): ``algorithm fp_type fingerprint``.

Designate splits on single spaces into exactly three fields. Algorithm (0..4) and fingerprint
type (0..2) must be canonical integers. The fingerprint must be 10..40 or exactly 64 hex
digits, whatever the fingerprint type says (Designate does not tie the length to the type).
"""

from __future__ import annotations

import re

from openkeel_designate.domain.rrtypes.base import RecordType, canonical_int, split_exact

FINGERPRINT_RE = re.compile(r"^([0-9A-Fa-f]{10,40}|[0-9A-Fa-f]{64})\Z")


class SSHFP(RecordType):
    name = "SSHFP"
    rank = 10

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        fields = split_exact(data, 3)
        if fields is None:
            return False
        algorithm, fp_type, fingerprint = fields
        return (
            canonical_int(algorithm, 0, 4)
            and canonical_int(fp_type, 0, 2)
            and bool(FINGERPRINT_RE.match(fingerprint))
        )


TYPE = SSHFP()
