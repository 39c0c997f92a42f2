"""Signing one zone, as it runs in a worker process of ``offload.py`` (sent there by
``mdns/signing.py``).

Signing a zone for the first time is seconds of CPU (~15 s for 100,000 A records, 6 s of it
OpenSSL's ECDSA; the rest is Python: the records of the common types, addresses and the NSEC
chain, are signed from their wire, ``RRsetData.wires``, without dnspython objects);
in a thread of the serving process it would hold the GIL against the event loop that answers
every tenant's DNS and API, so mdns runs ``sign`` in the offload pool instead.  Everything
here is module state of the worker process:

* ``_cache``: every signature made here (``domain/dnssec.SignatureCache``).  mdns sends all
  jobs of a zone to the same worker (``offload.run(..., affinity=zone_id)``), so a new
  version of a zone finds its signatures here and signs only what changed.  Shipping the
  cache between processes instead would cost pickling a few MB per version of a 5,000-record
  zone; kept here, only the records travel.  A new worker starts with an empty cache: the
  zone is then signed in full once, never wrongly.
* ``_opened``: the zone keys opened here, so a key is unsealed once per worker, not per
  version.
* ``_versions``: the last few signed versions, whole (by their exact input): an IXFR right
  after the AXFR of a new version (a secondary's usual sequence: NOTIFY, SOA, IXFR) finds
  that version signed and only re-signs the older one from ``_cache``.

Signatures depend only on the RRsets, the keys and the zone's signing epoch
(``domain/dnssec/sign.py``), so a cold worker, another worker or another mdns process makes
exactly the same records as this one.  ``difference`` signs two versions of a zone with the same
epoch and returns only what differs in their DNSSEC records (an IXFR of a signed zone): the
older version costs little here, its unchanged RRsets being in the cache, and only the
difference travels back, not two signed zones.

The private keys arrive sealed (AES-GCM, ``domain/dnssec/keys.py``) together with the
key-encryption key that opens them; both travel only through the pool's local pipe, in the
memory of the two processes, as the opened keys lived in the serving process before.  The
arguments and the result are plain tuples: they pickle several times faster than the
records' dataclasses, and the pickling happens in the serving process.
"""

from __future__ import annotations

import functools
import os
import socket
from collections import OrderedDict
import time
from typing import NamedTuple

import dns.name
import dns.rdataclass
import dns.rdatatype
import dns.rrset

from openkeel_designate.dnswire.zonedata import SealedKey, ServedRecord
from openkeel_designate.domain.dnssec import keys as dnssec_keys
from openkeel_designate.domain.dnssec.chain import name_key, type_text
from openkeel_designate.domain.dnssec.rrsets import RRsetData
from openkeel_designate.domain.dnssec.sign import SignatureCache, sign_zone
from openkeel_designate.mdns.packing import render_rdata

Record = tuple[str, str, int, str]  # owner, type mnemonic, TTL, rdata text: a stored record
Made = tuple[str, str, int, str, bytes]  # … and the rdata's wire: a record signing added

_OPENED_MAX = 10_000
_VERSIONS_MAX = 4
# … and at most this many records in them together (the newest is always kept): a version
# of a 100,000-record zone is ~50 MB here (its records as the key, 300,000 made records),
# four of them were most of an idle worker's memory
_VERSIONS_RECORDS = 250_000
_cache = SignatureCache()
_versions: OrderedDict[tuple, tuple[list["Made"], int]] = OrderedDict()
_opened: dict[tuple[str, str], dnssec_keys.SigningKey] = {}


class Signed(NamedTuple):
    """What signing added, how many signatures it made (the rest came from this worker's
    cache), how long it took there, and which process did it."""

    records: list[Made]
    fresh_signatures: int
    seconds: float
    pid: int


class Difference(NamedTuple):
    """The DNSSEC records one version has and the other has not, both ways."""

    removed: list[Made]
    added: list[Made]
    fresh_signatures: int
    seconds: float
    pid: int


def sign(zone_id: str, records: list[Record], kek: bytes, keys: tuple[SealedKey, ...],
         nsec3: bool, epoch: int, delete_ds: bool = False) -> Signed:
    """The DNSSEC records of the zone (``records``: its own, SOA included, none of DNSSEC)."""
    start = time.perf_counter()
    made, fresh = _signed(zone_id, records, kek, keys, nsec3, epoch, delete_ds)
    return Signed(made, fresh, time.perf_counter() - start, os.getpid())


def difference(zone_id: str, old: list[Record], new: list[Record], kek: bytes,
               keys: tuple[SealedKey, ...], nsec3: bool, epoch: int, delete_ds: bool = False
               ) -> Difference:
    """The DNSSEC records of version ``old`` not in version ``new`` and the reverse (each a
    zone's own records, SOA included), both signed with the same keys and epoch."""
    start = time.perf_counter()
    before, fresh_before = _signed(zone_id, old, kek, keys, nsec3, epoch, delete_ds)
    after, fresh_after = _signed(zone_id, new, kek, keys, nsec3, epoch, delete_ds)
    old_set = {_identity(m): m for m in before}
    new_set = {_identity(m): m for m in after}
    removed = [m for k, m in old_set.items() if k not in new_set]
    added = [m for k, m in new_set.items() if k not in old_set]
    return Difference(removed, added, fresh_before + fresh_after, time.perf_counter() - start,
                      os.getpid())


def _identity(made: Made) -> tuple:
    """A record as a transfer client tells records apart: folded owner, type, TTL, rdata."""
    return made[0].lower(), made[1], made[2], made[4] or made[3]


def _signed(zone_id: str, records: list[Record], kek: bytes, keys: tuple[SealedKey, ...],
            nsec3: bool, epoch: int, delete_ds: bool) -> tuple[list[Made], int]:
    """The version's DNSSEC records and how many signatures were made for them (0 when the
    whole version was signed here already).  The records are sorted first: what is made, and
    in which order, depends on the version only, not on the order the database returned it
    in or the IXFR rebuilt it in."""
    records = sorted(records)
    version = (zone_id, tuple(records), keys, nsec3, epoch, delete_ds)
    kept = _versions.get(version)
    if kept is not None:
        _versions.move_to_end(version)
        return kept[0], 0
    made = _sign_version(zone_id, records, kek, keys, nsec3, epoch, delete_ds)
    _versions[version] = made
    while len(_versions) > 1 and (len(_versions) > _VERSIONS_MAX or sum(
            len(key[1]) + len(kept[0]) for key, kept in _versions.items()) > _VERSIONS_RECORDS):
        _versions.popitem(last=False)
    return made


def _sign_version(zone_id: str, records: list[Record], kek: bytes,
                  keys: tuple[SealedKey, ...], nsec3: bool, epoch: int, delete_ds: bool
                  ) -> tuple[list[Made], int]:
    served = [ServedRecord(*record) for record in records]
    soa = next(r for r in served if r.type == "SOA")
    opened = [_open(kek, zone_id, key) for key in keys]
    signed = sign_zone(soa.name, rrsets_of(served), opened, nsec3, _cache, epoch, delete_ds)
    made = [(r.name, type_text(r.rdtype), r.ttl, r.data, r.wire)
            for r in signed.records]
    return made, signed.fresh_signatures


def _open(kek: bytes, zone_id: str, key: SealedKey) -> dnssec_keys.SigningKey:
    opened = _opened.get((zone_id, key.sealed))
    if opened is None:
        if len(_opened) > _OPENED_MAX:
            _opened.clear()
        opened = dnssec_keys.open_key(kek, key.sealed, zone_id, key.flags, key.algorithm)
        _opened[(zone_id, key.sealed)] = opened
    return opened


def rrsets_of(records: list[ServedRecord]) -> list[RRsetData]:
    """The records as RRsets (one per folded owner name and type, as served), by their text;
    each is parsed only if it has to be signed."""
    grouped: dict[tuple[str, str], list[ServedRecord]] = {}
    for record in records:
        grouped.setdefault((record.name.lower(), record.type), []).append(record)
    keys: dict[str, tuple] = {}
    rrsets = []
    for (owner, rtype), members in grouped.items():
        key = keys.get(owner)
        if key is None:
            key = keys[owner] = name_key(members[0].name)
        rrsets.append(RRsetData(members[0].name, key, _type_code(rtype), members[0].ttl,
                                tuple(m.data for m in members),
                                functools.partial(_render, members), _address_wires(members)))
    return rrsets


_FAMILIES = {"A": socket.AF_INET, "AAAA": socket.AF_INET6}


def _address_wires(records: list[ServedRecord]) -> tuple[bytes, ...] | None:
    """The rdata wires of an A or AAAA RRset written in canonical text (what most of a large
    zone is), so that signing it parses nothing; None for anything else (dnspython then)."""
    family = _FAMILIES.get(records[0].type)
    if family is None:
        return None
    wires = []
    for record in records:
        try:
            packed = socket.inet_pton(family, record.data)
        except (OSError, ValueError):
            return None
        if socket.inet_ntop(family, packed) != record.data:
            return None  # e.g. leading zeros: dnspython's reading decides
        wires.append(packed)
    return tuple(wires)


@functools.lru_cache(maxsize=256)
def _type_code(rtype: str) -> int:
    return dns.rdatatype.from_text(rtype)


def _render(records: list[ServedRecord]) -> dns.rrset.RRset | None:
    """The dnspython RRset of stored records; one that cannot be rendered is left out (the
    transfer leaves it out too)."""
    rrset: dns.rrset.RRset | None = None
    for record in records:
        try:
            rdata = render_rdata(record)
        except Exception:
            continue
        if rrset is None:
            rrset = dns.rrset.RRset(dns.name.from_text(record.name), dns.rdataclass.IN,
                                    rdata.rdtype)
            rrset.update_ttl(record.ttl)
        rrset.add(rdata)
    return rrset
