"""Zone text ↔ the signer's RRsets, for the DNSSEC signer tests."""

from __future__ import annotations

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset
import dns.zone

from openkeel_designate.domain.dnssec import keys as dkeys
from openkeel_designate.domain.dnssec.chain import name_key
from openkeel_designate.domain.dnssec.rrsets import RRsetData, SignedRecord


def rrsets_of_text(text: str, origin: str) -> list[RRsetData]:
    zone = dns.zone.from_text(text, origin, relativize=False)
    return [RRsetData(name.to_text(), name_key(name.to_text()), rds.rdtype, rds.ttl,
                      tuple(rd.to_text() for rd in rds))
            for name, rds in zone.iterate_rdatasets()]


def as_rrsets(unsigned: list[RRsetData], added: list[SignedRecord]) -> list[dns.rrset.RRset]:
    """The signed zone as dnspython RRsets: the zone's own plus what signing added."""
    grouped: dict[tuple, dns.rrset.RRset] = {}
    rows = [(r.name, r.rdtype, r.ttl, d) for r in unsigned for d in r.datas]
    rows += [(r.name, r.rdtype, r.ttl, r.data) for r in added]
    for name, rdtype, ttl, text in rows:
        rdata = dns.rdata.from_text(dns.rdataclass.IN, rdtype, text)
        owner = dns.name.from_text(name)
        key = (owner, rdtype, rdata.covers())
        if key not in grouped:
            grouped[key] = dns.rrset.RRset(owner, dns.rdataclass.IN, rdtype, rdata.covers())
            grouped[key].update_ttl(ttl)
        grouped[key].add(rdata)
    return list(grouped.values())


def make_keys(algorithm: str, flags: tuple[int, ...] = (dkeys.SEP_FLAGS, dkeys.ZONE_FLAGS)
              ) -> list[dkeys.SigningKey]:
    made = []
    for flag in flags:
        private = dkeys.generate(algorithm)
        made.append(dkeys.SigningKey(private, dkeys.dnskey_of(private, algorithm, flag)))
    return made
