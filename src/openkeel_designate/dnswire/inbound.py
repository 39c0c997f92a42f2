"""Inbound zone transfers (AXFR, IXFR) that never hold the event loop for long.

The built-in nameserver receives every zone of the embedded pool this way, on the loop that also
serves mdns, DNS and the API.  dnspython parses a whole message (up to 64 KiB, ~1,500 records)
in one call, which took 0.1-0.9 s per message on the shared 2-core machine, and its IXFR applies
an AXFR-style answer through a transaction per RRset.  Here the messages are read from the TCP
stream as they arrive, and each record is parsed and filed as one step of ``slices`` work, so the
loop is handed back every few milliseconds.  The result is always a *new* zone object: for an
IXFR the served zone's node map is copied (a C-level dict copy) and a node is cloned before it is
changed, so the version being served is never touched and the caller swaps the new one in whole.

The stream is checked as dnspython's inbound transfer checks it: NOERROR, the query's id and
question, an opening SOA for the zone, nothing after the closing SOA equal to it, for an IXFR
each deletion set starting at the serial reached so far and deletions that delete exactly (else
``DeleteNotExact``: the caller transfers the whole zone), names outside the zone ignored.  Why not
the offload pool: the result must be dnspython objects in this process, and unpickling them is one
long step that cannot be sliced (``slices`` says more).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.node
import dns.rdata
import dns.rdataset
import dns.rdatatype
import dns.wire
import dns.xfr
import dns.zone

from openkeel_designate import slices

# owner, class, type, covered type (RRSIG), TTL, data
Record = tuple[dns.name.Name, int, int, int, int, dns.rdata.Rdata]


class DeleteNotExact(dns.exception.FormError):
    """An IXFR deletes a record the zone does not hold: the difference does not apply."""


async def transfer(origin: dns.name.Name, host: str, port: int, timeout: float,
                   base: dns.zone.Zone | None = None,
                   first_timeout: float | None = None) -> dns.zone.Zone:
    """AXFR ``origin`` (``base`` None) or IXFR it from ``base``'s serial; the new zone.

    ``timeout`` bounds the wait for each message (the caller bounds the whole);
    ``first_timeout`` (default ``timeout``) the wait for the first one, which a master sends
    only once it has read and rendered the zone — signed for the first time, a large zone
    takes mdns minutes."""
    if base is None:
        query = dns.message.make_query(origin, dns.rdatatype.AXFR)
    else:
        query, _ = dns.xfr.make_query(base, serial=0)
    receiver = _Receiver(origin, base)
    async for wire in _messages(query, host, port, timeout, first_timeout or timeout):
        records = await slices.drive(_answers(wire, query))
        await slices.drive(receiver.take(records))
        if receiver.done:
            break
    else:
        raise EOFError("transfer ended before the final SOA")
    return receiver.zone


async def _messages(query: dns.message.Message, host: str, port: int,
                    timeout: float, first_timeout: float) -> AsyncIterator[bytes]:
    """The wire form of each answer message, read from the TCP stream as it arrives."""
    wire = query.to_wire()
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(len(wire).to_bytes(2, "big") + wire)
        wait = first_timeout
        while True:
            length = int.from_bytes(await asyncio.wait_for(reader.readexactly(2), wait), "big")
            yield await asyncio.wait_for(reader.readexactly(length), timeout)
            wait = timeout
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


def _answers(wire: bytes, query: dns.message.Message) -> slices.Work[list[Record]]:
    """The answer section of one message, one record a step, after the header checks."""
    parser = dns.wire.Parser(wire)
    ident, flags, questions, answers, _, _ = parser.get_struct("!HHHHHH")
    if not flags & dns.flags.QR or ident != query.id:
        raise dns.exception.FormError("answer to another query")
    if flags & 0xF:
        raise dns.xfr.TransferError(flags & 0xF)
    asked = query.question[0]
    for _ in range(questions):
        name = parser.get_name(decompress=True)
        rdtype, _ = parser.get_struct("!HH")
        if name != asked.name or rdtype != asked.rdtype:
            raise dns.exception.FormError("wrong question")
    records: list[Record] = []
    for _ in range(answers):
        yield
        name = parser.get_name(decompress=True)
        rdtype, rdclass, ttl, length = parser.get_struct("!HHIH")
        with parser.restrict_to(length):
            rdata = dns.rdata.from_wire_parser(rdclass, rdtype, parser, None)
        records.append((name, rdclass, rdtype, rdata.covers(), ttl, rdata))
    return records


class _Receiver:
    """The records of one transfer, filed into the new zone as they come (RFC 1995 §4 for an
    IXFR: new SOA, then per version an old SOA with the deletions and a new SOA with the
    additions, then the new SOA again; anything else after the first SOA: AXFR-style)."""

    def __init__(self, origin: dns.name.Name, base: dns.zone.Zone | None):
        self.origin = origin
        self.base = base
        self.serial = _serial(base) if base is not None else None
        self.zone = dns.zone.Zone(origin, relativize=False)
        self.depth = len(origin)  # the labels compared first: most names spell the origin alike
        self.owned: set[dns.name.Name] | None = None  # IXFR: nodes cloned from ``base``
        self.opening: tuple[int, dns.rdata.Rdata] | None = None  # TTL, SOA
        self.expecting_soa = False  # IXFR: a second SOA tells incremental from AXFR-style
        self.deleting = False
        self.done = False

    @property
    def incremental(self) -> bool:
        return self.owned is not None

    def take(self, records: list[Record]) -> slices.Work[None]:
        for record in records:
            yield
            if self.done:
                raise dns.exception.FormError("answers after final SOA")
            if self.opening is None:
                self.open(record)
            else:
                self.file(record)

    def open(self, record: Record) -> None:
        name, _, rdtype, _, ttl, rdata = record
        if name != self.origin or rdtype != dns.rdatatype.SOA:
            raise dns.exception.FormError("first RRset is not the zone's SOA")
        self.opening = (ttl, rdata)
        if self.base is None:
            return
        if rdata.serial == self.serial:
            self.zone, self.done = self.base, True  # already up to date: nothing changes
            return
        self.expecting_soa = True
        self.owned = set()
        self.zone.nodes = dict(self.base.nodes)  # shared nodes, cloned before any change

    def file(self, record: Record) -> None:
        name, rdclass, rdtype, covers, ttl, rdata = record
        assert self.opening is not None
        if rdtype == dns.rdatatype.SOA and name == self.origin:
            self.soa(ttl, rdata)
            return
        if self.expecting_soa:  # an IXFR answered with the whole zone
            self.expecting_soa = False
            self.owned = None
            self.zone.nodes = {}
        if name.labels[-self.depth:] != self.origin.labels and not name.is_subdomain(self.origin):
            return  # glue outside the zone: ignored, as dnspython does
        if self.deleting:
            node = self.node(name)
            rdataset = node.get_rdataset(rdclass, rdtype, covers)
            if rdataset is None or rdata not in rdataset:
                raise DeleteNotExact(f"IXFR deletes {name} {rdtype} which is not there")
            rdataset.remove(rdata)
            if not rdataset:
                node.delete_rdataset(rdclass, rdtype, covers)
                if not node.rdatasets:
                    del self.zone.nodes[name]
            return
        self.node(name).find_rdataset(rdclass, rdtype, covers, create=True).add(rdata, ttl)

    def soa(self, ttl: int, rdata: dns.rdata.Rdata) -> None:
        assert self.opening is not None
        if self.incremental:
            self.deleting = not self.deleting
        if rdata == self.opening[1] and (not self.incremental or self.deleting):
            if self.expecting_soa:
                raise dns.exception.FormError("empty IXFR sequence")
            if self.incremental and self.serial != rdata.serial:
                raise dns.exception.FormError("unexpected end of IXFR sequence")
            soa = dns.rdataset.Rdataset(rdata.rdclass, dns.rdatatype.SOA)
            soa.add(rdata, self.opening[0])
            self.node(self.origin).replace_rdataset(soa)
            self.done = True
            return
        self.expecting_soa = False
        if not self.incremental:
            raise dns.exception.FormError("unexpected origin SOA in AXFR")
        if self.deleting:
            if rdata.serial != self.serial:
                raise dns.exception.FormError("IXFR base serial mismatch")
        else:
            self.serial = rdata.serial

    def node(self, name: dns.name.Name) -> dns.node.Node:
        """The new zone's node for ``name``, never one the served version still uses."""
        nodes = self.zone.nodes
        node = nodes.get(name)
        if node is not None and (self.owned is None or name in self.owned):
            return node
        fresh = self.zone.node_factory()
        if node is not None:
            fresh.rdatasets = [rdataset.copy() for rdataset in node.rdatasets]
        nodes[name] = fresh
        if self.owned is not None:
            self.owned.add(name)
        return fresh


def _serial(zone: dns.zone.Zone) -> int:
    return zone.get_rdataset(zone.origin, dns.rdatatype.SOA)[0].serial
