"""mdns request handling: parse (+ TSIG) → scope → opcode dispatch → answer.

Behaviour follows Designate's mini-DNS (spec/async.md §4): it answers only for zones in scope,
never with NXDOMAIN/NODATA (it is a transfer source, not a resolver target), and drops anything it
cannot parse or verify without a word.  Where Designate answers IXFR with a full AXFR, this one
answers incrementally from the zone's recorded history when it reaches back to the client's
serial (falling back to AXFR otherwise).  Answers to signed queries are signed, multi-message
transfers with chained TSIG.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.tsig

from openkeel_designate.dnswire import limits
from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneHead, ZoneSource
from openkeel_designate.domain import errors
from openkeel_designate.domain.serial import serial_gt
from openkeel_designate.mdns import ixfr as incremental
from openkeel_designate.mdns.packing import (
    RecordTooBig,
    TsigSigner,
    ZoneWire,
    assemble,
    render_rdata,
    render_rrset,
    room_for,
    split,
)
from openkeel_designate.dnswire.tsig import Keyring, Scope, parse_query
from openkeel_designate.mdns.xfrcache import Sections, TransferCache
from openkeel_designate.mdns.zonecache import ZoneCache

log = logging.getLogger(__name__)

MAX_MESSAGE_SIZE = limits.MAX_MESSAGE

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
        keyring: Keyring | None = None,
        enforce_tsig: bool = False,
        transfers: TransferCache | None = None,
        max_udp_payload: int = limits.DEFAULT_UDP_PAYLOAD,
        zones: ZoneCache | None = None,
    ):
        """``zones``: remembers name → zone between queries (``zonecache``); None: every
        lookup reads the source.  ``transfers``: keeps rendered AXFR/IXFR answers per zone
        version (``xfrcache``); None: every transfer reads and renders the zone."""
        self.source = source
        self.default_pool_id = default_pool_id
        self.max_message_size = min(max_message_size, MAX_MESSAGE_SIZE)
        self.on_notify = on_notify
        self.keyring = keyring
        self.enforce_tsig = enforce_tsig
        self.transfers = transfers
        self.max_udp_payload = max_udp_payload
        self.zones = zones
        self._rendering: dict[tuple, asyncio.Event] = {}  # AXFRs being rendered, by key

    async def __call__(self, wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        query = await self.parse(wire)
        if query is None:
            return []
        if limits.unsupported_edns(query):
            return [self.to_wire(limits.badvers(query, self.max_udp_payload), tcp)]
        try:
            return await self.dispatch(query, peer, tcp)
        except errors.ServiceUnavailable as exc:  # the database is down: no traceback per query
            log.warning("mdns: SERVFAIL for %s from %s: %s", query.question, peer, exc)
            return self.error(query, dns.rcode.SERVFAIL, tcp)
        except Exception:
            log.exception("mdns failed answering %s from %s", query.question, peer)
            return self.error(query, dns.rcode.SERVFAIL, tcp)

    # --- parse --------------------------------------------------------------------------------
    async def parse(self, wire: bytes) -> dns.message.Message | None:
        """The query, or None for anything malformed, unverifiable (TSIG) or not a query."""
        return await parse_query(wire, self.keyring)

    # --- scope --------------------------------------------------------------------------------
    def scope(self, query: dns.message.Message) -> Scope | None:
        """What the query may see: unsigned → the default pool (nothing when TSIG is enforced);
        a key of scope POOL → its pool, scope ZONE → its zone."""
        if not query.had_tsig:
            return None if self.enforce_tsig else Scope(self.default_pool_id)
        entry = self.keyring.lookup(query.keyname) if self.keyring is not None else None
        return entry.as_scope() if entry is not None else None

    async def find_zone(self, name: str, scope: Scope) -> ZoneHead | None:
        if self.zones is None:
            zone = await self.source.find_zone(name, scope.pool_id)
        else:
            zone = await self.zones.find(name, scope.pool_id,
                                         lambda: self.source.find_zone(name, scope.pool_id))
        if zone is not None and scope.zone_id is not None and zone.id != scope.zone_id:
            return None
        return zone

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
        scope = self.scope(query)
        if scope is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        rdtype = query.question[0].rdtype
        if rdtype == dns.rdatatype.AXFR:
            return await self.axfr(query, scope, tcp)
        if rdtype == dns.rdatatype.IXFR:
            return await self.ixfr(query, scope, tcp)
        return await self.answer(query, scope, tcp)

    # --- QUERY --------------------------------------------------------------------------------
    async def answer(self, query: dns.message.Message, scope: Scope, tcp: bool) -> list[bytes]:
        """Records of (zone, qname, qtype) with AA; no zone or no recordset → REFUSED."""
        question = query.question[0]
        qname = question.name.canonicalize()
        zone = await self.find_enclosing_zone(qname, scope)
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

    async def find_enclosing_zone(self, qname: dns.name.Name, scope: Scope) -> ZoneHead | None:
        name = qname
        while True:
            zone = await self.find_zone(name.to_text(), scope)
            if zone is not None or name == dns.name.root:
                return zone
            name = name.parent()

    # --- AXFR / IXFR --------------------------------------------------------------------------
    async def ixfr(self, query: dns.message.Message, scope: Scope, tcp: bool) -> list[bytes]:
        """RFC 1995: up to date → the SOA alone; history reaching the client's serial → the
        condensed difference; otherwise (or without a serial) a full AXFR-style answer.  Over
        UDP the difference is sent when it fits one datagram, else the SOA alone (§2), which
        makes the client retry over TCP."""
        zone = await self.find_zone(query.question[0].name.canonicalize().to_text(), scope)
        if zone is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        since = incremental.requested_serial(query)
        soa = await self._soa(zone)
        current = _soa_serial(soa)
        if soa is None or current is None:
            return await self.axfr(query, scope, tcp, zone)
        if not tcp and (since is None or not serial_gt(current, since)):
            return self.xfr_over_udp(query, soa)
        if since is None:
            return await self.axfr(query, scope, tcp, zone)
        if not serial_gt(current, since):
            return self.xfr_over_udp(query, soa)
        key = self._key(query, "IXFR", zone, soa, since) if tcp else None
        sections = self._cached(key)
        if sections is not None:
            return self._assemble(query, sections)
        history = getattr(self.source, "zone_changes", None)
        deltas = await history(zone.id, since) if history is not None else None
        wire = ZoneWire(zone.name)
        soa_wire = wire.wire(soa)
        old_soa = incremental.soa_at(deltas or [], soa, since)
        old_soa_wire = wire.wire(old_soa) if old_soa is not None else None
        if (not incremental.complete_chain(deltas, since, current) or soa_wire is None
                or old_soa is None or old_soa_wire is None):
            if not tcp:  # a full transfer never fits a datagram: do not even read the zone
                return self.xfr_over_udp(query, soa)
            return await self.axfr(query, scope, tcp, zone)
        removed, added = incremental.condense(deltas or [])
        body = [soa_wire, old_soa_wire, *wire.wires(removed), soa_wire, *wire.wires(added),
                soa_wire]
        if not tcp:
            return self.ixfr_over_udp(query, soa, [soa, old_soa, *removed, soa, *added, soa],
                                      sum(map(len, body)))
        return self._pack(query, zone, key, body, tcp)

    def ixfr_over_udp(self, query: dns.message.Message, soa: ServedRecord,
                      records: list[ServedRecord], body_size: int) -> list[bytes]:
        """The difference in one datagram when it fits the UDP limit, else the SOA alone.

        ``body_size`` (the RRs' uncompressed size) rules out a large difference before any of
        it is rendered; rendering then decides exactly, compression, OPT and TSIG included."""
        response = self.response(query)
        limit = limits.limit_for(response, False, self.max_udp_payload)
        if body_size <= 2 * limit:
            for record in records:
                rrset = render_rrset(dns.name.from_text(record.name), [record])
                if rrset is None:
                    return self.xfr_over_udp(query, soa)
                response.answer.append(rrset)
            try:
                return [response.to_wire(max_size=limit)]
            except dns.exception.TooBig:
                pass
        return self.xfr_over_udp(query, soa)

    async def axfr(self, query: dns.message.Message, scope: Scope, tcp: bool,
                   zone: ZoneHead | None = None) -> list[bytes]:
        """SOA, every record, SOA — split over as many messages as ``max_message_size`` needs;
        rendered once per version of the zone when a transfer cache is configured."""
        if zone is None:
            zone = await self.find_zone(query.question[0].name.canonicalize().to_text(), scope)
        if zone is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        soa = await self._soa(zone)
        if soa is not None and not tcp:
            return self.xfr_over_udp(query, soa)
        key = self._key(query, "AXFR", zone, soa) if soa is not None else None
        sections = self._cached(key)
        if sections is None and key is not None and key in self._rendering:
            # Another asker's transfer of this version is being rendered (every nameserver
            # of a pool pulls a new serial at once; a large signed zone takes seconds even
            # with its signatures kept): wait for it and send what it leaves in the cache.
            await self._rendering[key].wait()
            sections = self._cached(key)
        if sections is not None:
            return self._assemble(query, sections)
        if key is None:
            return await self._render_axfr(query, zone, tcp)
        done = self._rendering[key] = asyncio.Event()
        try:
            return await self._render_axfr(query, zone, tcp)
        finally:
            done.set()
            if self._rendering.get(key) is done:
                del self._rendering[key]

    async def _render_axfr(self, query: dns.message.Message, zone: ZoneHead, tcp: bool
                           ) -> list[bytes]:
        records = await self.source.zone_records(zone.id)
        soa = next((r for r in records if r.type == "SOA"), None)
        wire = ZoneWire(zone.name)
        soa_wire = wire.wire(soa) if soa is not None else None
        if soa is None or soa_wire is None:
            log.error("zone %s has no servable SOA; transfer refused", zone.name)
            return self.error(query, dns.rcode.SERVFAIL, tcp)
        if not tcp:
            return self.xfr_over_udp(query, soa)
        body = [soa_wire, *wire.wires(r for r in records if r.type != "SOA"), soa_wire]
        return self._pack(query, zone, self._key(query, "AXFR", zone, soa), body, tcp)

    async def _soa(self, zone: ZoneHead) -> ServedRecord | None:
        """The zone's SOA as stored now: its serial says which version a transfer is."""
        return next(iter(await self.source.rrset(zone.id, zone.name, "SOA")), None)

    def _key(self, query: dns.message.Message, kind: str, zone: ZoneHead, soa: ServedRecord,
             since: int | None = None) -> tuple | None:
        """What a rendered transfer depends on: the zone's version (its whole SOA, serial
        included) and the room per message (message size, question length, TSIG reserve)."""
        if self.transfers is None:
            return None
        return (kind, zone.id, soa.name.lower(), soa.ttl, soa.data, since,
                room_for(self._question(query), self.max_message_size, self._signer(query)))

    def _cached(self, key: tuple | None) -> Sections | None:
        return self.transfers.get(key) if key is not None and self.transfers is not None else None

    def _pack(self, query: dns.message.Message, zone: ZoneHead, key: tuple | None,
              body: list[bytes], tcp: bool) -> list[bytes]:
        signer = self._signer(query)
        try:
            sections = split(body, room_for(self._question(query), self.max_message_size, signer))
        except RecordTooBig as exc:
            log.error("transfer of %s impossible: %s", zone.name, exc)
            return self.error(query, dns.rcode.SERVFAIL, tcp)
        if key is not None and self.transfers is not None:
            self.transfers.put(key, sections)
        return self._assemble(query, sections, signer)

    def _assemble(self, query: dns.message.Message, sections: Sections,
                  signer: TsigSigner | None = None) -> list[bytes]:
        """Header and question for this asker around the sections, signed per message when
        the query was."""
        flags = dns.flags.QR | dns.flags.AA | (query.flags & dns.flags.RD)
        return assemble(query.id, flags, self._question(query), sections, self.max_message_size,
                        signer or self._signer(query))

    @staticmethod
    def _question(query: dns.message.Message) -> tuple[dns.name.Name, int, int]:
        question = query.question[0]
        return question.name, question.rdtype, question.rdclass

    @staticmethod
    def _signer(query: dns.message.Message) -> TsigSigner | None:
        """A fresh signer per answer: the MAC chain starts from this query's MAC."""
        if query.had_tsig and isinstance(query.keyring, dns.tsig.Key):
            return TsigSigner(query.keyring, query.mac or b"", query.id)
        return None

    def xfr_over_udp(self, query: dns.message.Message, soa: ServedRecord) -> list[bytes]:
        """Only the SOA over UDP (RFC 1995 §2: the client retries over TCP); AXFR also sets TC.
        Also the whole answer to an IXFR from a client already up to date."""
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
        response = dns.message.make_response(query, our_payload=self.max_udp_payload)
        response.flags |= dns.flags.AA
        return response

    def error(self, query: dns.message.Message, rcode: int, tcp: bool) -> list[bytes]:
        response = dns.message.make_response(query, our_payload=self.max_udp_payload)
        response.set_rcode(rcode)
        return [self.to_wire(response, tcp)]

    def to_wire(self, response: dns.message.Message, tcp: bool) -> bytes:
        """TCP answers may use the whole message size; UDP ones min(client's, our) payload."""
        return limits.render(response, tcp, self.max_udp_payload, self.max_message_size)


def _soa_serial(soa: ServedRecord | None) -> int | None:
    if soa is None:
        return None
    try:
        return int(render_rdata(soa).serial)  # type: ignore[attr-defined]
    except Exception:
        return None
