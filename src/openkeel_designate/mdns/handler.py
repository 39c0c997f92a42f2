"""mdns request handling: parse (+ TSIG) → scope → opcode dispatch → answer.

Behaviour follows Designate's mini-DNS (spec/async.md §4): it answers only for zones in scope,
never with NXDOMAIN/NODATA (it is a transfer source, not a resolver target), and drops anything it
cannot parse or verify without a word.  Where Designate answers IXFR with a full AXFR, this one
answers incrementally from the zone's recorded history when it reaches back to the client's
serial (falling back to AXFR otherwise).  Answers to signed queries are signed, multi-message
transfers with chained TSIG.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable

import dns.flags
import dns.message
import dns.name
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.tsig

from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneHead, ZoneSource
from openkeel_designate.domain import errors
from openkeel_designate.domain.serial import serial_gt
from openkeel_designate.mdns import ixfr as incremental
from openkeel_designate.mdns.packing import (
    RecordTooBig,
    RecordWireCache,
    TsigSigner,
    pack,
    render_rdata,
    render_rrset,
    rr_wire,
)
from openkeel_designate.mdns.tsig import Keyring, Scope

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
        keyring: Keyring | None = None,
        enforce_tsig: bool = False,
        cache: RecordWireCache | None = None,
    ):
        self.source = source
        self.default_pool_id = default_pool_id
        self.max_message_size = min(max_message_size, MAX_MESSAGE_SIZE)
        self.on_notify = on_notify
        self.keyring = keyring
        self.enforce_tsig = enforce_tsig
        self.cache = cache or RecordWireCache()

    async def __call__(self, wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        query = await self.parse(wire)
        if query is None:
            return []
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
        """The query, or None for anything malformed, unverifiable (TSIG) or not a query.

        A key name not in memory triggers one (rate-limited) keyring reload and a second parse,
        so a key created a moment ago works at once."""
        if self.keyring is not None:
            await self.keyring.refresh()
        try:
            message = self._from_wire(wire)
        except dns.message.UnknownTSIGKey:
            if self.keyring is None:
                return None
            await self.keyring.refresh(force=True)
            try:
                message = self._from_wire(wire)
            except Exception:
                return None
        except Exception:
            return None
        if message.flags & dns.flags.QR:
            return None
        return message

    def _from_wire(self, wire: bytes) -> dns.message.Message:
        return dns.message.from_wire(wire, keyring=self._key)

    def _key(self, _message: dns.message.Message, name: dns.name.Name) -> dns.tsig.Key | None:
        entry = self.keyring.lookup(name) if self.keyring is not None else None
        return entry.key if entry is not None else None

    # --- scope --------------------------------------------------------------------------------
    def scope(self, query: dns.message.Message) -> Scope | None:
        """What the query may see: unsigned → the default pool (nothing when TSIG is enforced);
        a key of scope POOL → its pool, scope ZONE → its zone."""
        if not query.had_tsig:
            return None if self.enforce_tsig else Scope(self.default_pool_id)
        entry = self.keyring.lookup(query.keyname) if self.keyring is not None else None
        return entry.as_scope() if entry is not None else None

    async def find_zone(self, name: str, scope: Scope) -> ZoneHead | None:
        zone = await self.source.find_zone(name, scope.pool_id)
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
        condensed difference; otherwise (or without a serial) a full AXFR-style answer."""
        zone = await self.find_zone(query.question[0].name.canonicalize().to_text(), scope)
        if zone is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        since = incremental.requested_serial(query)
        soa = next(iter(await self.source.rrset(zone.id, zone.name, "SOA")), None)
        current = _soa_serial(soa)
        if soa is None or current is None:
            return await self.axfr(query, scope, tcp, zone)
        if since is not None and not serial_gt(current, since):
            return self.xfr_over_udp(query, soa)
        if not tcp:
            return self.xfr_over_udp(query, soa)
        if since is None:
            return await self.axfr(query, scope, tcp, zone)
        history = getattr(self.source, "zone_changes", None)
        deltas = await history(zone.id, since) if history is not None else None
        if not incremental.complete_chain(deltas, since, current):
            return await self.axfr(query, scope, tcp, zone)
        removed, added = incremental.condense(deltas or [])
        soa_wire = self.cache.wire(soa)
        old_soa_wire = _soa_wire_with_serial(self.cache, soa, since)
        if soa_wire is None or old_soa_wire is None:
            return await self.axfr(query, scope, tcp, zone)
        body = [soa_wire, old_soa_wire, *self._wires(removed), soa_wire, *self._wires(added),
                soa_wire]
        return self._pack(query, zone, body, tcp)

    async def axfr(self, query: dns.message.Message, scope: Scope, tcp: bool,
                   zone: ZoneHead | None = None) -> list[bytes]:
        """SOA, every record, SOA — split over as many messages as ``max_message_size`` needs."""
        if zone is None:
            zone = await self.find_zone(query.question[0].name.canonicalize().to_text(), scope)
        if zone is None:
            return self.error(query, dns.rcode.REFUSED, tcp)
        records = await self.source.zone_records(zone.id)
        soa = next((r for r in records if r.type == "SOA"), None)
        soa_wire = self.cache.wire(soa) if soa is not None else None
        if soa is None or soa_wire is None:
            log.error("zone %s has no servable SOA; transfer refused", zone.name)
            return self.error(query, dns.rcode.SERVFAIL, tcp)
        if not tcp:
            return self.xfr_over_udp(query, soa)
        body = [soa_wire, *self._wires(r for r in records if r.type != "SOA"), soa_wire]
        return self._pack(query, zone, body, tcp)

    def _wires(self, records) -> list[bytes]:  # noqa: ANN001 - any iterable of ServedRecord
        """Wire RRs of the records; an unrenderable stored record is left out, never fatal."""
        wire_of = self.cache.wire
        return [rr for rr in map(wire_of, records) if rr is not None]

    def _pack(self, query: dns.message.Message, zone: ZoneHead, body: list[bytes],
              tcp: bool) -> list[bytes]:
        question = query.question[0]
        flags = dns.flags.QR | dns.flags.AA | (query.flags & dns.flags.RD)
        signer = None
        if query.had_tsig and isinstance(query.keyring, dns.tsig.Key):
            signer = TsigSigner(query.keyring, query.mac or b"", query.id)
        try:
            return pack(query.id, flags, (question.name, question.rdtype, question.rdclass),
                        body, self.max_message_size, signer)
        except RecordTooBig as exc:
            log.error("transfer of %s impossible: %s", zone.name, exc)
            return self.error(query, dns.rcode.SERVFAIL, tcp)

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


def _soa_serial(soa: ServedRecord | None) -> int | None:
    if soa is None:
        return None
    try:
        return int(render_rdata(soa).serial)  # type: ignore[attr-defined]
    except Exception:
        return None


def _soa_wire_with_serial(cache: RecordWireCache, soa: ServedRecord, serial: int) -> bytes | None:
    """The SOA as it was at ``serial`` for the start of a deletion sequence (RFC 1995 §4: only
    its serial identifies the old version)."""
    try:
        rdata = render_rdata(soa).replace(serial=serial)
    except Exception:
        return None
    return rr_wire(cache.owner_wire(soa.name), soa.ttl, rdata)
