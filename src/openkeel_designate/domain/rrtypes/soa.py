"""SOA (RFC 1035): ``mname rname serial refresh retry expire minimum``.

Designate manages SOA records itself: the API can neither create, update nor delete them
(``api_writable = False``). The parser still exists because zone imports and AXFR feed SOA
strings through it: seven fields split on single spaces, both names under the zone-name rule,
serial 1..4294967295 and the four timers 0..2147483647, integers read with Python's ``int()``.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from openkeel_designate.domain.rrtypes.base import RecordType, is_domain, loose_int, split_exact

_TIMER_MAX = 2147483647


class SOA(RecordType):
    name = "SOA"
    rank = 11
    api_writable: ClassVar[bool] = False

    def is_valid(self, data: str) -> bool:
        if not isinstance(data, str):
            return False
        fields = split_exact(data, 7)
        if fields is None:
            return False
        mname, rname, serial, *timers = fields
        return (
            is_domain(mname)
            and is_domain(rname)
            and loose_int(serial, 1, 4294967295)
            and all(loose_int(timer, 0, _TIMER_MAX) for timer in timers)
        )


TYPE = SOA()


class SoaFields(Protocol):
    """The zone attributes an SOA is made of (a stored zone, or a plain record of one)."""

    email: str
    serial: int
    refresh: int
    retry: int
    expire: int
    minimum: int


def rname(email: str) -> str:
    """``host.master@example.com`` → ``host\\.master.example.com.`` (RFC 1035 mailbox)."""
    local, _, domain = email.partition("@")
    return local.replace(".", "\\.") + "." + domain.rstrip(".") + "."


def soa_data(zone: SoaFields, mname: str) -> str:
    """The SOA rdata Designate keeps for a zone: rebuilt, never edited, whenever a field changes."""
    return (f"{mname} {rname(zone.email)} {zone.serial} {zone.refresh} {zone.retry} "
            f"{zone.expire} {zone.minimum}")
