"""Fixtures for the DNS tests: an in-memory ZoneSource and servers on free loopback ports."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import dns.asyncquery
import dns.message
import pytest

from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneHead
from openkeel_designate.mdns.server import MdnsServer

POOL = "794ccc2c-d751-44fe-b57f-8894c9f5c842"


class MemorySource:
    """A ZoneSource over dicts; counts full-zone reads so tests can count transfers."""

    def __init__(self) -> None:
        self.heads: dict[str, ZoneHead] = {}
        self.records: dict[str, list[ServedRecord]] = {}
        self.transfers: dict[str, int] = {}

    def put(self, name: str, serial: int, records: list[ServedRecord] | None = None,
            *, pool_id: str = POOL, refresh: int = 3600, ttl: int = 300) -> ZoneHead:
        zone_id = f"id-{name}"
        head = ZoneHead(id=zone_id, name=name, pool_id=pool_id, serial=serial, ttl=ttl)
        self.heads[name] = head
        soa = ServedRecord(name, "SOA", ttl,
                           f"ns1.{name} hostmaster.{name} {serial} {refresh} 1 604800 60")
        ns = ServedRecord(name, "NS", ttl, f"ns1.{name}")
        self.records[zone_id] = [soa, ns, *(records or [])]
        return head

    def bump(self, name: str, serial: int, records: list[ServedRecord] | None = None,
             refresh: int = 3600) -> None:
        head = self.heads[name]
        kept = [r for r in self.records[head.id] if r.type not in ("SOA", "NS")]
        self.put(name, serial, kept + (records or []), pool_id=head.pool_id, refresh=refresh)

    def delete(self, name: str) -> None:
        head = self.heads.pop(name)
        self.records.pop(head.id)

    async def find_zone(self, name: str, pool_id: str | None) -> ZoneHead | None:
        head = self.heads.get(name)
        if head is None or (pool_id is not None and head.pool_id != pool_id):
            return None
        return head

    async def zone_records(self, zone_id: str) -> list[ServedRecord]:
        self.transfers[zone_id] = self.transfers.get(zone_id, 0) + 1
        return list(self.records.get(zone_id, []))

    async def rrset(self, zone_id: str, name: str, rtype: str) -> list[ServedRecord]:
        return [r for r in self.records.get(zone_id, []) if r.name == name and r.type == rtype]


def _a_records(zone: str, count: int, prefix: str = "host") -> list[ServedRecord]:
    def address(i: int) -> str:
        return f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"

    return [ServedRecord(f"{prefix}{i}.{zone}", "A", 300, address(i)) for i in range(count)]


async def _ask(host: str, port: int, name: str, rdtype: str, *, tcp: bool = False,
              timeout: float = 2.0) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype)
    if tcp:
        return await dns.asyncquery.tcp(query, host, timeout=timeout, port=port)
    return await dns.asyncquery.udp(query, host, timeout=timeout, port=port)


async def _eventually(check: Callable[[], Awaitable[bool]], timeout: float = 5.0) -> None:
    """Poll ``check`` until true; propagation is asynchronous by design."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def pool_id() -> str:
    """The default pool mdns serves unsigned queries from."""
    return POOL


@pytest.fixture
def source() -> MemorySource:
    return MemorySource()


@pytest.fixture
async def mdns(source: MemorySource) -> AsyncIterator[MdnsServer]:
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL)
    await server.start()
    yield server
    await server.stop()



@pytest.fixture
def a_records() -> Callable[..., list[ServedRecord]]:
    """``a_records(zone, count)``: that many distinct A records in the zone."""
    return _a_records


@pytest.fixture
def ask() -> Callable[..., Awaitable[dns.message.Message]]:
    """``await ask(host, port, name, type, tcp=False)``: one query, the parsed answer."""
    return _ask


@pytest.fixture
def eventually() -> Callable[..., Awaitable[None]]:
    """``await eventually(async_check, timeout)``: poll until the check holds."""
    return _eventually
