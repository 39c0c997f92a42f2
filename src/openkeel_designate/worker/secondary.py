"""Inbound transfers for SECONDARY zones: ask each master for its serial, AXFR from the first
that is newer than ours (or when never transferred), and store the result.

The masters are tried in random order, as Designate does; a failing master is skipped.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import random
import socket

import dns.rdatatype
import dns.zone

from openkeel_designate.dnswire.client import SoaStatus, axfr, query_soa
from openkeel_designate.domain.serial import serial_gt
from openkeel_designate.storage import secondary as store
from openkeel_designate.storage.database import Database

LOG = logging.getLogger(__name__)


class TransferFailed(Exception):
    """No master could be asked or transferred from."""


async def refresh(db: Database, zone_id: str, zone_name: str, serial: int,
                  transferred: bool, timeout: float) -> int:
    """The zone's serial after checking the masters (transferring when they are newer)."""
    async with db.read() as session:
        masters = await store.masters_of(session, zone_id)
    random.shuffle(masters)
    problems = []
    for host, port in masters:
        try:
            host = await _address_of(host, port)
        except OSError as exc:
            problems.append(f"master {host}:{port} does not resolve: {exc}")
            continue
        soa = await query_soa(zone_name, host, port, timeout=timeout)
        if soa.status != SoaStatus.SUCCESS:
            problems.append(f"master {host}:{port} {soa.status.value.lower()}")
            continue
        if transferred and not serial_gt(soa.serial, serial):
            return serial
        try:
            zone = await axfr(zone_name, host, port, timeout=timeout)
        except OSError as exc:
            problems.append(f"AXFR from {host}:{port}: {exc}")
            continue
        new_serial = await _store(db, zone_id, zone)
        LOG.info("zone %s transferred from %s:%s, serial %s", zone_name, host, port, new_serial)
        return new_serial
    raise TransferFailed("; ".join(problems) or "the zone has no masters")


async def _address_of(host: str, port: int) -> str:
    """Masters may be written as names (Designate resolves them); DNS clients need addresses."""
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port,
                                                             type=socket.SOCK_DGRAM)
        return infos[0][4][0]


async def _store(db: Database, zone_id: str, zone: dns.zone.Zone) -> int:
    soa_rrset = zone.find_rrset(zone.origin, dns.rdatatype.SOA)
    soa = soa_rrset[0]
    fields = {"serial": soa.serial, "refresh": soa.refresh, "retry": soa.retry,
              "expire": soa.expire, "minimum": soa.minimum, "ttl": soa_rrset.ttl}
    rrsets = []
    for name, node in zone.nodes.items():
        owner = name.derelativize(zone.origin).to_text()
        for rdataset in node.rdatasets:
            rtype = dns.rdatatype.to_text(rdataset.rdtype)
            datas = [rdata.to_text(origin=zone.origin, relativize=False) for rdata in rdataset]
            rrsets.append((owner, rtype, rdataset.ttl, datas))
    await db.transaction(lambda session: store.replace_content(session, zone_id, fields, rrsets))
    return soa.serial
