"""An RRset as the signer sees it: known by its text, turned into dnspython objects only when a
signature has to be made (most RRsets of a new zone version are signed already)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import dns.name
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.rrset

NameKey = tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class RRsetData:
    """Owner as served, its ``name_key``, type, TTL and rdata texts (absolute names).

    ``build`` makes the dnspython RRset (the zone's records go through their own parser);
    without it the texts are parsed by dnspython.

    ``wires``: each rdata's wire, when it could be made without dnspython (addresses in
    their canonical text, the NSEC chain); only for types whose wire *is* their canonical
    form (no names, or NSEC's next name, which RFC 6840 §5.1 leaves as written).  The signer
    then signs these bytes directly: building dnspython objects was most of the time of a
    large zone's first signing."""

    name: str
    key: NameKey
    rdtype: int
    ttl: int
    datas: tuple[str, ...]
    build: Callable[[], dns.rrset.RRset | None] | None = field(default=None, compare=False)
    wires: tuple[bytes, ...] | None = field(default=None, compare=False)

    def rrset(self) -> dns.rrset.RRset | None:
        if self.build is not None:
            return self.build()
        rrset = dns.rrset.RRset(dns.name.from_text(self.name), dns.rdataclass.IN, self.rdtype)
        rrset.update_ttl(self.ttl)
        for text in self.datas:
            rrset.add(dns.rdata.from_text(dns.rdataclass.IN, self.rdtype, text))
        return rrset


@dataclass(frozen=True, slots=True)
class SignedRecord:
    """One record the signer adds (DNSKEY, CDS, CDNSKEY, NSEC3PARAM, NSEC/NSEC3, RRSIG): its
    rdata as text and as uncompressed wire, ready to serve."""

    name: str
    rdtype: int
    ttl: int
    data: str
    wire: bytes
