"""Request handling of the built-in nameserver: parse → opcode dispatch → answer.

QUERY is answered authoritatively from the in-memory zones; NOTIFY from a master (or loopback)
schedules a refresh and is acknowledged at once; AXFR of a served zone is allowed for debugging.
Malformed packets are dropped without an answer, as mdns does.
"""

from __future__ import annotations

import ipaddress

import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from openkeel_designate.mdns.packing import RecordTooBig, pack, rrset_wires
from openkeel_designate.nameserver.answer import answer
from openkeel_designate.nameserver.refresh import Master, Refresher
from openkeel_designate.nameserver.zones import ServedZone, ZoneStore

UDP_DEFAULT_SIZE = 512
MAX_MESSAGE_SIZE = 65535


class NameserverHandler:
    """Callable ``(wire, peer, tcp) -> [wire answers]`` for ``DnsListener``."""

    def __init__(self, store: ZoneStore, refresher: Refresher, masters: list[Master]):
        self.store = store
        self.refresher = refresher
        self.masters = list(masters)

    async def __call__(self, wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        try:
            query = dns.message.from_wire(wire)
        except Exception:
            return []
        if query.flags & dns.flags.QR:
            return []
        opcode = query.opcode()
        if opcode == dns.opcode.QUERY:
            return self.on_query(query, tcp)
        if opcode == dns.opcode.NOTIFY:
            return self.on_notify(query, peer[0], tcp)
        return self.error(query, dns.rcode.NOTIMP, tcp)

    def on_query(self, query: dns.message.Message, tcp: bool) -> list[bytes]:
        if len(query.question) != 1:
            return self.error(query, dns.rcode.FORMERR, tcp)
        question = query.question[0]
        if question.rdclass != dns.rdataclass.IN:
            return self.error(query, dns.rcode.REFUSED, tcp)
        qname = question.name.canonicalize()
        served = self.store.find(qname)
        if served is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        if question.rdtype in (dns.rdatatype.AXFR, dns.rdatatype.IXFR):
            if served.origin != qname:
                return self.error(query, dns.rcode.NOTAUTH, tcp)
            return self.transfer(query, served, tcp)
        response = dns.message.make_response(query, our_payload=1232)
        answer(response, served, question.name, question.rdtype)
        return [self.to_wire(response, tcp)]

    def on_notify(self, query: dns.message.Message, sender: str, tcp: bool) -> list[bytes]:
        """Accept NOTIFY from a master or loopback; the refresh runs after we have answered."""
        if len(query.question) != 1:
            return self.error(query, dns.rcode.FORMERR, tcp)
        if not self._trusted(sender):
            return self.error(query, dns.rcode.REFUSED, tcp)
        prefer = next((master for master in self.masters if master[0] == sender), None)
        self.refresher.request(query.question[0].name.canonicalize(), prefer)
        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        return [self.to_wire(response, tcp)]

    def transfer(self, query: dns.message.Message, served: ServedZone, tcp: bool) -> list[bytes]:
        """SOA, every other RR, SOA; over UDP only the SOA with TC (retry over TCP)."""
        zone = served.zone
        soa_rdataset = zone.get_rdataset(served.origin, dns.rdatatype.SOA)
        soa = dns.rrset.RRset(served.origin, dns.rdataclass.IN, dns.rdatatype.SOA)
        soa.update(soa_rdataset)
        if not tcp:
            response = dns.message.make_response(query)
            response.flags |= dns.flags.AA | dns.flags.TC
            response.answer.append(soa)
            return [self.to_wire(response, False)]
        soa_wire = rrset_wires(soa)
        body = list(soa_wire)
        for name, rdataset in zone.iterate_rdatasets():
            if name == served.origin and rdataset.rdtype == dns.rdatatype.SOA:
                continue
            rrset = dns.rrset.RRset(name, rdataset.rdclass, rdataset.rdtype)
            rrset.update(rdataset)
            body.extend(rrset_wires(rrset))
        body.extend(soa_wire)
        question = query.question[0]
        flags = dns.flags.QR | dns.flags.AA | (query.flags & dns.flags.RD)
        try:
            return pack(query.id, flags, (question.name, question.rdtype, question.rdclass),
                        body, MAX_MESSAGE_SIZE)
        except RecordTooBig:
            return self.error(query, dns.rcode.SERVFAIL, tcp)

    def _trusted(self, sender: str) -> bool:
        try:
            if ipaddress.ip_address(sender.split("%")[0]).is_loopback:
                return True
        except ValueError:
            return False
        return any(host == sender for host, _ in self.masters)

    def error(self, query: dns.message.Message, rcode: int, tcp: bool) -> list[bytes]:
        response = dns.message.make_response(query, our_payload=1232)
        response.set_rcode(rcode)
        return [self.to_wire(response, tcp)]

    def to_wire(self, response: dns.message.Message, tcp: bool) -> bytes:
        if tcp:
            max_size = MAX_MESSAGE_SIZE
        elif response.request_payload:
            max_size = max(UDP_DEFAULT_SIZE, min(response.request_payload, MAX_MESSAGE_SIZE))
        else:
            max_size = UDP_DEFAULT_SIZE
        return response.to_wire(max_size=max_size, prefer_truncation=True)
