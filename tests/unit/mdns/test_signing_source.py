"""mdns's signed view of a zone: unsigned zones pass through untouched (IXFR history too); a
signed zone's records gain DNSSEC records whose pre-rendered wire equals dnspython's; the
IXFR of a signed zone is the signed difference when the signing epoch has not changed since
the client's serial; otherwise, and for a once-signed zone, the history is withheld (the answer
is then a full one)."""

from __future__ import annotations

import dataclasses
import time

import dns.rdata
import dns.rdataclass
import dns.rdatatype

from openkeel_designate.dnswire.zonedata import SealedKey, ServedRecord, ZoneDelta, ZoneSigning
from openkeel_designate.domain.dnssec import keys as dkeys
from openkeel_designate.mdns.packing import ZoneWire
from openkeel_designate.mdns.signing import SigningSource

KEK = dkeys.new_kek()
ZONE = "z1"
RECORDS = [
    ServedRecord("example.org.", "SOA", 3600,
                 "ns1.example.org. hostmaster.example.org. 5 3600 600 86400 300"),
    ServedRecord("example.org.", "NS", 3600, "ns1.example.org."),
    ServedRecord("ns1.example.org.", "A", 3600, "192.0.2.1"),
    ServedRecord("WWW.example.org.", "A", 300, "192.0.2.10"),
]
DELTA = ZoneDelta(4, 5, (), (RECORDS[3],))


class Source:
    def __init__(self, signing: ZoneSigning | None, records=RECORDS):
        self.signing = signing
        self.records = records

    async def zone_records(self, zone_id):
        return list(self.records)

    async def zone_signing(self, zone_id):
        return self.signing

    async def zone_changes(self, zone_id, since):
        return [DELTA]

    async def peer_hosts(self):
        return ["192.0.2.53"]


def signing(enabled: bool = True, epoch: int | None = None,
            epoch_serial: int | None = None) -> ZoneSigning:
    sealed = []
    for flags in (dkeys.SEP_FLAGS, dkeys.ZONE_FLAGS):
        private = dkeys.generate("ECDSAP256SHA256")
        sealed.append(SealedKey(flags, 13, dkeys.seal(KEK, private, ZONE)))
    return ZoneSigning(enabled, "NSEC", tuple(sealed) if enabled else (), epoch=epoch,
                       epoch_serial=epoch_serial)


def identities(records):
    """The records a transfer client tells apart; the SOA is the IXFR's framing."""
    return {(r.name.lower(), r.type, r.ttl, r.data) for r in records if r.type != "SOA"}


async def test_signed_ixfr_is_the_difference_of_the_two_signed_versions():
    """Serial 4 (no www) to 5 (www added), same epoch: applied to the signed serial 4, the
    difference gives exactly the signed serial 5 — www's A and its RRSIG, the SOA's RRSIG,
    the NSEC chain around www."""
    setting = signing(epoch=int(time.time()), epoch_serial=3)
    old_records = [dataclasses.replace(RECORDS[0], data=RECORDS[0].data.replace(" 5 ", " 4 ")),
                   *RECORDS[1:3]]
    old = await SigningSource(Source(setting, old_records), lambda: KEK).zone_records(ZONE)
    source = SigningSource(Source(setting), lambda: KEK)
    new = await source.zone_records(ZONE)
    [delta] = await source.zone_changes(ZONE, 4)
    assert (delta.from_serial, delta.serial) == (4, 5)
    removed, added = identities(delta.removed), identities(delta.added)
    assert removed <= identities(old) and not added & identities(old)
    assert (identities(old) - removed) | added == identities(new)
    assert len(added) < len(identities(new)) - 2  # a difference, not the zone again
    assert ("www.example.org.", "A", 300, "192.0.2.10") in added
    assert {r.type for r in delta.added} == {"A", "RRSIG", "NSEC"}


async def test_signed_ixfr_across_a_new_epoch_is_withheld():
    source = SigningSource(Source(signing(epoch=int(time.time()), epoch_serial=5)), lambda: KEK)
    assert await source.zone_changes(ZONE, 4) is None
    stale = SigningSource(Source(signing(epoch=int(time.time()) - 30 * 86400, epoch_serial=3)),
                          lambda: KEK)
    assert await stale.zone_changes(ZONE, 4) is None  # an epoch no longer used


async def test_unsigned_zones_pass_through():
    source = SigningSource(Source(None), lambda: KEK)
    assert await source.zone_records(ZONE) == RECORDS
    assert await source.zone_changes(ZONE, 4) == [DELTA]
    assert await source.peer_hosts() == ["192.0.2.53"]


async def test_signed_zone_records_and_their_wire():
    source = SigningSource(Source(signing()), lambda: KEK)
    records = await source.zone_records(ZONE)
    assert records[:4] == RECORDS
    added = records[4:]
    types = {r.type for r in added}
    assert {"DNSKEY", "CDS", "CDNSKEY", "NSEC", "RRSIG"} <= types
    wire = ZoneWire("example.org.")
    for record in added:
        assert record.wire is not None
        parsed = dns.rdata.from_text(dns.rdataclass.IN, dns.rdatatype.from_text(record.type),
                                     record.data)
        assert record.wire == parsed.to_wire()
        assert wire.wire(record) is not None
    nsec_owners = {r.name for r in added if r.type == "NSEC"}
    assert "WWW.example.org." in nsec_owners  # the owner as served
    assert await source.zone_changes(ZONE, 4) is None
    again = await source.zone_records(ZONE)
    assert [r for r in again if r.type == "RRSIG"] == [r for r in added if r.type == "RRSIG"]


async def test_once_signed_zone_withholds_its_history_and_serves_plain_records():
    source = SigningSource(Source(signing(enabled=False)), lambda: KEK)
    assert await source.zone_records(ZONE) == RECORDS
    assert await source.zone_changes(ZONE, 4) is None


async def test_concurrent_transfers_of_one_zone_sign_once():
    import asyncio

    source = SigningSource(Source(signing()), lambda: KEK)
    first, second = await asyncio.gather(source.zone_records(ZONE), source.zone_records(ZONE))
    assert first == second  # the second found every signature made by the first
    assert source._zone_locks == {}


async def test_signing_is_counted():
    from openkeel_designate.observability import metrics

    def made() -> float:
        return metrics.REGISTRY.get_sample_value("designate_dnssec_signatures_total") or 0.0

    before = made()
    await SigningSource(Source(signing()), lambda: KEK).zone_records(ZONE)
    assert made() - before >= 6  # at least SOA, NS, A, A, DNSKEY and an NSEC


class ChangingSource(Source):
    """A zone whose records the test changes between versions."""

    def __init__(self, signing: ZoneSigning):
        super().__init__(signing)
        self.records = list(RECORDS)

    async def zone_records(self, zone_id):
        return list(self.records)


async def test_signing_runs_in_a_worker_process_that_keeps_the_zone_signatures(caplog):
    """The serving process signs nothing itself (its loop stays free); the worker that signed
    a zone signs its next version, re-using every signature the change did not touch."""
    import logging
    import os

    from openkeel_designate.mdns import zone_signer
    from openkeel_designate.observability import metrics

    def made() -> float:
        return metrics.REGISTRY.get_sample_value("designate_dnssec_signatures_total") or 0.0

    source = ChangingSource(signing())
    signer = SigningSource(source, lambda: KEK)
    kept_here = len(zone_signer._cache)
    before = made()
    with caplog.at_level(logging.DEBUG, logger="openkeel_designate.mdns.signing"):
        first = await signer.zone_records(ZONE)
    fresh = made() - before
    assert fresh >= 6  # SOA, NS, A, A, DNSKEY, NSEC… all new
    pids = {int(r.getMessage().split(" in process ")[1].split(":")[0]) for r in caplog.records
            if " in process " in r.getMessage()}
    assert pids and os.getpid() not in pids
    assert len(zone_signer._cache) == kept_here  # nothing was signed in this process

    soa = RECORDS[0]
    source.records[0] = ServedRecord(soa.name, "SOA", soa.ttl, soa.data.replace(" 5 ", " 6 "))
    source.records[3] = ServedRecord("WWW.example.org.", "A", 300, "192.0.2.11")
    before = made()
    second = await signer.zone_records(ZONE)
    assert made() - before == 2  # the ZSK's RRSIGs over the new SOA and the changed A: no more
    unchanged = {r.data for r in first if r.type == "RRSIG" and r.data.startswith("NS ")}
    assert unchanged and unchanged <= {r.data for r in second if r.type == "RRSIG"}
