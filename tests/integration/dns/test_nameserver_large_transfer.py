"""A large zone transferred into the built-in nameserver shares the event loop (issue 11).

The master here hands out messages rendered before the measurement starts, so everything the
loop does during the load is the nameserver's own work (reading, parsing, indexing, swapping).
Nothing is timed: a ticker task notes, at each of its turns on the loop, how many A records
had been parsed so far (dnspython's record parser is wrapped to count them) and which version
was served; a querier asks the nameserver over UDP throughout, checking which version answers.
"""

from __future__ import annotations

import asyncio

import dns.asyncquery
import dns.message
import dns.name
import dns.rdata
import dns.rdatatype
import dns.rrset
import pytest

from openkeel_designate.nameserver.server import BuiltinNameserver
from support.prerendered_master import PrerenderedMaster, render

ZONE = dns.name.from_text("large.example.")
PROBE = dns.name.from_text("probe.large.example.")
RECORDS = 50_000
PER_MESSAGE = 2_000  # A records per message: ~50 KB, near the 64 KiB a message may hold
# Records parsed at most between two turns of the loop.  Parsing a message in one call (as
# dnspython does) parses PER_MESSAGE; a slice of a few ms parses a few hundred at most.
MAX_PARSED_PER_TURN = PER_MESSAGE // 4
# Turns of the loop at least while the new version's indexes are built (all parsed, old
# version still served); built in one piece they would leave only the connection's close.
MIN_INDEX_TURNS = 10


def _soa(serial: int) -> dns.rrset.RRset:
    return dns.rrset.from_text(ZONE, 300, "IN", "SOA",
                               f"ns1.{ZONE} hostmaster.{ZONE} {serial} 3600 600 86400 60")


def _version(serial: int, probe: str, count: int) -> list[dns.rrset.RRset]:
    rrsets = [_soa(serial), dns.rrset.from_text(ZONE, 300, "IN", "NS", f"ns1.{ZONE}"),
              dns.rrset.from_text(PROBE, 300, "IN", "A", probe)]
    rrsets += [dns.rrset.from_text(f"h{i}.{ZONE}", 300, "IN", "A",
                                   f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}")
               for i in range(count)]
    return rrsets + [_soa(serial)]


@pytest.fixture
async def master():
    primary = PrerenderedMaster()
    primary.add(ZONE, 1, _version(1, "192.0.2.1", 10), PER_MESSAGE)
    primary.add(ZONE, 2, _version(2, "192.0.2.2", RECORDS), PER_MESSAGE)
    async with primary:
        yield primary


async def test_large_transfer_interleaves_and_swaps_whole(master, monkeypatch) -> None:
    nameserver = BuiltinNameserver([("127.0.0.1", 0)], master.bound,
                                   xfr_timeout=60.0)
    await nameserver.start()
    try:
        master.serials[ZONE] = 1
        assert await nameserver.refresher.refresh(ZONE)
        host, port = nameserver.bound[0]
        master.serials[ZONE] = 2
        parsed = 0
        parser = dns.rdata.from_wire_parser

        def counting(rdclass, rdtype, *args, **kwargs):
            nonlocal parsed
            parsed += rdtype == dns.rdatatype.A
            return parser(rdclass, rdtype, *args, **kwargs)

        monkeypatch.setattr(dns.rdata, "from_wire_parser", counting)
        turns: list[tuple[int, int]] = []  # (A records of the transfer parsed, serial served)
        answers: list[tuple[str, bool]] = []  # (probe address, load finished when asked)
        loaded = False

        async def ticker() -> None:
            while not loaded:
                # the querier's answers (one A each) are parsed on this loop too
                turns.append((parsed - len(answers), nameserver.store.get(ZONE).serial))
                await asyncio.sleep(0)

        async def querier() -> None:
            while not loaded:
                finished = loaded
                query = dns.message.make_query(PROBE, dns.rdatatype.A)
                response = await dns.asyncquery.udp(query, host, port=port, timeout=10)
                answers.append((response.answer[0][0].address, finished))
                await asyncio.sleep(0.001)

        tasks = [asyncio.ensure_future(ticker()), asyncio.ensure_future(querier())]
        await asyncio.sleep(0)
        assert await nameserver.refresher.refresh(ZONE)
        loaded = True
        await asyncio.gather(*tasks)
        after = await dns.asyncquery.udp(dns.message.make_query(PROBE, dns.rdatatype.A), host,
                                         port=port, timeout=10)
    finally:
        await nameserver.stop()

    gaps = [later[0] - earlier[0] for earlier, later in zip(turns, turns[1:])]
    index_turns = sum(1 for count, serial in turns if count == RECORDS + 1 and serial == 1)
    print(f"loop turns during the load: {len(turns)}, most records parsed between two: "
          f"{max(gaps)}, turns while indexing: {index_turns}, probe answers: {len(answers)}")
    assert max(gaps) <= MAX_PARSED_PER_TURN
    assert index_turns >= MIN_INDEX_TURNS
    during = [address for address, finished in answers if not finished]
    assert during and during[0] == "192.0.2.1"  # the old version answered during the load
    # once the new version answers, the old one never does again: one swap, whole
    first_new = during.index("192.0.2.2") if "192.0.2.2" in during else len(during)
    assert set(during[first_new:]) <= {"192.0.2.2"}
    assert set(during) <= {"192.0.2.1", "192.0.2.2"}
    assert after.answer[0][0].address == "192.0.2.2"
    served = nameserver.store.get(ZONE)
    assert served.serial == 2 and len(served.zone.nodes) == RECORDS + 2


def _a(name: str, address: str) -> dns.rrset.RRset:
    return dns.rrset.from_text(f"{name}.{ZONE}", 300, "IN", "A", address)


async def test_ixfr_makes_a_new_version_and_leaves_the_served_one_alone(master) -> None:
    """The difference is applied to a copy: a query still holding the old version (as one in
    flight does) sees it unchanged; a difference that does not apply means a full transfer."""
    master.add(ZONE, 3, _version(3, "192.0.2.3", 100))
    master.increments[(ZONE, 3)] = render(ZONE, [
        _soa(4), _soa(3), _a("h0", "10.0.0.0"), _a("probe", "192.0.2.3"),
        _soa(4), _a("probe", "192.0.2.4"), _a("new", "192.0.2.9"), _soa(4)])
    master.add(ZONE, 4, _version(4, "192.0.2.40", 5))  # what an AXFR would give
    master.increments[(ZONE, 4)] = render(ZONE, [  # deletes a record that is not there
        _soa(5), _soa(4), _a("absent", "192.0.2.66"), _soa(5), _soa(5)])
    master.add(ZONE, 5, _version(5, "192.0.2.5", 7))
    nameserver = BuiltinNameserver([("127.0.0.1", 0)], master.bound)
    await nameserver.start()
    try:
        master.serials[ZONE] = 3
        assert await nameserver.refresher.refresh(ZONE)
        old = nameserver.store.get(ZONE)
        old_records = set(old.zone.iterate_rdatas())
        master.serials[ZONE] = 4
        assert await nameserver.refresher.refresh(ZONE)
        new = nameserver.store.get(ZONE)
        master.serials[ZONE] = 5
        assert await nameserver.refresher.refresh(ZONE)
        fallback = nameserver.store.get(ZONE)
    finally:
        await nameserver.stop()

    assert set(old.zone.iterate_rdatas()) == old_records and old.serial == 3
    assert new.serial == 4 and new.zone is not old.zone
    assert new.zone.get_node(f"h0.{ZONE}") is None
    assert old.zone.get_node(f"h0.{ZONE}") is not None
    assert {r.address for r in new.zone.get_rdataset(PROBE, "A")} == {"192.0.2.4"}
    assert {r.address for r in old.zone.get_rdataset(PROBE, "A")} == {"192.0.2.3"}
    assert dns.name.from_text(f"new.{ZONE}") in new.names
    assert len(new.zone.nodes) == len(old.zone.nodes)  # one name gone, one added
    # the bad difference was refused whole; the full transfer (serial 5, 7 hosts) is served
    assert fallback.serial == 5 and len(fallback.zone.nodes) == 7 + 2
