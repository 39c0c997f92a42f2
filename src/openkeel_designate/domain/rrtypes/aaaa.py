"""AAAA (RFC 3596): an IPv6 address, parsed as strictly as Designate's netaddr check.

Designate hands the string to netaddr and requires an IPv6 result: no surrounding spaces, no
zone index (``fe80::1%eth0``), no prefix length and no bare IPv4 address. dnspython's parser
agrees with netaddr on all of these (Python's ``ipaddress`` would accept a zone index), so it
is the one used here.
"""

from __future__ import annotations

import dns.exception
import dns.ipv6

from openkeel_designate.domain.rrtypes.base import RecordType


class AAAA(RecordType):
    name = "AAAA"
    rank = 2

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        try:
            dns.ipv6.inet_aton(data)
        except (ValueError, dns.exception.SyntaxError):
            return False
        return True


TYPE = AAAA()
