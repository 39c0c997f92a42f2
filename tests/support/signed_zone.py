"""Zones signed by BIND's own tools, and a minimal primary that hands them out by AXFR.

``sign(...)`` runs ``dnssec-keygen`` (a KSK and a ZSK) and ``dnssec-signzone`` on a zone text,
so tests check our answers against signatures and NSEC/NSEC3 chains made by a real signer, and
``delv`` can validate them from the trust anchor file written next to them.  ``Primary`` serves
the signed zone's SOA and AXFR on a free loopback port, so the nameserver under test receives it
exactly as it receives zones from mdns.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdatatype
import dns.rrset
import dns.zone

from openkeel_designate.mdns.transport import DnsListener

TOOLS = ("dnssec-keygen", "dnssec-signzone")


def available() -> bool:
    return all(shutil.which(tool) for tool in TOOLS)


@dataclass(frozen=True)
class SignedZone:
    origin: dns.name.Name
    path: Path  # the signed zone file
    anchors: Path  # a delv trust-anchors file holding the KSK
    zone: dns.zone.Zone
    ds: str  # the DS records of the KSK, as zone text lines for the parent


def sign(directory: Path, origin: str, body: str, *, algorithm: str = "ECDSAP256SHA256",
         nsec3: bool = False, optout: bool = False, salt: str = "-",
         iterations: int = 0) -> SignedZone:
    """Sign ``body`` (zone text relative to ``origin``); NSEC3 by default without salt or extra
    iterations (RFC 9276), and with ``optout`` no NSEC3 for unsigned delegations."""
    directory.mkdir(parents=True, exist_ok=True)
    unsigned = directory / f"{origin}zone"
    unsigned.write_text(f"$ORIGIN {origin}\n$TTL 300\n{body}")
    _run("dnssec-keygen", "-q", "-K", directory, "-a", algorithm, "-f", "KSK", origin)
    _run("dnssec-keygen", "-q", "-K", directory, "-a", algorithm, origin)
    signed = directory / f"{origin}signed"
    chain = (["-3", salt, "-H", iterations] if nsec3 or optout else []) + (["-A"] * optout)
    _run("dnssec-signzone", "-q", "-S", "-K", directory, "-d", directory, *chain, "-o", origin,
         "-f", signed, unsigned)
    zone = dns.zone.from_file(str(signed), origin=origin, relativize=False)
    anchors = directory / f"{origin}anchors"
    anchors.write_text(_anchors(zone))
    ds = (directory / f"dsset-{origin}").read_text()
    return SignedZone(zone.origin, signed, anchors, zone, ds)


def _anchors(zone: dns.zone.Zone) -> str:
    keys = zone.get_rdataset(zone.origin, dns.rdatatype.DNSKEY)
    lines = [f'  {zone.origin} static-key {key.flags} {key.protocol} {key.algorithm} '
             f'"{base64.b64encode(key.key).decode()}";' for key in keys if key.flags & 1]
    return "trust-anchors {\n" + "\n".join(lines) + "\n};\n"


def _run(*args: object) -> None:
    subprocess.run([str(arg) for arg in args], check=True, capture_output=True, timeout=60)


class Primary:
    """SOA and AXFR of some zones on 127.0.0.1, port 0: ``async with Primary(zone) as p:``;
    ``zones`` may be replaced (a new version) while it runs."""

    def __init__(self, *zones: dns.zone.Zone, per_message: int = 50):
        self.zones = {zone.origin: zone for zone in zones}
        self.per_message = per_message
        self.listener = DnsListener([("127.0.0.1", 0)], self.handle, name="test-primary")

    @property
    def bound(self) -> list[tuple[str, int]]:
        return self.listener.bound

    async def __aenter__(self) -> Primary:
        await self.listener.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.listener.stop()

    async def handle(self, wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        query = dns.message.from_wire(wire)
        question = query.question[0]
        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        zone = self.zones.get(question.name)
        if zone is None:
            response.set_rcode(dns.rcode.REFUSED)
            return [response.to_wire()]
        if question.rdtype == dns.rdatatype.SOA:
            response.answer.append(self._soa(zone))
            return [response.to_wire()]
        if question.rdtype != dns.rdatatype.AXFR or not tcp:
            response.set_rcode(dns.rcode.REFUSED)
            return [response.to_wire()]
        return self._axfr(query, zone)

    def _soa(self, zone: dns.zone.Zone) -> dns.rrset.RRset:
        return self._rrset(zone.origin, zone.get_rdataset(zone.origin, dns.rdatatype.SOA))

    def _axfr(self, query: dns.message.Message, zone: dns.zone.Zone) -> list[bytes]:
        rrsets = [self._soa(zone)]
        for name, rdataset in zone.iterate_rdatasets():
            if not (name == zone.origin and rdataset.rdtype == dns.rdatatype.SOA):
                rrsets.append(self._rrset(name, rdataset))
        rrsets.append(self._soa(zone))
        wires = []
        for start in range(0, len(rrsets), self.per_message):
            message = dns.message.make_response(query)
            message.flags |= dns.flags.AA
            message.answer = rrsets[start:start + self.per_message]
            wires.append(message.to_wire(max_size=65535))
        return wires

    @staticmethod
    def _rrset(name: dns.name.Name, rdataset) -> dns.rrset.RRset:
        rrset = dns.rrset.RRset(name, rdataset.rdclass, rdataset.rdtype, rdataset.covers)
        rrset.update(rdataset)
        return rrset


# A zone with one of each case a validator has to be convinced of: names of many types, a
# CNAME, an empty non-terminal (deep), a wildcard, a delegation with DS and one without, and an
# RRset (big) that fits 512 bytes alone but not with its RRSIG.
EXAMPLE_BODY = """@ SOA ns1 hostmaster 1 3600 600 604800 60
@ NS ns1
ns1 A 192.0.2.53
www A 192.0.2.1
www AAAA 2001:db8::1
@ MX 10 mail
mail A 192.0.2.25
txt TXT "hello world"
_sip._tcp SRV 10 5 5060 sip
sip A 192.0.2.5
@ CAA 0 issue "ca.example.net"
alias CNAME www
dangling CNAME nothing
*.wild A 192.0.2.7
a.deep TXT "ent above"
big TXT "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
big TXT "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
big TXT "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
big TXT "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
secure NS ns.secure
ns.secure A 192.0.2.54
secure DS 12345 13 2 0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF
insecure NS ns.insecure
ns.insecure A 192.0.2.55
"""
