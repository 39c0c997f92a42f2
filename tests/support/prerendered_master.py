"""A master whose AXFR answers are rendered before they are asked for.

Used where the event loop's work during a transfer must be the receiver's alone (the nameserver
test of a large transfer, ``bench/nameserver_refresh.py``): serving a version costs the master
one header patch per message.  SOA over UDP or TCP, AXFR (and IXFR) over TCP of the current
version.
"""

from __future__ import annotations

import io

import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdatatype
import dns.rrset
import dns.zone

from openkeel_designate.mdns.transport import DnsListener


def render(origin: dns.name.Name, rrsets: list[dns.rrset.RRset],
           per_message: int = 1000) -> list[bytes]:
    """``rrsets`` (SOA first and last) as AXFR answer messages with id 0: ``per_message``
    RRsets a message, fewer when their uncompressed size would pass 60,000 bytes."""
    query = dns.message.make_query(origin, dns.rdatatype.AXFR)
    messages: list[bytes] = []
    batch: list[dns.rrset.RRset] = []
    size = 0

    def flush() -> None:
        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        response.answer.extend(batch)
        messages.append(response.to_wire(max_size=65535))

    for rrset in rrsets:
        length = _size(rrset)
        if batch and (len(batch) == per_message or size + length > 60_000):
            flush()
            batch, size = [], 0
        batch.append(rrset)
        size += length
    flush()
    return messages


def _size(rrset: dns.rrset.RRset) -> int:
    output = io.BytesIO()
    rrset.to_wire(output)
    return output.tell()


def zone_rrsets(zone: dns.zone.Zone) -> list[dns.rrset.RRset]:
    """A zone's RRsets in AXFR order: SOA, the others, SOA."""
    soa = None
    others = []
    for name, rdataset in zone.iterate_rdatasets():
        rrset = dns.rrset.RRset(name, rdataset.rdclass, rdataset.rdtype, rdataset.covers)
        rrset.update(rdataset)
        if name == zone.origin and rdataset.rdtype == dns.rdatatype.SOA:
            soa = rrset
        else:
            others.append(rrset)
    assert soa is not None
    return [soa, *others, soa]


class PrerenderedMaster:
    """``versions[(origin, serial)]``: rendered messages; ``serials[origin]``: the current."""

    def __init__(self) -> None:
        self.versions: dict[tuple[dns.name.Name, int], list[bytes]] = {}
        self.soas: dict[tuple[dns.name.Name, int], dns.rrset.RRset] = {}
        self.serials: dict[dns.name.Name, int] = {}
        # (origin, the client's serial): IXFR answers; an IXFR not found here is answered
        # AXFR-style
        self.increments: dict[tuple[dns.name.Name, int], list[bytes]] = {}
        self.listener = DnsListener([("127.0.0.1", 0)], self.handle, name="prerendered-master")

    def add(self, origin: dns.name.Name, serial: int, rrsets: list[dns.rrset.RRset],
            per_message: int = 1000) -> None:
        self.versions[(origin, serial)] = render(origin, rrsets, per_message)
        self.soas[(origin, serial)] = rrsets[0]

    @property
    def bound(self) -> list[tuple[str, int]]:
        return self.listener.bound

    async def __aenter__(self) -> PrerenderedMaster:
        await self.listener.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.listener.stop()

    async def handle(self, wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        query = dns.message.from_wire(wire)
        question = query.question[0]
        serial = self.serials.get(question.name)
        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        if serial is None:
            response.set_rcode(dns.rcode.REFUSED)
        elif question.rdtype in (dns.rdatatype.AXFR, dns.rdatatype.IXFR) and tcp:
            messages = self.versions[(question.name, serial)]
            if question.rdtype == dns.rdatatype.IXFR and query.authority:
                messages = self.increments.get((question.name, query.authority[0][0].serial),
                                               messages)
            # this query's id, and its type in the question (rendered with AXFR's)
            at = 12 + len(question.name.to_wire())
            qtype = question.rdtype.to_bytes(2, "big")
            return [wire[:2] + message[2:at] + qtype + message[at + 2:] for message in messages]
        elif question.rdtype == dns.rdatatype.SOA:
            response.answer.append(self.soas[(question.name, serial)])
        else:
            response.set_rcode(dns.rcode.REFUSED)
        return [response.to_wire()]
