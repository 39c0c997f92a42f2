"""The built-in nameserver's zone files: small changes appended to a journal, replayed at start."""

from __future__ import annotations

from pathlib import Path

import dns.name
import dns.node
import dns.rdata
import dns.rdataclass
import dns.rdatatype
import dns.zone
import pytest

from openkeel_designate.nameserver import journal
from openkeel_designate.nameserver.zones import ServedZone, ZoneStore

ORIGIN = dns.name.from_text("example.org.")


def first_version(records: int = 40) -> dns.zone.Zone:
    text = ["@ 300 IN SOA ns1.example.org. hostmaster.example.org. 1 3600 600 86400 300",
            "@ 300 IN NS ns1.example.org."]
    text += [f"h{i} 300 IN A 192.0.2.{i % 250 + 1}" for i in range(records)]
    return dns.zone.from_text("\n".join(text), origin=ORIGIN, relativize=False)


def next_version(zone: dns.zone.Zone, serial: int, set_a: dict[str, str | None]) -> dns.zone.Zone:
    """A new version as an IXFR makes it: the node map copied, only changed nodes new."""
    new = dns.zone.Zone(ORIGIN, relativize=False)
    new.nodes = dict(zone.nodes)
    soa_node = dns.node.Node()
    old_soa = zone.get_rdataset(ORIGIN, dns.rdatatype.SOA)
    soa_set = soa_node.find_rdataset(dns.rdataclass.IN, dns.rdatatype.SOA, create=True)
    soa_set.add(old_soa[0].replace(serial=serial), old_soa.ttl)
    ns = zone.get_rdataset(ORIGIN, dns.rdatatype.NS)
    soa_node.find_rdataset(dns.rdataclass.IN, dns.rdatatype.NS, create=True).update(ns)
    new.nodes[ORIGIN] = soa_node
    for label, address in set_a.items():
        name = dns.name.from_text(label, ORIGIN)
        if address is None:
            del new.nodes[name]
            continue
        node = dns.node.Node()
        rdataset = node.find_rdataset(dns.rdataclass.IN, dns.rdatatype.A, create=True)
        rdataset.add(dns.rdata.from_text("IN", "A", address), 300)
        new.nodes[name] = node
    return new


def same(a: dns.zone.Zone, b: dns.zone.Zone) -> bool:
    return a.to_text(relativize=False, sorted=True) == b.to_text(relativize=False, sorted=True)


def files(tmp_path: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in tmp_path.iterdir()}


async def journalled(tmp_path: Path) -> tuple[ZoneStore, dns.zone.Zone, dns.zone.Zone]:
    """A store whose zone file holds serial 1 and whose journal holds the step to 2."""
    store = ZoneStore(str(tmp_path))
    v1 = first_version()
    await store.put(v1)
    v2 = next_version(v1, 2, {"h3": "198.51.100.3"})
    await store.put(v2)
    return store, v1, v2


def served_after_restart(tmp_path: Path) -> dns.zone.Zone:
    restarted = ZoneStore(str(tmp_path))
    restarted.load()
    return restarted.get(ORIGIN).zone


async def test_a_small_change_is_appended_and_replayed_at_start(tmp_path: Path) -> None:
    store = ZoneStore(str(tmp_path))
    v1 = first_version()
    await store.put(v1)
    zone_file = files(tmp_path)["example.org.zone"]
    v2 = next_version(v1, 2, {"h3": "198.51.100.3", "new": "198.51.100.9", "h5": None})
    await store.put(v2)
    on_disk = files(tmp_path)
    assert on_disk["example.org.zone"] == zone_file  # not rewritten
    assert on_disk["example.org.zone.jnl"].startswith("$BASE 1\n$ENTRY 2\n")
    v3 = next_version(v2, 3, {"h7": "198.51.100.7"})
    await store.put(v3)
    restarted = ZoneStore(str(tmp_path))
    assert restarted.load() == [ORIGIN]
    assert same(restarted.get(ORIGIN).zone, v3)
    v4 = next_version(restarted.get(ORIGIN).zone, 4, {"h8": "198.51.100.8"})
    await restarted.put(v4)  # journalled further after a whole replay
    assert "$ENTRY 4\n" in files(tmp_path)["example.org.zone.jnl"]
    assert same(served_after_restart(tmp_path), v4)


async def test_a_version_sharing_little_is_written_whole(tmp_path: Path) -> None:
    store = ZoneStore(str(tmp_path))
    await store.put(first_version())
    text = first_version().to_text(relativize=False).replace(" 1 3600 ", " 2 3600 ")
    await store.put(dns.zone.from_text(text, origin=ORIGIN, relativize=False))  # as an AXFR's
    on_disk = files(tmp_path)
    assert "example.org.zone.jnl" not in on_disk
    assert " 2 3600 600 86400 300" in on_disk["example.org.zone"]


async def test_the_journal_is_folded_into_the_file_once_it_outgrows_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal, "MIN_FOLD_BYTES", 200)
    store = ZoneStore(str(tmp_path))
    zone = first_version(records=8)
    await store.put(zone)
    for serial in range(2, 12):
        zone = next_version(zone, serial, {"h1": f"198.51.100.{serial}"})
        await store.put(zone)
    on_disk = files(tmp_path)
    assert len(on_disk.get("example.org.zone.jnl", "")) < 400  # ten entries would be ~1,700
    assert same(served_after_restart(tmp_path), zone)


async def test_an_entry_cut_short_stops_the_replay_and_the_next_version_is_written_whole(
        tmp_path: Path) -> None:
    store, _, v2 = await journalled(tmp_path)
    await store.put(next_version(v2, 3, {"h4": "198.51.100.4"}))
    path = tmp_path / "example.org.zone.jnl"
    text = path.read_text()
    path.write_text(text[:text.rindex("$END")])  # the process died while appending
    restarted = ZoneStore(str(tmp_path))
    restarted.load()
    assert same(restarted.get(ORIGIN).zone, v2)
    v3 = next_version(restarted.get(ORIGIN).zone, 3, {"h9": "198.51.100.99"})
    await restarted.put(v3)
    assert "example.org.zone.jnl" not in files(tmp_path)  # written whole again
    assert same(served_after_restart(tmp_path), v3)


async def test_a_journal_of_another_file_version_is_not_applied(tmp_path: Path) -> None:
    _, v1, _ = await journalled(tmp_path)
    path = tmp_path / "example.org.zone.jnl"
    path.write_text(path.read_text().replace("$BASE 1", "$BASE 77"))
    assert same(served_after_restart(tmp_path), v1)


async def test_dropping_a_zone_removes_its_file_and_journal(tmp_path: Path) -> None:
    store, _, _ = await journalled(tmp_path)
    assert "example.org.zone.jnl" in files(tmp_path)
    assert await store.drop(ORIGIN)
    assert files(tmp_path) == {}


async def test_the_names_of_a_version_that_only_adds_are_those_a_whole_build_finds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``ServedZone.extended`` (no walk of the zone) against ``ServedZone.of`` (the walk),
    for additions with new empty non-terminals, then a removal (rebuilt whole)."""
    walks: list[int] = []
    build = ServedZone.build.__func__  # type: ignore[attr-defined]

    async def counted(cls: type[ServedZone], zone: dns.zone.Zone) -> ServedZone:
        walks.append(_serial_of(zone))
        return await build(cls, zone)
    monkeypatch.setattr(ServedZone, "build", classmethod(counted))
    store = ZoneStore(None)
    zone = first_version()
    await store.put(zone)
    for serial, changes in ((2, {"h3": "198.51.100.3"}),
                            (3, {"a.b.deep": "198.51.100.4", "new": "198.51.100.5"}),
                            (4, {"c.b.deep": "198.51.100.6"}),
                            (5, {"a.b.deep": None, "h4": None})):
        zone = next_version(zone, serial, changes)
        served = await store.put(zone)
        assert served.names == ServedZone.of(zone).names
    assert walks == [1, 5]  # the first version and the one that removed names
    assert dns.name.from_text("b.deep", ORIGIN) in served.names  # c.b.deep still below it


def _serial_of(zone: dns.zone.Zone) -> int:
    return zone.get_rdataset(ORIGIN, dns.rdatatype.SOA)[0].serial
