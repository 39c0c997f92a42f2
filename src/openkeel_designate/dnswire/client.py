"""Outbound DNS operations: NOTIFY, SOA polling and inbound zone transfer (``inbound``).

The worker and the built-in nameserver talk to DNS servers only through these functions.  Each has
a timeout and never raises on a DNS-level answer (an rcode is data, not an error); only "no
answer at all" raises, as ``DnsTimeout`` (an ``OSError``, like the socket errors that mean the same
thing to a caller: the peer is unreachable, try again later).
"""

from __future__ import annotations

import asyncio
import enum
from dataclasses import dataclass
from typing import Any

import dns.asyncquery
import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.zone

from openkeel_designate.dnswire import inbound


class DnsTimeout(TimeoutError):
    """The server did not answer in time (``TimeoutError`` is an ``OSError``)."""


class DnsTransferError(OSError):
    """A zone transfer failed: refused, malformed or cut short."""


class SoaStatus(str, enum.Enum):
    SUCCESS = "SUCCESS"
    NO_ZONE = "NO_ZONE"
    ERROR = "ERROR"


@dataclass(frozen=True, slots=True)
class SoaResult:
    """The outcome of one SOA poll; ``serial`` is 0 unless ``status`` is SUCCESS."""

    status: SoaStatus
    serial: int = 0
    rcode: int | None = None


# Designate treats these rcodes as "the server does not have the zone".
_NO_ZONE_RCODES = frozenset(
    {dns.rcode.NXDOMAIN, dns.rcode.REFUSED, dns.rcode.SERVFAIL, dns.rcode.NOTAUTH}
)


def _name(zone_name: str | dns.name.Name) -> dns.name.Name:
    return zone_name if isinstance(zone_name, dns.name.Name) else dns.name.from_text(zone_name)


async def _exchange(
    message: dns.message.Message, host: str, port: int, timeout: float, tcp: bool
) -> dns.message.Message:
    """Send one message and wait for its answer; UDP falls back to TCP on truncation."""
    try:
        if tcp:
            return await dns.asyncquery.tcp(message, host, timeout=timeout, port=port)
        response, _ = await dns.asyncquery.udp_with_fallback(
            message, host, timeout=timeout, port=port
        )
        return response
    except dns.exception.Timeout as exc:
        raise DnsTimeout(f"no answer from {host}:{port} within {timeout}s") from exc


async def send_notify(
    zone_name: str | dns.name.Name,
    host: str,
    port: int,
    *,
    timeout: float = 10.0,
    tcp: bool = False,
    keyring: Any = None,
    keyname: dns.name.Name | str | None = None,
) -> int:
    """NOTIFY ``host:port`` that ``zone_name`` changed, as Designate does (AA, question SOA).

    Returns the rcode of the answer; raises ``DnsTimeout`` when none arrives.
    """
    message = dns.message.make_query(_name(zone_name), dns.rdatatype.SOA, dns.rdataclass.IN)
    message.flags = dns.flags.AA  # before set_opcode: the opcode lives in the flags word
    message.set_opcode(dns.opcode.NOTIFY)
    if keyring is not None:
        message.use_tsig(keyring, keyname=keyname)
    response = await _exchange(message, host, port, timeout, tcp)
    return response.rcode()


async def query_soa(
    zone_name: str | dns.name.Name,
    host: str,
    port: int,
    *,
    timeout: float = 10.0,
    tcp: bool = False,
) -> SoaResult:
    """Ask a server for the zone's SOA serial, classifying the answer the way the worker needs.

    A recursive (RA, not AA) answer means the server resolved the name elsewhere, so the zone
    is not served there: NO_ZONE, not ERROR (Designate's 2026.2 fix).  Never raises.
    """
    name = _name(zone_name)
    message = dns.message.make_query(name, dns.rdatatype.SOA, dns.rdataclass.IN)
    message.flags = 0
    try:
        response = await _exchange(message, host, port, timeout, tcp)
    except (OSError, dns.exception.DNSException):
        return SoaResult(SoaStatus.ERROR)
    rcode = response.rcode()
    if rcode in _NO_ZONE_RCODES:
        return SoaResult(SoaStatus.NO_ZONE, rcode=rcode)
    if rcode != dns.rcode.NOERROR:
        return SoaResult(SoaStatus.ERROR, rcode=rcode)
    if not response.flags & dns.flags.AA:
        status = SoaStatus.NO_ZONE if response.flags & dns.flags.RA else SoaStatus.ERROR
        return SoaResult(status, rcode=rcode)
    soa = response.get_rrset(
        response.answer, name, dns.rdataclass.IN, dns.rdatatype.SOA
    )
    if not soa:
        return SoaResult(SoaStatus.NO_ZONE, rcode=rcode)
    return SoaResult(SoaStatus.SUCCESS, serial=soa[0].serial, rcode=rcode)


async def axfr(
    zone_name: str | dns.name.Name,
    host: str,
    port: int,
    *,
    timeout: float = 10.0,
    first_timeout: float | None = None,
    lifetime: float | None = None,
) -> dns.zone.Zone:
    """Transfer the whole zone from ``host:port`` over TCP into a fresh ``dns.zone.Zone``
    (absolute owner names: ``relativize=False``), parsed in slices of the event loop
    (``inbound``).

    ``timeout`` bounds the wait for each message, ``first_timeout`` (default ``timeout``) the
    wait for the first (the master renders, and maybe signs, the zone before it),
    ``lifetime`` (default 10 × the larger of the two) the whole transfer.  A refusal, a bad stream or a timeout raises (``DnsTimeout`` /
    ``DnsTransferError``), so the caller keeps serving what it had.
    """
    origin = _name(zone_name)
    return await _transfer(origin, host, port, timeout, first_timeout, lifetime, None,
                           f"transfer of {origin} from {host}:{port}")


async def ixfr(
    zone: dns.zone.Zone,
    host: str,
    port: int,
    *,
    timeout: float = 10.0,
    first_timeout: float | None = None,
    lifetime: float | None = None,
) -> dns.zone.Zone:
    """``zone`` brought up to the master's serial by IXFR (RFC 1995) from its own SOA serial,
    as a new zone object: ``zone`` itself is never changed (it may be the one being served),
    so the caller swaps the result in whole.  A master answering AXFR-style replaces the
    content.  A difference that does not apply exactly (deleting what is not there) raises
    ``DnsTransferError`` — the caller then transfers the zone whole.
    """
    return await _transfer(zone.origin, host, port, timeout, first_timeout, lifetime, zone,
                           f"IXFR of {zone.origin} from {host}:{port}")


async def _transfer(origin: dns.name.Name, host: str, port: int, timeout: float,
                    first_timeout: float | None, lifetime: float | None,
                    base: dns.zone.Zone | None, where: str) -> dns.zone.Zone:
    if lifetime is None:
        lifetime = max(timeout, first_timeout or 0) * 10
    try:
        return await asyncio.wait_for(
            inbound.transfer(origin, host, port, timeout, base, first_timeout), lifetime)
    except TimeoutError as exc:
        raise DnsTimeout(f"{where} timed out") from exc
    except (dns.exception.DNSException, EOFError, ValueError) as exc:
        raise DnsTransferError(f"{where}: {exc!r}") from exc
