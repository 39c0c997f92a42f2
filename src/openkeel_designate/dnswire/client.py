"""Outbound DNS operations: NOTIFY, SOA polling and inbound zone transfer (``inbound``).

The worker and the built-in nameserver talk to DNS servers only through these functions.  Each has
a timeout and never raises on a DNS-level answer (an rcode is data, not an error); only "no
answer at all" raises, as ``DnsTimeout`` (an ``OSError``, like the socket errors that mean the same
thing to a caller: the peer is unreachable, try again later).
"""

from __future__ import annotations

import asyncio
import enum
import secrets
import socket
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

from openkeel_designate.dnswire import inbound, soa_wire


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


async def _soa_exchange(name: dns.name.Name, host: str, port: int, timeout: float,
                        notify: bool) -> soa_wire.Answer | None:
    """A SOA poll or an unsigned NOTIFY over UDP, written and read by ``soa_wire``; None when
    the answer is truncated (the caller asks again over TCP).

    On a socket of its own, watched by the loop, instead of the datagram transport
    ``dns.asyncquery`` builds for each query (bench/README.md, "SOA polls and NOTIFYs by
    hand"); a new one per query keeps the source port random, and the query id comes from the
    system's random source, as dnspython's does. As dnspython's, the socket is not
    connected: a datagram from another address is passed by, as is one that answers another
    question, and an ICMP unreachable is not seen, so a closed port times out as before (a
    worker polling a stopped server is paced by the timeout, not by fast failures)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server = (socket.inet_ntop(family, socket.inet_pton(family, host)), port)
    asked = soa_wire.question(name, secrets.randbits(16), notify=notify)
    loop = asyncio.get_running_loop()
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.setblocking(False)
        got: asyncio.Future[soa_wire.Answer] = loop.create_future()

        def readable() -> None:
            while not got.done():
                try:
                    data, sender = sock.recvfrom(65535)
                    found = soa_wire.answer(data, asked) if sender[:2] == server else None
                except BlockingIOError:
                    return
                except (OSError, dns.exception.FormError) as exc:
                    got.set_exception(exc)
                    return
                if found is not None:
                    got.set_result(found)

        def too_late() -> None:
            if not got.done():
                got.set_exception(DnsTimeout(f"no answer from {host}:{port} within {timeout}s"))

        loop.add_reader(sock.fileno(), readable)
        timer = loop.call_later(timeout, too_late)  # not wait_for: a task per query
        try:
            sock.sendto(asked, server)
            found = await got
        finally:
            timer.cancel()
            loop.remove_reader(sock.fileno())
    return None if found.flags & dns.flags.TC else found


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
    if not tcp and keyring is None:
        found = await _soa_exchange(_name(zone_name), host, port, timeout, notify=True)
        if found is not None:
            return found.rcode
        tcp = True  # the answer was truncated
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
    try:
        if not tcp:
            found = await _soa_exchange(name, host, port, timeout, notify=False)
            if found is not None:
                return _classified(found.rcode, found.flags, found.serial)
        message = dns.message.make_query(name, dns.rdatatype.SOA, dns.rdataclass.IN)
        message.flags = 0
        response = await _exchange(message, host, port, timeout, True)
    except (OSError, dns.exception.DNSException):
        return SoaResult(SoaStatus.ERROR)
    soa = response.get_rrset(response.answer, name, dns.rdataclass.IN, dns.rdatatype.SOA)
    return _classified(response.rcode(), response.flags, soa[0].serial if soa else None)


def _classified(rcode: int, flags: int, serial: int | None) -> SoaResult:
    """What an answer to a SOA poll means to the worker (``query_soa``)."""
    if rcode in _NO_ZONE_RCODES:
        return SoaResult(SoaStatus.NO_ZONE, rcode=dns.rcode.Rcode(rcode))
    if rcode != dns.rcode.NOERROR:
        return SoaResult(SoaStatus.ERROR, rcode=dns.rcode.Rcode(rcode))
    if not flags & dns.flags.AA:
        status = SoaStatus.NO_ZONE if flags & dns.flags.RA else SoaStatus.ERROR
        return SoaResult(status, rcode=dns.rcode.Rcode(rcode))
    if serial is None:
        return SoaResult(SoaStatus.NO_ZONE, rcode=dns.rcode.Rcode(rcode))
    return SoaResult(SoaStatus.SUCCESS, serial=serial, rcode=dns.rcode.Rcode(rcode))


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
