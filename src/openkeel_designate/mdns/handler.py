"""mdns request handling: parse (+ TSIG) → scope → opcode dispatch → answer.

Behaviour follows Designate's mini-DNS (spec/async.md §4): it answers only for zones in scope,
never with NXDOMAIN/NODATA (it is a transfer source, not a resolver target), and drops anything it
cannot parse or verify without a word.  Every step is a small method so TSIG scoping, ACLs and
incremental IXFR can slot in without touching the others.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype

from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneHead, ZoneSource
from openkeel_designate.mdns.packing import RecordTooBig, RecordWireCache, pack, render_rrset

log = logging.getLogger(__name__)

MAX_MESSAGE_SIZE = 65535
UDP_DEFAULT_SIZE = 512

NotifyCallback = Callable[[str, str], "int | Awaitable[int]"]


class MdnsHandler:
    """Callable ``(wire, peer, tcp) -> [wire answers]`` for ``DnsListener``."""

    def __init__(
        self,
        source: ZoneSource,
        default_pool_id: str,
        *,
        max_message_size: int = MAX_MESSAGE_SIZE,
        on_notify: NotifyCallback | None = None,
        keyring: Any = None,
        cache: RecordWireCache | None = None,
    ):
        self.source = source
        self.default_pool_id = default_pool_id
        self.max_message_size = min(max_message_size, MAX_MESSAGE_SIZE)
        self.on_notify = on_notify
        self.keyring = keyring
        self.cache = cache or RecordWireCache()

    async def __call__(self, wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        query = self.parse(wire)
        if query is None:
            return []
        try:
            return await self.dispatch(query, peer, tcp)
        except Exception:
            log.exception("mdns failed answering %s from %s", query.question, peer)
            return self.error(query, dns.rcode.SERVFAIL, tcp)

    # --- parse --------------------------------------------------------------------------------
    def parse(self, wire: bytes) -> dns.message.Message | None:
        """The query, or None for anything malformed, unverifiable (TSIG) or not a query."""
        try:
            message = dns.message.from_wire(wire, keyring=self.keyring)
        except Exception:
            return None
        if message.flags & dns.flags.QR:
            return None
        return message

    # --- scope --------------------------------------------------------------------------------
    def pool_scope(self, query: dns.message.Message) -> str | None:
        """The pool whose zones this query may see; None means nothing is in scope.

        Unsigned queries see the default pool.  TSIG scoping (a key of scope POOL → its pool,
        scope ZONE → one zone) belongs here once the keyring is backed by the tsigkeys table;
        until then a signed query sees nothing.
        """
        if query.had_tsig:
            return None
        return self.default_pool_id

    # --- dispatch -----------------------------------------------------------------------------
    async def dispatch(self, query: dns.message.Message, peer: tuple[str, int], tcp: bool
                       ) -> list[bytes]:
        opcode = query.opcode()
        if opcode == dns.opcode.QUERY:
            return await self.on_query(query, tcp)
        if opcode == dns.opcode.NOTIFY:
            return await self.on_notify_message(query, peer, tcp)
        return self.error(query, dns.rcode.REFUSED, tcp)

    async def on_query(self, query: dns.message.Message, tcp: bool) -> list[bytes]:
        if len(query.question) != 1 or query.question[0].rdclass != dns.rdataclass.IN:
            return self.error(query, dns.rcode.REFUSED, tcp)
        pool_id = self.pool_scope(query)
        if pool_id is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        rdtype = query.question[0].rdtype
        if rdtype == dns.rdatatype.AXFR:
            return await self.axfr(query, pool_id, tcp)
        if rdtype == dns.rdatatype.IXFR:
            return await self.ixfr(query, pool_id, tcp)
        return await self.answer(query, pool_id, tcp)

    # --- QUERY --------------------------------------------------------------------------------
    async def answer(self, query: dns.message.Message, pool_id: str, tcp: bool) -> list[bytes]:
        """Records of (zone, qname, qtype) with AA; no zone or no recordset → REFUSED."""
        question = query.question[0]
        qname = question.name.canonicalize()
        zone = await self.find_enclosing_zone(qname, pool_id)
        if zone is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        records = await self.source.rrset(
            zone.id, qname.to_text(), dns.rdatatype.to_text(question.rdtype)
        )
        if not records:
            return self.error(query, dns.rcode.REFUSED, tcp)
        response = self.response(query)
        rrset = render_rrset(question.name, records)
        if rrset is not None:
            response.answer.append(rrset)
        return [self.to_wire(response, tcp)]

    async def find_enclosing_zone(self, qname: dns.name.Name, pool_id: str) -> ZoneHead | None:
        name = qname
        while True:
            zone = await self.source.find_zone(name.to_text(), pool_id)
            if zone is not None or name == dns.name.root:
                return zone
            name = name.parent()

    # --- AXFR / IXFR --------------------------------------------------------------------------
    async def ixfr(self, query: dns.message.Message, pool_id: str, tcp: bool) -> list[bytes]:
        """Answered as a full AXFR-style transfer (RFC 1995 allows it) until zone history exists;
        an incremental answer would be built here from the requested serial in the authority."""
        return await self.axfr(query, pool_id, tcp)

    async def axfr(self, query: dns.message.Message, pool_id: str, tcp: bool) -> list[bytes]:
        """SOA, every record, SOA — split over as many messages as ``max_message_size`` needs."""
        qname = query.question[0].name.canonicalize()
        zone = await self.source.find_zone(qname.to_text(), pool_id)
        if zone is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        records = await self.source.zone_records(zone.id)
        soa = next((r for r in records if r.type == "SOA"), None)
        soa_wire = self.cache.wire(soa) if soa is not None else None
        if soa_wire is None:
            log.error("zone %s has no servable SOA; transfer refused", zone.name)
            return self.error(query, dns.rcode.SERVFAIL, tcp)
        if not tcp:
            return self.xfr_over_udp(query, soa)
        body = [soa_wire]
        wire_of = self.cache.wire
        for record in records:
            if record.type != "SOA":
                rr = wire_of(record)
                if rr is not None:
                    body.append(rr)
        body.append(soa_wire)
        question = query.question[0]
        flags = dns.flags.QR | dns.flags.AA | (query.flags & dns.flags.RD)
        try:
            return pack(query.id, flags, (question.name, question.rdtype, question.rdclass),
                        body, self.max_message_size)
        except RecordTooBig as exc:
            log.error("transfer of %s impossible: %s", zone.name, exc)
            return self.error(query, dns.rcode.SERVFAIL, tcp)

    def xfr_over_udp(self, query: dns.message.Message, soa: ServedRecord) -> list[bytes]:
        """Only the SOA over UDP (RFC 1995 §2: the client retries over TCP); AXFR also sets TC."""
        response = self.response(query)
        rrset = render_rrset(query.question[0].name, [soa])
        if rrset is not None:
            response.answer.append(rrset)
        if query.question[0].rdtype == dns.rdatatype.AXFR:
            response.flags |= dns.flags.TC
        return [self.to_wire(response, False)]

    # --- NOTIFY -------------------------------------------------------------------------------
    async def on_notify_message(self, query: dns.message.Message, peer: tuple[str, int],
                                tcp: bool) -> list[bytes]:
        """Secondary zones: hand the NOTIFY to the callback, which decides the rcode."""
        if len(query.question) != 1:
            return self.error(query, dns.rcode.FORMERR, tcp)
        rcode = dns.rcode.NOTAUTH
        if self.on_notify is not None:
            outcome = self.on_notify(query.question[0].name.to_text(), peer[0])
            rcode = await outcome if inspect.isawaitable(outcome) else outcome
        response = self.response(query)
        response.set_rcode(rcode)
        return [self.to_wire(response, tcp)]

    # --- rendering ----------------------------------------------------------------------------
    def response(self, query: dns.message.Message) -> dns.message.Message:
        response = dns.message.make_response(query, our_payload=1232)
        response.flags |= dns.flags.AA
        return response

    def error(self, query: dns.message.Message, rcode: int, tcp: bool) -> list[bytes]:
        response = dns.message.make_response(query, our_payload=1232)
        response.set_rcode(rcode)
        return [self.to_wire(response, tcp)]

    def to_wire(self, response: dns.message.Message, tcp: bool) -> bytes:
        """TCP answers may use the whole message size; UDP ones what the client advertised."""
        if tcp:
            max_size = self.max_message_size
        elif response.request_payload:
            max_size = max(UDP_DEFAULT_SIZE, min(response.request_payload, MAX_MESSAGE_SIZE))
        else:
            max_size = UDP_DEFAULT_SIZE
        return response.to_wire(max_size=max_size, prefer_truncation=True)
