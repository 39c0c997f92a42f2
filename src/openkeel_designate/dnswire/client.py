"""Outbound DNS operations: NOTIFY, SOA polling and inbound zone transfer.

The worker and the built-in nameserver talk to DNS servers only through these functions.  Each has
a timeout and never raises on a DNS-level answer (an rcode is data, not an error); only "no
answer at all" raises, as ``DnsTimeout`` (an ``OSError``, like the socket errors that mean the same
thing to a caller: the peer is unreachable, try again later).
"""

from __future__ import annotations

import asyncio
import contextlib
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
import dns.rrset
import dns.xfr
import dns.zone


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
    lifetime: float | None = None,
) -> dns.zone.Zone:
    """Transfer the whole zone from ``host:port`` over TCP into a fresh ``dns.zone.Zone``
    (absolute owner names: ``relativize=False``).

    ``timeout`` bounds the wait for each message, ``lifetime`` (default 10 × timeout) the whole
    transfer.  A refusal, a bad stream or a timeout raises (``DnsTimeout`` /
    ``DnsTransferError``), so the caller keeps serving what it had.

    The stream is checked as dnspython's inbound transfer checks an AXFR (NOERROR, the query's
    id and question, an opening SOA for the zone, nothing after the closing SOA equal to it, out
    of zone names ignored), but the zone is built directly from each message's RRsets rather
    than through a zone transaction per RRset: for 100,000 records that took most of a minute of
    the event loop (the loop that also serves mdns, DNS and the API), now a few seconds, one
    message (~0.1 s at most) at a time.
    """
    origin = _name(zone_name)
    where = f"transfer of {origin} from {host}:{port}"
    try:
        return await asyncio.wait_for(_axfr(origin, host, port, timeout),
                                      lifetime if lifetime is not None else timeout * 10)
    except TimeoutError as exc:
        raise DnsTimeout(f"{where} timed out") from exc
    except (dns.exception.DNSException, EOFError, ValueError) as exc:
        raise DnsTransferError(f"{where}: {exc!r}") from exc


async def _axfr(origin: dns.name.Name, host: str, port: int, timeout: float) -> dns.zone.Zone:
    query = dns.message.make_query(origin, dns.rdatatype.AXFR)
    wire = query.to_wire()
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(len(wire).to_bytes(2, "big") + wire)
        zone = dns.zone.Zone(origin, relativize=False)
        nodes = zone.nodes
        opening: dns.rrset.RRset | None = None
        done = False
        while not done:
            length = int.from_bytes(await asyncio.wait_for(reader.readexactly(2), timeout), "big")
            data = await asyncio.wait_for(reader.readexactly(length), timeout)
            message = dns.message.from_wire(data, xfr=True, origin=None, multi=True)
            if message.rcode() != dns.rcode.NOERROR:
                raise dns.xfr.TransferError(message.rcode())
            if message.id != query.id:
                raise dns.exception.FormError("answer to another query")
            if message.question and (message.question[0].name != origin
                                     or message.question[0].rdtype != dns.rdatatype.AXFR):
                raise dns.exception.FormError("wrong question")
            answers = message.answer
            if opening is None:
                if not answers or answers[0].name != origin \
                        or answers[0].rdtype != dns.rdatatype.SOA:
                    raise dns.exception.FormError("first RRset is not the zone's SOA")
                opening, answers = answers[0], answers[1:]
            for rrset in answers:
                if done:
                    raise dns.exception.FormError("answers after final SOA")
                name = rrset.name
                if rrset.rdtype == dns.rdatatype.SOA and name == origin:
                    if rrset != opening:
                        raise dns.exception.FormError("unexpected origin SOA in AXFR")
                    node = nodes.get(name)
                    if node is None:
                        node = nodes[name] = zone.node_factory()
                    node.replace_rdataset(rrset.to_rdataset())
                    done = True
                    continue
                if not name.is_subdomain(origin):
                    continue  # glue outside the zone: ignored, as dnspython does
                node = nodes.get(name)
                if node is None:
                    node = nodes[name] = zone.node_factory()
                node.find_rdataset(rrset.rdclass, rrset.rdtype, rrset.covers,
                                   create=True).union_update(rrset)
        return zone
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def ixfr(
    zone: dns.zone.Zone,
    host: str,
    port: int,
    *,
    timeout: float = 10.0,
    lifetime: float | None = None,
) -> int:
    """Bring ``zone`` up to the master's serial by IXFR (RFC 1995) from its own SOA serial;
    returns the new serial.

    The changes are applied in one dnspython transaction that swaps the zone's nodes on commit,
    so readers never see half a difference; a master answering AXFR-style replaces the content.
    A difference that does not apply exactly (deleting what is not there) raises
    ``DnsTransferError`` with the zone untouched — the caller then transfers it whole.
    """
    query, _ = dns.xfr.make_query(zone, serial=0)
    try:
        await dns.asyncquery.inbound_xfr(
            host,
            zone,
            query,
            port=port,
            timeout=timeout,
            lifetime=lifetime if lifetime is not None else timeout * 10,
        )
    except dns.exception.Timeout as exc:
        raise DnsTimeout(f"IXFR of {zone.origin} from {host}:{port} timed out") from exc
    except (dns.exception.DNSException, EOFError, ValueError) as exc:
        raise DnsTransferError(f"IXFR of {zone.origin} from {host}:{port}: {exc!r}") from exc
    return int(zone.get_rdataset(zone.origin, dns.rdatatype.SOA)[0].serial)
