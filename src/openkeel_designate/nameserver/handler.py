"""Request handling of the built-in nameserver: parse → opcode dispatch → answer.

QUERY is answered authoritatively from the in-memory zones; NOTIFY from a master (or loopback)
schedules a refresh and is acknowledged at once.  AXFR/IXFR hand out a whole zone, so they are
REFUSED unless the client's address is in ``allow_transfer`` or the query is signed with a TSIG key
known to the system (any scope: the nameserver knows no pools or zone ids), as BIND's
``allow-transfer`` would; the answer to a signed transfer is signed.  Malformed packets and bad
signatures are dropped without an answer, as mdns does; EDNS versions other than 0 get BADVERS.
"""

from __future__ import annotations

from collections.abc import Iterable

import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import dns.tsig

from openkeel_designate.dnswire import addresses, limits
from openkeel_designate.dnswire.addresses import Network
from openkeel_designate.mdns.packing import RecordTooBig, TsigSigner, pack, rrset_wires
from openkeel_designate.dnswire.tsig import Keyring, parse_query
from openkeel_designate.nameserver.answer import answer
from openkeel_designate.nameserver.refresh import Master, Refresher
from openkeel_designate.nameserver.zones import ServedZone, ZoneStore

MAX_MESSAGE_SIZE = limits.MAX_MESSAGE

def transfer_acl(entries: Iterable[str]) -> list[Network]:
    """``allow_transfer`` entries as networks; a bad one stops the server at start."""
    return addresses.networks(entries, "[service:nameserver] allow_transfer")


class NameserverHandler:
    """Callable ``(wire, peer, tcp) -> [wire answers]`` for ``DnsListener``."""

    def __init__(self, store: ZoneStore, refresher: Refresher, masters: list[Master], *,
                 keyring: Keyring | None = None, allow_transfer: Iterable[str] = (),
                 max_udp_payload: int = limits.DEFAULT_UDP_PAYLOAD):
        self.store = store
        self.refresher = refresher
        self.masters = list(masters)
        self.keyring = keyring
        self.allow_transfer = transfer_acl(allow_transfer)
        self.max_udp_payload = max_udp_payload

    async def __call__(self, wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        query = await parse_query(wire, self.keyring)
        if query is None:
            return []
        if limits.unsupported_edns(query):
            return [self.to_wire(limits.badvers(query, self.max_udp_payload), tcp)]
        opcode = query.opcode()
        if opcode == dns.opcode.QUERY:
            return self.on_query(query, peer[0], tcp)
        if opcode == dns.opcode.NOTIFY:
            return self.on_notify(query, peer[0], tcp)
        return self.error(query, dns.rcode.NOTIMP, tcp)

    def on_query(self, query: dns.message.Message, sender: str, tcp: bool) -> list[bytes]:
        if len(query.question) != 1:
            return self.error(query, dns.rcode.FORMERR, tcp)
        question = query.question[0]
        if question.rdclass != dns.rdataclass.IN:
            return self.error(query, dns.rcode.REFUSED, tcp)
        qname = question.name.canonicalize()
        served = self.authority_for(qname, question.rdtype)
        if served is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        if question.rdtype in (dns.rdatatype.AXFR, dns.rdatatype.IXFR):
            if not self.may_transfer(query, sender):
                return self.error(query, dns.rcode.REFUSED, tcp)
            if served.origin != qname:
                return self.error(query, dns.rcode.NOTAUTH, tcp)
            return self.transfer(query, served, tcp)
        response = self.respond(query)
        answer(response, served, question.name, question.rdtype, _wants_dnssec(query))
        return [self.to_wire(response, tcp)]

    def authority_for(self, qname: dns.name.Name, qtype: int) -> ServedZone | None:
        """The closest enclosing zone, except that a DS at the apex of a zone whose parent is
        served here too is the parent's to answer (RFC 4035 §3.1.4.1)."""
        served = self.store.find(qname)
        if (served is not None and qtype == dns.rdatatype.DS and served.origin == qname
                and qname != dns.name.root):
            return self.store.find(qname.parent()) or served
        return served

    def on_notify(self, query: dns.message.Message, sender: str, tcp: bool) -> list[bytes]:
        """Accept NOTIFY from a master or loopback; the refresh runs after we have answered."""
        if len(query.question) != 1:
            return self.error(query, dns.rcode.FORMERR, tcp)
        if not self._trusted(sender):
            return self.error(query, dns.rcode.REFUSED, tcp)
        prefer = next((master for master in self.masters if master[0] == sender), None)
        self.refresher.request(query.question[0].name.canonicalize(), prefer)
        response = dns.message.make_response(query, our_payload=self.max_udp_payload)
        response.flags |= dns.flags.AA
        return [self.to_wire(response, tcp)]

    def may_transfer(self, query: dns.message.Message, sender: str) -> bool:
        """A verified TSIG signature (parse_query dropped any other) or an allowed address."""
        if query.had_tsig:
            return True
        return addresses.within(sender, self.allow_transfer)

    def transfer(self, query: dns.message.Message, served: ServedZone, tcp: bool) -> list[bytes]:
        """SOA, every other RR, SOA (no history here: IXFR gets the whole zone, as RFC 1995 §4
        allows).  Over UDP only the SOA: for IXFR that is RFC 1995 §2's "does not fit" answer,
        for AXFR (undefined over UDP, RFC 5936 §4.2) it also carries TC; either way the client
        retries over TCP and the datagram is no larger than the question plus one SOA."""
        zone = served.zone
        soa_rdataset = zone.get_rdataset(served.origin, dns.rdatatype.SOA)
        soa = dns.rrset.RRset(served.origin, dns.rdataclass.IN, dns.rdatatype.SOA)
        soa.update(soa_rdataset)
        if not tcp:
            response = dns.message.make_response(query, our_payload=self.max_udp_payload)
            response.flags |= dns.flags.AA
            if query.question[0].rdtype == dns.rdatatype.AXFR:
                response.flags |= dns.flags.TC
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
        signer = None
        if query.had_tsig and isinstance(query.keyring, dns.tsig.Key):
            signer = TsigSigner(query.keyring, query.mac or b"", query.id)
        try:
            return pack(query.id, flags, (question.name, question.rdtype, question.rdclass),
                        body, MAX_MESSAGE_SIZE, signer)
        except RecordTooBig:
            return self.error(query, dns.rcode.SERVFAIL, tcp)

    def _trusted(self, sender: str) -> bool:
        address = addresses.parse(sender)
        if address is None:
            return False
        return address.is_loopback or any(host == sender for host, _ in self.masters)

    def respond(self, query: dns.message.Message) -> dns.message.Message:
        """An empty response; the DO bit is copied from the query (RFC 3225 §3)."""
        response = dns.message.make_response(query, our_payload=self.max_udp_payload)
        if _wants_dnssec(query):
            response.ednsflags |= dns.flags.DO
        return response

    def error(self, query: dns.message.Message, rcode: int, tcp: bool) -> list[bytes]:
        response = self.respond(query)
        response.set_rcode(rcode)
        return [self.to_wire(response, tcp)]

    def to_wire(self, response: dns.message.Message, tcp: bool) -> bytes:
        """TCP answers may use a whole message; UDP ones min(client's, our) payload (TC)."""
        return limits.render(response, tcp, self.max_udp_payload, MAX_MESSAGE_SIZE)


def _wants_dnssec(query: dns.message.Message) -> bool:
    return query.edns >= 0 and bool(query.ednsflags & dns.flags.DO)
