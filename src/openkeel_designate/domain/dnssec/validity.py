"""When signatures are valid, and which record types signing makes: the part of signing that
the serving process needs.

mdns decides in its own process which epoch a zone is signed with and which records are left to
the signer; the signing itself (``sign.py``, with ``cryptography`` behind ``dns.dnssec``, about
10 MB resident) runs in offload workers only, so these live apart from it.
"""

from __future__ import annotations

import dns.rdatatype

VALIDITY = 14 * 86400  # seconds a signature is valid, from its epoch
BACKDATE = 3600  # inception this far before the epoch: validators with a slow clock accept
MAX_EPOCH_AGE = VALIDITY // 2  # an older epoch (no refresh came) is not used: see signing_epoch
EPOCH_STEP = 86400  # the fallback epoch is the start of the current UTC day
DNSSEC_TYPES = frozenset({dns.rdatatype.DNSKEY, dns.rdatatype.RRSIG, dns.rdatatype.NSEC,
                          dns.rdatatype.NSEC3, dns.rdatatype.NSEC3PARAM, dns.rdatatype.CDS,
                          dns.rdatatype.CDNSKEY})


def signing_epoch(stored: int | None, now: int) -> int:
    """The epoch to sign with: the zone's stored one while it leaves at least half the
    validity; otherwise (none yet, or the producer's refresh has not run for a week) the start
    of the current UTC day, so signatures never lapse and processes still agree within a day."""
    if stored is not None and now - stored <= MAX_EPOCH_AGE:
        return stored
    return now - now % EPOCH_STEP
