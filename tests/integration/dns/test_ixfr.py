"""Incremental zone transfer: mdns answers IXFR from the zone's history (RFC 1995), real clients
(dnspython's inbound IXFR, dig) apply it, and the built-in nameserver follows by IXFR."""

from __future__ import annotations

import asyncio
import subprocess
import time

import dns.asyncquery
import dns.flags
import dns.message
import dns.query
import dns.rdataset
import dns.rdatatype
import dns.rrset
import dns.xfr
import dns.zone
import httpx
import pytest

from openkeel_designate.dnswire import client
from openkeel_designate.dnswire.zonedata import ServedRecord, ZoneDelta
from openkeel_designate.mdns.server import MdnsServer
from support.server import ServerProcess, builtin_pool

from conftest import POOL, MemorySource  # type: ignore[import-not-found]

ZONE = "ixfr.example."


class HistorySource(MemorySource):
    """MemorySource plus recorded deltas, as SqlZoneSource keeps them in zone_changes."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[ZoneDelta]] = {}

    def change(self, name: str, serial: int, *, add=(), remove=()) -> None:
        head = self.heads[name]
        kept = [r for r in self.records[head.id]
                if r.type not in ("SOA", "NS") and r not in set(remove)]
        self.history.setdefault(head.id, []).append(
            ZoneDelta(head.serial, serial, tuple(remove), tuple(add)))
        self.put(name, serial, kept + list(add), pool_id=head.pool_id)

    async def zone_changes(self, zone_id: str, since_serial: int) -> list[ZoneDelta] | None:
        deltas = self.history.get(zone_id, [])
        start = next((i for i, d in enumerate(deltas) if d.from_serial == since_serial), None)
        return None if start is None else deltas[start:]


def a(label: str, address: str = "192.0.2.1") -> ServedRecord:
    return ServedRecord(f"{label}.{ZONE}", "A", 300, address)


@pytest.fixture
async def history_mdns():
    source = HistorySource()
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, max_message_size=1024)
    async with server:
        yield source, server


def serial_of(zone: dns.zone.Zone) -> int:
    return zone.get_rdataset(zone.origin, "SOA")[0].serial


async def transfer(server: MdnsServer, serial: int) -> list[dns.message.Message]:
    query = dns.message.make_query(ZONE, "IXFR")
    query.authority.append(dns.rrset.from_text(ZONE, 0, "IN", "SOA", f". . {serial} 0 0 0 0"))
    answers = await server.handler(query.to_wire(), ("127.0.0.1", 1), True)
    return [dns.message.from_wire(w, one_rr_per_rrset=True, xfr=True) for w in answers]


async def test_ixfr_answers_the_condensed_difference(history_mdns, a_records) -> None:
    source, server = history_mdns
    source.put(ZONE, 1, a_records(ZONE, 300))
    host, port = server.bound[0]
    secondary = await client.axfr(ZONE, host, port)
    source.change(ZONE, 2, add=[a("new1")], remove=[a_records(ZONE, 1)[0]])
    source.change(ZONE, 3, add=[a("new2")], remove=[a("new1")])
    messages = await transfer(server, 1)
    rrs = [(rrset.name.to_text(), dns.rdatatype.to_text(rrset.rdtype)) for m in messages
           for rrset in m.answer]
    # new SOA, old SOA, the one net removal, new SOA, the one net addition, new SOA
    assert rrs == [(ZONE, "SOA"), (ZONE, "SOA"), (f"host0.{ZONE}", "A"), (ZONE, "SOA"),
                   (f"new2.{ZONE}", "A"), (ZONE, "SOA")]
    assert len(messages) == 1
    before = set(secondary.iterate_rdatas())
    updated = await client.ixfr(secondary, host, port)
    assert serial_of(updated) == 3
    expected = await client.axfr(ZONE, host, port)
    assert updated == expected
    assert set(secondary.iterate_rdatas()) == before  # the served version is never changed


async def test_large_difference_spans_messages(history_mdns, a_records) -> None:
    source, server = history_mdns
    source.put(ZONE, 1, [])
    host, port = server.bound[0]
    secondary = await client.axfr(ZONE, host, port)
    source.change(ZONE, 2, add=a_records(ZONE, 500))
    assert len(await transfer(server, 1)) > 5
    updated = await client.ixfr(secondary, host, port)
    assert serial_of(updated) == 2
    assert len(list(updated.iterate_rdatas("A"))) == 500


async def test_gap_in_history_falls_back_to_axfr(history_mdns, a_records) -> None:
    source, server = history_mdns
    source.put(ZONE, 1, a_records(ZONE, 10))
    source.bump(ZONE, 2, [a("untracked")])  # no history for 1 → 2
    source.change(ZONE, 3, add=[a("tracked")])
    host, port = server.bound[0]
    messages = await transfer(server, 1)
    assert sum(len(m.answer) for m in messages) == 10 + 1 + 2 + 2  # A's, NS, 2 new, 2 SOA: an AXFR
    old = dns.zone.Zone(ZONE, relativize=False)
    old.replace_rdataset(ZONE, dns.rdataset.from_text("IN", "SOA", 300, "a. b. 1 1 1 1 1"))
    updated = await client.ixfr(old, host, port)
    assert serial_of(updated) == 3
    assert updated.get_rdataset(f"tracked.{ZONE}", "A") is not None


async def test_up_to_date_client_gets_the_soa_alone(history_mdns) -> None:
    source, server = history_mdns
    source.put(ZONE, 5, [])
    for serial in (5, 4):
        messages = await transfer(server, serial if serial == 5 else 6)
        assert [len(m.answer) for m in messages] == [1]
        assert messages[0].answer[0][0].serial == 5


async def test_malformed_record_in_history_is_skipped(history_mdns) -> None:
    source, server = history_mdns
    source.put(ZONE, 1, [a("keep")])
    host, port = server.bound[0]
    secondary = await client.axfr(ZONE, host, port)
    broken = ServedRecord(f"bad.{ZONE}", "A", 300, "not-an-address")
    source.change(ZONE, 2, add=[broken, a("good")])
    updated = await client.ixfr(secondary, host, port)
    assert serial_of(updated) == 2
    assert updated.get_rdataset(f"good.{ZONE}", "A") is not None
    assert updated.get_node(f"bad.{ZONE}") is None


async def test_ixfr_over_udp_sends_a_difference_that_fits(history_mdns, a_records) -> None:
    """RFC 1995 §2: the difference over UDP when it fits one datagram; dnspython applies it."""
    source, server = history_mdns
    source.put(ZONE, 1, [a("keep")])
    host, port = server.bound[0]
    secondary = await client.axfr(ZONE, host, port)
    source.change(ZONE, 2, add=[a("x")], remove=[a("keep")])
    query, _ = dns.xfr.make_query(secondary, use_edns=0, payload=1232)
    wire = (await server.handler(query.to_wire(), ("127.0.0.1", 1), False))[0]
    answer = dns.message.from_wire(wire, one_rr_per_rrset=True, xfr=True)
    assert [dns.rdatatype.to_text(r.rdtype) for r in answer.answer] == [
        "SOA", "SOA", "A", "SOA", "A", "SOA"]
    assert len(wire) <= 1232 and answer.edns == 0
    await asyncio.to_thread(dns.query.inbound_xfr, host, secondary, port=port, timeout=2,
                            udp_mode=dns.query.UDPMode.ONLY)
    assert secondary.get_rdataset(f"x.{ZONE}", "A") is not None
    assert secondary.get_node(f"keep.{ZONE}") is None


async def test_ixfr_over_udp_too_large_gets_the_soa(history_mdns, a_records) -> None:
    source, server = history_mdns
    source.put(ZONE, 1, [])
    source.change(ZONE, 2, add=a_records(ZONE, 200))
    for payload in (None, 4096):  # 512 without EDNS; 1232 (ours) with a 4096 client
        query = dns.message.make_query(ZONE, "IXFR", use_edns=0 if payload else None,
                                       payload=payload or 1232)
        query.authority.append(dns.rrset.from_text(ZONE, 0, "IN", "SOA", ". . 1 0 0 0 0"))
        host, port = server.bound[0]
        answer = await dns.asyncquery.udp(query, host, port=port, timeout=2)
        assert [r.rdtype for r in answer.answer] == [dns.rdatatype.SOA]
        assert answer.answer[0][0].serial == 2 and not answer.flags & dns.flags.TC
    assert source.transfers.get(f"id-{ZONE}", 0) == 0  # the zone itself was never read


# --- against the real server and its database ---------------------------------------------------
def wait_active(http: httpx.Client, url: str, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = http.get(url).json()
        if body.get("status") == "ACTIVE":
            return body
        time.sleep(0.02)
    raise AssertionError(f"{url} not ACTIVE: {body}")


@pytest.mark.integration
def test_ixfr_from_the_database_with_dnspython_dig_and_the_builtin_nameserver() -> None:
    with ServerProcess() as server, httpx.Client(base_url=server.api_url,
                                                 headers=server.headers(), timeout=10) as http:
        zone = http.post("/v2/zones", json={"name": ZONE, "email": "h@ixfr.example",
                                             "ttl": 300}).json()
        zone_url = f"/v2/zones/{zone['id']}"
        rs = {}
        for label in ("www", "mail", "old"):
            rs[label] = http.post(f"{zone_url}/recordsets", json={
                "name": f"{label}.{ZONE}", "type": "A", "records": ["192.0.2.1"]}).json()
        for body in rs.values():
            wait_active(http, f"{zone_url}/recordsets/{body['id']}")
        base_serial = wait_active(http, zone_url)["serial"]
        base = dns.zone.Zone(ZONE, relativize=False)
        dns.query.inbound_xfr("127.0.0.1", base, port=server.mdns_port, timeout=5)

        # one change each way: add, update (data and TTL), delete
        new = http.post(f"{zone_url}/recordsets", json={
            "name": f"new.{ZONE}", "type": "TXT", "records": ['"hello"']}).json()
        http.put(f"{zone_url}/recordsets/{rs['www']['id']}",
                 json={"records": ["192.0.2.99"], "ttl": 60})
        http.delete(f"{zone_url}/recordsets/{rs['old']['id']}")
        wait_active(http, f"{zone_url}/recordsets/{new['id']}")
        deadline = time.monotonic() + 20
        while http.get(zone_url).json()["status"] != "ACTIVE" and time.monotonic() < deadline:
            time.sleep(0.02)
        serial = http.get(zone_url).json()["serial"]
        assert serial != base_serial

        query, _ = dns.xfr.make_query(base, serial=base_serial)  # IXFR from the base's serial
        answers = list(dns.query.xfr("127.0.0.1", ZONE, rdtype=dns.rdatatype.IXFR,
                                     serial=base_serial, port=server.mdns_port, timeout=5,
                                     relativize=False))
        answer_rrs = sum(len(rrset) for m in answers for rrset in m.answer)
        assert answer_rrs < 12  # the difference, not the zone
        dns.query.inbound_xfr("127.0.0.1", base, query, port=server.mdns_port, timeout=5)
        full = dns.zone.Zone(ZONE, relativize=False)
        dns.query.inbound_xfr("127.0.0.1", full, port=server.mdns_port, timeout=5)
        assert base == full
        assert full.get_rdataset(f"old.{ZONE}", "A") is None
        www = full.get_rdataset(f"www.{ZONE}", "A")
        assert www.ttl == 60 and www[0].address == "192.0.2.99"

        dig = subprocess.run(["dig", "@127.0.0.1", "-p", str(server.mdns_port), ZONE,
                              f"IXFR={base_serial}", "+nocmd", "+nostats"],
                             capture_output=True, text=True, timeout=10, check=True).stdout
        lines = [line.split() for line in dig.splitlines() if line and not line.startswith(";")]
        assert sorted(line[3] for line in lines) == ["A", "A", "A", "SOA", "SOA", "SOA", "SOA",
                                                     "TXT"]
        assert lines[1][6] == str(base_serial) and lines[0][6] == str(serial)

        # the built-in nameserver already moved to the new serial (by IXFR: see its log)
        soa = dns.query.udp(dns.message.make_query(ZONE, "SOA"), "127.0.0.1",
                            port=server.ns_port, timeout=2)
        assert soa.answer[0][0].serial == serial
        assert "by IXFR" in server.log_tail(400)


def ixfr_rrs(port: int, zone: str, serial: int) -> list[str]:
    """Types of the RRs an IXFR from ``serial`` brings (dnspython, over TCP)."""
    answers = dns.query.xfr("127.0.0.1", zone, rdtype=dns.rdatatype.IXFR, serial=serial,
                            port=port, timeout=5, relativize=False)
    return [dns.rdatatype.to_text(rrset.rdtype) for m in answers for rrset in m.answer
            for _ in rrset]


def wait_serial_moved(http: httpx.Client, url: str, old: int) -> int:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        body = http.get(url).json()
        if body["status"] == "ACTIVE" and body["serial"] != old:
            return body["serial"]
        time.sleep(0.02)
    raise AssertionError(f"{url} never moved past serial {old}")


@pytest.mark.integration
@pytest.mark.parametrize("engine", ["sqlite", "postgresql", "mysql"])
def test_first_change_after_creation_and_import_is_incremental(engine: str) -> None:
    """Issue 10: the history starts at the serial a zone was created or imported with, so a
    secondary holding that serial gets the first change as a difference, not the zone."""
    with ServerProcess(database=engine, pools=builtin_pool) as server, httpx.Client(base_url=server.api_url,
                                                 headers=server.headers(), timeout=10) as http:
        created = http.post("/v2/zones", json={"name": "first.example.",
                                                "email": "h@first.example"}).json()
        zone_file = "".join(["$ORIGIN imported.example.\n$TTL 300\n",
                             "@ IN SOA ns1.example.net. h.imported.example. 7 3600 600 86400 300\n",
                             "@ IN NS ns1.example.net.\n",
                             *(f"h{i} IN A 192.0.2.{i}\n" for i in range(1, 101))])
        task = http.post("/v2/zones/tasks/imports", content=zone_file.encode(),
                         headers={"Content-Type": "text/dns"}).json()
        deadline = time.monotonic() + 20
        while (task := http.get(f"/v2/zones/tasks/imports/{task['id']}").json())["status"] \
                != "COMPLETE":
            assert task["status"] != "ERROR" and time.monotonic() < deadline, task
            time.sleep(0.05)
        for zone_id, name, zone_rrs in ((created["id"], "first.example.", 2),
                                        (task["zone_id"], "imported.example.", 102)):
            url = f"/v2/zones/{zone_id}"
            first = wait_active(http, url)["serial"]
            full = dns.zone.Zone(name, relativize=False)
            dns.query.inbound_xfr("127.0.0.1", full, port=server.mdns_port, timeout=5)
            assert sum(len(rds) for _, rds in full.iterate_rdatasets()) == zone_rrs
            body = http.post(f"{url}/recordsets", json={
                "name": f"added.{name}", "type": "TXT", "records": ['"one"']}).json()
            wait_active(http, f"{url}/recordsets/{body['id']}")
            serial = wait_serial_moved(http, url, first)
            # new SOA, old SOA, (nothing removed), new SOA, the one TXT, new SOA
            assert ixfr_rrs(server.mdns_port, name, first) == ["SOA", "SOA", "SOA", "TXT", "SOA"]
            query, _ = dns.xfr.make_query(full)
            dns.query.inbound_xfr("127.0.0.1", full, query, port=server.mdns_port, timeout=5)
            assert full.get_rdataset(f"added.{name}", "TXT") is not None
            soa = dns.query.udp(dns.message.make_query(name, "SOA"), "127.0.0.1",
                                port=server.ns_port, timeout=2)
            assert soa.answer[0][0].serial == serial
        log = server.log_tail(400)
        assert "first.example. updated to serial" in log and "by IXFR" in log


@pytest.mark.integration
def test_ixfr_opens_with_the_soa_the_client_holds_after_an_email_and_ttl_change() -> None:
    """RFC 1995 §4: each difference starts with the old SOA. After a zone's email and TTL
    changed, that is the SOA the client holds (old rname, old TTL), not today's with an old
    serial: a strict client deletes exactly that record."""
    name = "soa-change.example."
    with ServerProcess() as server, httpx.Client(base_url=server.api_url,
                                                 headers=server.headers(), timeout=10) as http:
        zone = http.post("/v2/zones", json={"name": name, "email": "old@soa-change.example",
                                             "ttl": 300}).json()
        url = f"/v2/zones/{zone['id']}"
        base_serial = wait_active(http, url)["serial"]
        base = dns.zone.Zone(name, relativize=False)
        dns.query.inbound_xfr("127.0.0.1", base, port=server.mdns_port, timeout=5)
        held = base.find_rdataset(name, "SOA")

        http.patch(url, json={"email": "new@soa-change.example", "ttl": 600})
        body = http.post(f"{url}/recordsets", json={
            "name": f"www.{name}", "type": "A", "records": ["192.0.2.7"]}).json()
        wait_active(http, f"{url}/recordsets/{body['id']}")
        serial = wait_serial_moved(http, url, base_serial)

        answers = list(dns.query.xfr("127.0.0.1", name, rdtype=dns.rdatatype.IXFR,
                                     serial=base_serial, port=server.mdns_port, timeout=5,
                                     relativize=False))
        soas = [rrset for m in answers for rrset in m.answer
                if rrset.rdtype == dns.rdatatype.SOA]
        assert [rrset[0].serial for rrset in soas[:2]] == [serial, base_serial]  # an IXFR
        old = soas[1]
        assert old.ttl == held.ttl == 300
        assert old[0] == held[0]  # every field as the client holds it, old email included
        assert str(soas[0][0].rname) == "new.soa-change.example."
        assert soas[0].ttl == 600

        query, _ = dns.xfr.make_query(base)
        dns.query.inbound_xfr("127.0.0.1", base, query, port=server.mdns_port, timeout=5)
        full = dns.zone.Zone(name, relativize=False)
        dns.query.inbound_xfr("127.0.0.1", full, port=server.mdns_port, timeout=5)
        assert base == full
