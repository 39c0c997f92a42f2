"""The built-in nameserver as a real secondary of mdns: NOTIFY, transfers, deletes, restart."""

from __future__ import annotations

import asyncio
import socket

import dns.flags
import dns.rcode
import dns.rdatatype
import pytest

from openkeel_designate.backends.base import Target, TransientBackendError, ZoneRef
from openkeel_designate.backends.builtin import BACKEND
from openkeel_designate.dnswire import client
from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.nameserver.server import BuiltinNameserver

ZONE = "example.org."


@pytest.fixture
async def nameserver(mdns, tmp_path):
    server = BuiltinNameserver([("127.0.0.1", 0)], mdns.bound, str(tmp_path))
    await server.start()
    yield server
    await server.stop()


async def notify_and_wait(ns: BuiltinNameserver) -> None:
    host, port = ns.bound[0]
    assert await client.send_notify(ZONE, host, port, timeout=2) == dns.rcode.NOERROR
    await asyncio.sleep(0)
    await ns.refresher.idle()


def records() -> list[ServedRecord]:
    return [
        ServedRecord(f"www.{ZONE}", "A", 300, "192.0.2.1"),
        ServedRecord(f"alias.{ZONE}", "CNAME", 300, f"www.{ZONE}"),
        ServedRecord(f"a.deep.{ZONE}", "TXT", 300, '"ent above me"'),
        ServedRecord(f"*.wild.{ZONE}", "A", 300, "192.0.2.7"),
        ServedRecord(f"sub.{ZONE}", "NS", 300, f"ns.sub.{ZONE}"),
        ServedRecord(f"ns.sub.{ZONE}", "A", 300, "192.0.2.53"),
    ]


async def test_notify_makes_it_serve_the_zone(mdns, source, nameserver, ask) -> None:
    source.put(ZONE, 100, records())
    await notify_and_wait(nameserver)
    response = await ask(*nameserver.bound[0], f"www.{ZONE}", "A")
    assert response.flags & dns.flags.AA
    assert response.answer[0][0].address == "192.0.2.1"
    soa = await client.query_soa(ZONE, *nameserver.bound[0], timeout=2)
    assert soa.status is client.SoaStatus.SUCCESS and soa.serial == 100


async def test_serial_bump_retransfers(mdns, source, nameserver, ask) -> None:
    source.put(ZONE, 100, records())
    await notify_and_wait(nameserver)
    source.bump(ZONE, 101, [ServedRecord(f"new.{ZONE}", "A", 300, "192.0.2.55")])
    await notify_and_wait(nameserver)
    response = await ask(*nameserver.bound[0], f"new.{ZONE}", "A")
    assert response.answer[0][0].address == "192.0.2.55"


async def test_same_serial_does_not_retransfer(mdns, source, nameserver) -> None:
    head = source.put(ZONE, 100, records())
    await notify_and_wait(nameserver)
    await notify_and_wait(nameserver)
    assert source.transfers[head.id] == 1


async def test_concurrent_notifies_are_coalesced(mdns, source, nameserver, a_records) -> None:
    head = source.put(ZONE, 100, a_records(ZONE, 3000))
    host, port = nameserver.bound[0]
    rcodes = await asyncio.gather(
        *(client.send_notify(ZONE, host, port, timeout=2) for _ in range(20)))
    assert set(rcodes) == {dns.rcode.NOERROR}
    await nameserver.refresher.idle()
    assert 1 <= source.transfers[head.id] <= 2


async def test_master_refusing_drops_the_zone(mdns, source, nameserver, ask, tmp_path) -> None:
    source.put(ZONE, 100, records())
    await notify_and_wait(nameserver)
    assert (tmp_path / "example.org.zone").exists()
    source.delete(ZONE)
    await notify_and_wait(nameserver)
    response = await ask(*nameserver.bound[0], f"www.{ZONE}", "A")
    assert response.rcode() == dns.rcode.REFUSED
    assert not (tmp_path / "example.org.zone").exists()


async def test_negative_answers_carry_the_soa(mdns, source, nameserver, ask) -> None:
    source.put(ZONE, 100, records())
    await notify_and_wait(nameserver)
    host, port = nameserver.bound[0]
    nxdomain = await ask(host, port, f"missing.{ZONE}", "A")
    assert nxdomain.rcode() == dns.rcode.NXDOMAIN and nxdomain.flags & dns.flags.AA
    assert nxdomain.authority[0].rdtype == dns.rdatatype.SOA
    assert nxdomain.authority[0].ttl == 60  # min(SOA TTL, SOA minimum)
    nodata = await ask(host, port, f"www.{ZONE}", "MX")
    assert nodata.rcode() == dns.rcode.NOERROR and not nodata.answer
    assert nodata.authority[0].rdtype == dns.rdatatype.SOA
    empty_non_terminal = await ask(host, port, f"deep.{ZONE}", "A")
    assert empty_non_terminal.rcode() == dns.rcode.NOERROR and not empty_non_terminal.answer


async def test_cname_wildcard_and_delegation(mdns, source, nameserver, ask) -> None:
    source.put(ZONE, 100, records())
    await notify_and_wait(nameserver)
    host, port = nameserver.bound[0]
    alias = await ask(host, port, f"alias.{ZONE}", "A")
    assert [rrset.rdtype for rrset in alias.answer] == [dns.rdatatype.CNAME, dns.rdatatype.A]
    wild = await ask(host, port, f"anything.wild.{ZONE}", "A")
    assert wild.answer[0].name.to_text() == f"anything.wild.{ZONE}"
    assert wild.answer[0][0].address == "192.0.2.7"
    referral = await ask(host, port, f"host.sub.{ZONE}", "A")
    assert not referral.flags & dns.flags.AA and not referral.answer
    assert referral.authority[0].rdtype == dns.rdatatype.NS
    assert referral.additional[0][0].address == "192.0.2.53"
    other = await ask(host, port, "example.net.", "A")
    assert other.rcode() == dns.rcode.REFUSED


async def test_axfr_from_the_nameserver(mdns, source, tmp_path, a_records) -> None:
    source.put(ZONE, 100, a_records(ZONE, 5000))
    async with BuiltinNameserver([("127.0.0.1", 0)], mdns.bound, str(tmp_path),
                                 allow_transfer=["127.0.0.1"]) as nameserver:
        await notify_and_wait(nameserver)
        zone = await client.axfr(ZONE, *nameserver.bound[0], timeout=5)
    assert len(zone.nodes) == 5001


async def test_restart_keeps_serving_from_data_dir(mdns, source, tmp_path, ask) -> None:
    source.put(ZONE, 100, records())
    first = BuiltinNameserver([("127.0.0.1", 0)], mdns.bound, str(tmp_path))
    await first.start()
    await notify_and_wait(first)
    await first.stop()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as dead:
        dead.bind(("127.0.0.1", 0))  # a master that never answers
        restarted = BuiltinNameserver([("127.0.0.1", 0)], [dead.getsockname()], str(tmp_path),
                                      soa_timeout=0.2)
        await restarted.start()
        try:
            response = await ask(*restarted.bound[0], f"www.{ZONE}", "A")
            assert response.answer[0][0].address == "192.0.2.1"
        finally:
            await restarted.stop()


async def test_restart_refreshes_from_the_master(mdns, source, tmp_path, ask, eventually) -> None:
    source.put(ZONE, 100, records())
    first = BuiltinNameserver([("127.0.0.1", 0)], mdns.bound, str(tmp_path))
    await first.start()
    await notify_and_wait(first)
    await first.stop()
    source.bump(ZONE, 102, [ServedRecord(f"later.{ZONE}", "A", 300, "192.0.2.102")])
    async with BuiltinNameserver([("127.0.0.1", 0)], mdns.bound, str(tmp_path)) as second:
        async def updated() -> bool:
            response = await ask(*second.bound[0], f"later.{ZONE}", "A")
            return bool(response.answer)
        await eventually(updated)


async def test_soa_refresh_interval_rechecks_without_notify(mdns, source, nameserver, ask,
                                                             eventually) -> None:
    source.put(ZONE, 100, records(), refresh=1)
    await notify_and_wait(nameserver)
    source.bump(ZONE, 101, [ServedRecord(f"quiet.{ZONE}", "A", 300, "192.0.2.77")], refresh=1)

    async def updated() -> bool:
        return bool((await ask(*nameserver.bound[0], f"quiet.{ZONE}", "A")).answer)
    await eventually(updated, timeout=4)


async def test_builtin_backend_creates_and_deletes_by_notify(mdns, source, nameserver, ask,
                                                            eventually) -> None:
    host, port = nameserver.bound[0]
    backend = BACKEND(Target(id="t1", type="builtin", masters=tuple(mdns.bound),
                             options={"host": host, "port": port}))
    zone = ZoneRef(id="z1", name=ZONE, serial=100)
    source.put(ZONE, 100, records())
    await backend.create_zone(zone)
    await backend.create_zone(zone)

    async def served() -> bool:
        return (await ask(host, port, ZONE, "SOA")).rcode() == dns.rcode.NOERROR
    await eventually(served)
    source.delete(ZONE)
    await backend.delete_zone(zone)

    async def dropped() -> bool:
        return (await ask(host, port, ZONE, "SOA")).rcode() == dns.rcode.REFUSED
    await eventually(dropped)


async def test_builtin_backend_timeout_is_transient() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        host, port = silent.getsockname()
        backend = BACKEND(Target(id="t1", type="builtin",
                                 options={"host": host, "port": port, "timeout": 0.2}))
        with pytest.raises(TransientBackendError):
            await backend.create_zone(ZoneRef(id="z1", name=ZONE))


@pytest.mark.parametrize("label", ["a" * 63, "\\007" * 40])
async def test_longest_zone_names_survive_a_restart(tmp_path, label) -> None:
    """A 253-character name (or one spelled in hex) still gets a file the system accepts."""
    import dns.name
    import dns.zone

    from openkeel_designate.nameserver.zones import ZoneStore

    name = dns.name.from_text(".".join([label] * 3 + ["b" * 61]) + ".")
    zone = dns.zone.from_text(f"@ 300 IN SOA ns1.example.net. h.example.net. 7 1 1 1 1\n"
                              f"@ 300 IN NS ns1.example.net.\n", origin=name, relativize=False)
    store = ZoneStore(str(tmp_path))
    await store.put(zone)
    [written] = list(tmp_path.iterdir())
    assert len(written.name.encode()) <= 255 - len(".tmp")
    assert ZoneStore(str(tmp_path)).load() == [name]
    assert await store.drop(name)
    assert list(tmp_path.iterdir()) == []
