"""A (RFC 1035): an IPv4 address, as strict as Designate (dnspython and a dotted-quad check)."""

from __future__ import annotations

import ipaddress

import dns.exception
import dns.ipv4

from openkeel_designate.domain.rrtypes.base import RecordType


class A(RecordType):
    name = "A"
    rank = 1

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        try:
            dns.ipv4.inet_aton(data)
            ipaddress.IPv4Address(data)
        except (ValueError, dns.exception.SyntaxError):
            return False
        return True


TYPE = A()
