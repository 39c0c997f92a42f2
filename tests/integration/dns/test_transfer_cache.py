"""mdns's transfer cache: a zone version is read and rendered once, and never served stale."""

from __future__ import annotations

import base64

import dns.asyncquery
import dns.message
import dns.name
import dns.rdatatype
import dns.xfr
import dns.zone
import pytest

from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.mdns.server import MdnsServer
from openkeel_designate.dnswire.tsig import StaticKeyring, make_entry

POOL = "794ccc2c-d751-44fe-b57f-8894c9f5c842"  # the in-memory source's default pool (conftest)
SECRET = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
ZONE = "cached.example."
ZONE_ID = f"id-{ZONE}"


@pytest.fixture
async def cached_mdns(source):
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, max_message_size=4096,
                        transfer_cache_bytes=4 * 1024 * 1024)
    async with server:
        yield server


async def axfr(server: MdnsServer, qname: str = ZONE, keyring=None) -> dns.zone.Zone:  # noqa: ANN001
    host, port = server.bound[0]
    zone = dns.zone.Zone(qname, relativize=False)
    query, _ = dns.xfr.make_query(zone, serial=None, keyring=keyring)
    await dns.asyncquery.inbound_xfr(host, zone, query, port=port, timeout=10)
    return zone


def addresses(zone: dns.zone.Zone, owner: str) -> list[str]:
    rdataset = zone.get_rdataset(owner, "A")
    return sorted(r.address for r in rdataset) if rdataset else []


async def test_same_serial_is_read_once(source, cached_mdns, a_records) -> None:
    source.put(ZONE, 5, a_records(ZONE, 2000))
    first = await axfr(cached_mdns)
    second = await axfr(cached_mdns)
    assert source.transfers[ZONE_ID] == 1
    assert first == second
    assert len(list(second.iterate_rdatas("A"))) == 2000


async def test_a_new_serial_is_never_served_from_the_old_one(source, cached_mdns,
                                                             a_records) -> None:
    source.put(ZONE, 5, a_records(ZONE, 500))
    await axfr(cached_mdns)
    source.bump(ZONE, 6, [ServedRecord(f"new.{ZONE}", "A", 300, "192.0.2.66")])
    zone = await axfr(cached_mdns)
    assert zone.get_soa().serial == 6
    assert addresses(zone, f"new.{ZONE}") == ["192.0.2.66"]
    assert source.transfers[ZONE_ID] == 2


async def test_soa_change_without_serial_change_is_another_version(source, cached_mdns) -> None:
    """The key is the whole SOA, not the serial alone (e.g. a new refresh interval)."""
    source.put(ZONE, 5, refresh=3600)
    await axfr(cached_mdns)
    source.bump(ZONE, 5, refresh=1200)
    assert (await axfr(cached_mdns)).get_soa().refresh == 1200


async def test_question_case_is_echoed_and_owners_point_to_it(source, cached_mdns) -> None:
    source.put(ZONE, 5, [ServedRecord(f"WWW.{ZONE}", "A", 300, "192.0.2.1"),
                         ServedRecord(f"a.b.{ZONE}", "AAAA", 300, "2001:db8::1")])
    await axfr(cached_mdns)
    host, port = cached_mdns.bound[0]
    query = dns.message.make_query("CACHED.Example.", "AXFR")
    answer = await dns.asyncquery.tcp(query, host, port=port, timeout=5)
    assert str(answer.question[0].name) == "CACHED.Example."
    owners = {(rrset.name, rrset.rdtype) for rrset in answer.answer}
    assert (dns.name.from_text(f"www.{ZONE}"), dns.rdatatype.A) in owners
    assert (dns.name.from_text(f"a.b.{ZONE}"), dns.rdatatype.AAAA) in owners
    assert source.transfers[ZONE_ID] == 1


async def test_signed_transfers_from_the_cache_verify_for_each_key(source, a_records) -> None:
    """The cache holds unsigned sections: each asker's messages are signed for its own query."""
    entries = [make_entry(f"key{i}.", "hmac-sha256", SECRET, "POOL", POOL) for i in (1, 2)]
    source.put(ZONE, 9, a_records(ZONE, 3000))
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, max_message_size=4096,
                        keyring=StaticKeyring(entries), transfer_cache_bytes=4 * 1024 * 1024)
    async with server:
        unsigned = await axfr(server)
        for entry in entries:  # inbound_xfr verifies every message's chained TSIG
            zone = await axfr(server, keyring=entry.key)
            assert zone == unsigned
    # Signed messages leave room for the signature: one rendering unsigned, one for both keys.
    assert source.transfers[ZONE_ID] == 2


async def test_a_transfer_larger_than_the_cache_is_served_not_kept(source, a_records) -> None:
    source.put(ZONE, 5, a_records(ZONE, 3000))
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, transfer_cache_bytes=10_000)
    async with server:
        for _ in range(2):
            assert len(list((await axfr(server)).iterate_rdatas("A"))) == 3000
    assert source.transfers[ZONE_ID] == 2
    assert len(server.transfers) == 0


async def test_concurrent_transfers_of_one_version_read_and_render_it_once(
        source, cached_mdns, a_records) -> None:
    """Every nameserver of a pool pulls a new serial at the same moment: the second asker
    waits for the first one's rendering instead of reading and rendering (signing) again."""
    import asyncio

    source.put(ZONE, 5, a_records(ZONE, 3000))
    read = source.zone_records

    async def slow_read(zone_id: str) -> list[ServedRecord]:
        await asyncio.sleep(0.2)  # as signing takes: the other askers arrive meanwhile
        return await read(zone_id)

    source.zone_records = slow_read
    zones = await asyncio.gather(*(axfr(cached_mdns) for _ in range(3)))
    assert source.transfers[ZONE_ID] == 1
    assert zones[0] == zones[1] == zones[2]
    assert len(list(zones[2].iterate_rdatas("A"))) == 3000
