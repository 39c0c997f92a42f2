"""DNSSEC end to end: a zone created over HTTP on the embedded server, signed through
``PUT /v2/zones/{id}/dnssec``, transferred from mdns with dnspython and checked by BIND's
``dnssec-verify`` — with NSEC and NSEC3, ECDSAP256SHA256 and ED25519 — then changed, and
transferred again: still valid, and the RRsets the change did not touch keep their RRSIGs,
and a secondary's copy brought up to date by IXFR (a difference, not the zone) equals the new
AXFR; a restarted server serves the same signatures for the same serial;
then a ZSK rollover (both ZSKs sign, still valid) and signing turned off: first the RFC 8078
delete CDS/CDNSKEY in a still signed zone, then, confirmed, unsigned."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import dns.message
import dns.name
import dns.query
import dns.rdatatype
import dns.rrset
import dns.versioned
import dns.xfr
import httpx
import pytest

from support.server import ServerProcess, builtin_pool, wait_status

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("dnssec-verify") is None,
                                 reason="BIND's dnssec-verify not installed")]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with ServerProcess() as running:
        yield running


@pytest.fixture
def client(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as http:
        yield http


def transfer(server: ServerProcess, origin: str, rdtype: str = "AXFR",
             serial: int | None = None) -> list[dns.rrset.RRset]:
    """Every RR of a transfer from mdns over TCP, the closing SOA dropped."""
    query = dns.message.make_query(origin, rdtype)
    if serial is not None:
        query.authority.append(dns.rrset.from_text(origin, 0, "IN", "SOA",
                                                   f". . {serial} 0 0 0 0"))
    rrs: list[dns.rrset.RRset] = []
    with socket.create_connection(("127.0.0.1", server.mdns_port), timeout=10) as sock:
        dns.query.send_tcp(sock, query)
        while sum(1 for r in rrs if r.rdtype == dns.rdatatype.SOA) < 2:
            message, _ = dns.query.receive_tcp(sock, time.time() + 10, one_rr_per_rrset=True)
            assert message.answer, message
            rrs.extend(message.answer)
    merged: dict[tuple, dns.rrset.RRset] = {}
    for rr in rrs[:-1]:
        key = (rr.name, rr.rdtype, rr.covers)
        if key in merged:
            merged[key].union_update(rr)
        else:
            merged[key] = rr
    return list(merged.values())


def ixfr_answer(server: ServerProcess, origin: str, serial: int) -> list[dns.rrset.RRset]:
    """Every RR of mdns's answer to an IXFR from ``serial``, in order, one per RRset: an
    incremental answer is SOA new, SOA old, removed…, SOA new, added…, SOA new (three new
    SOAs, the difference condensed into one); an AXFR-style one has two."""
    query = dns.message.make_query(origin, "IXFR")
    query.authority.append(dns.rrset.from_text(origin, 0, "IN", "SOA", f". . {serial} 0 0 0 0"))
    rrs: list[dns.rrset.RRset] = []
    with socket.create_connection(("127.0.0.1", server.mdns_port), timeout=10) as sock:
        dns.query.send_tcp(sock, query)
        while True:
            message, _ = dns.query.receive_tcp(sock, time.time() + 10, one_rr_per_rrset=True)
            assert message.answer, message
            rrs.extend(message.answer)
            new = rrs[0][0].serial
            ends = 3 if len(rrs) > 1 and rrs[1].rdtype == dns.rdatatype.SOA else 2
            soas = sum(1 for r in rrs if r.rdtype == dns.rdatatype.SOA and r[0].serial == new)
            if len(rrs) > 1 and soas == ends and rrs[-1].rdtype == dns.rdatatype.SOA:
                return rrs


def zone_copy(server: ServerProcess, origin: str,
              zone: dns.versioned.Zone | None = None) -> dns.versioned.Zone:
    """A secondary's copy: a new one by AXFR, or ``zone`` brought up to date by IXFR, as
    dnspython applies it (a deletion of an RR the copy does not hold is an error)."""
    if zone is None:
        zone = dns.versioned.Zone(origin)
        dns.query.inbound_xfr("127.0.0.1", zone, port=server.mdns_port, timeout=10)
    else:
        dns.query.inbound_xfr("127.0.0.1", zone, dns.xfr.make_query(zone)[0],
                              port=server.mdns_port, timeout=10)
    return zone


def content(zone: dns.versioned.Zone) -> set[tuple]:
    return {(name, rdata.rdtype, rdata.covers(), ttl, rdata.to_text())
            for name, ttl, rdata in zone.iterate_rdatas()}


def verify(tmp_path, origin: str, rrsets: list[dns.rrset.RRset]) -> str:
    path = tmp_path / f"{origin}zone"
    path.write_text("".join(r.to_text() + "\n" for r in rrsets))
    result = subprocess.run(["dnssec-verify", "-o", origin, str(path)], capture_output=True,
                            text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    return output


def signed_zone(client: httpx.Client, name: str, dnssec: dict) -> dict:
    zone = client.post("/v2/zones", json={"name": name, "email": f"h@{name.rstrip('.')}",
                                          "ttl": 300}).json()
    url = f"/v2/zones/{zone['id']}"
    for rs in ({"name": f"www.{name}", "type": "A", "records": ["192.0.2.10"]},
               {"name": f"www.{name}", "type": "AAAA", "records": ["2001:db8::10"]},
               {"name": name, "type": "MX", "records": [f"10 mail.{name}"]},
               {"name": f"mail.{name}", "type": "A", "records": ["192.0.2.25"]},
               {"name": f"a.b.{name}", "type": "TXT", "records": ['"deep"']},
               {"name": f"sub.{name}", "type": "NS", "records": [f"ns.sub.{name}"]},
               {"name": f"ns.sub.{name}", "type": "A", "records": ["192.0.2.53"]}):
        created = client.post(f"{url}/recordsets", json=rs)
        assert created.status_code == 202, created.text
    wait_status(client, url, "ACTIVE")
    enabled = client.put(f"{url}/dnssec", json={"enabled": True, **dnssec})
    assert enabled.status_code == 202, enabled.text
    assert enabled.json()["status"] == "PENDING"
    wait_status(client, f"{url}/dnssec", "ACTIVE")
    return zone


@pytest.mark.parametrize("algorithm", ["ECDSAP256SHA256", "ED25519"])
@pytest.mark.parametrize("nsec", ["NSEC", "NSEC3"])
def test_transferred_zone_passes_dnssec_verify(server, client, tmp_path, algorithm, nsec):
    name = f"{algorithm.lower()}-{nsec.lower()}.example."
    zone = signed_zone(client, name, {"algorithm": algorithm, "nsec": nsec})
    rrsets = transfer(server, name)
    types = {r.rdtype for r in rrsets}
    wanted = {dns.rdatatype.DNSKEY, dns.rdatatype.RRSIG, dns.rdatatype.CDS,
              dns.rdatatype.CDNSKEY, dns.rdatatype.NSEC3 if nsec == "NSEC3" else dns.rdatatype.NSEC}
    assert wanted <= types
    verify(tmp_path, name, rrsets)
    glue = [r for r in rrsets if r.rdtype == dns.rdatatype.RRSIG
            and r.name.to_text() == f"ns.sub.{name}"]
    assert glue == []  # glue is not signed
    ds = client.get(f"/v2/zones/{zone['id']}/dnssec").json()["ds"]
    cds = next(r for r in rrsets if r.rdtype == dns.rdatatype.CDS)
    assert sorted(rd.to_text() for rd in cds) == sorted(ds)


def test_a_change_keeps_untouched_signatures_and_verifies(server, client, tmp_path):
    name = "change.example."
    zone = signed_zone(client, name, {})
    url = f"/v2/zones/{zone['id']}"
    before = transfer(server, name)
    verify(tmp_path, name, before)
    serial = next(r for r in before if r.rdtype == dns.rdatatype.SOA)[0].serial
    www = next(rs for rs in client.get(f"{url}/recordsets", params={"type": "A"}).json()[
        "recordsets"] if rs["name"] == f"www.{name}")
    client.put(f"{url}/recordsets/{www['id']}", json={"records": ["192.0.2.99"]})
    wait_status(client, f"{url}/recordsets/{www['id']}", "ACTIVE")
    after = transfer(server, name)
    verify(tmp_path, name, after)
    sigs = lambda rrsets: {(r.name, r.covers): r for r in rrsets  # noqa: E731
                           if r.rdtype == dns.rdatatype.RRSIG}
    old, new = sigs(before), sigs(after)
    www_name = dns.name.from_text(f"www.{name}")
    assert new[(www_name, dns.rdatatype.A)] != old[(www_name, dns.rdatatype.A)]
    assert new[(www_name, dns.rdatatype.AAAA)] == old[(www_name, dns.rdatatype.AAAA)]
    mail = dns.name.from_text(f"mail.{name}")
    assert new[(mail, dns.rdatatype.A)] == old[(mail, dns.rdatatype.A)]
    assert new[(www_name, dns.rdatatype.NSEC)] == old[(www_name, dns.rdatatype.NSEC)]
    # IXFR of a signed zone from the serial before the change: a difference (its own test below)
    incremental = ixfr_answer(server, name, serial)
    assert incremental[1].rdtype == dns.rdatatype.SOA and incremental[1][0].serial == serial

    rolled = client.post(f"{url}/dnssec/rollover")
    assert rolled.status_code == 202, rolled.text
    wait_status(client, f"{url}/dnssec", "ACTIVE")
    double = transfer(server, name)
    verify(tmp_path, name, double)
    dnskeys = next(r for r in double if r.rdtype == dns.rdatatype.DNSKEY)
    assert sorted(k.flags for k in dnskeys) == [256, 256, 257]
    assert len(sigs(double)[(www_name, dns.rdatatype.A)]) == 2  # both ZSKs sign

    # signing off, RFC 8078 §4: first the delete CDS/CDNSKEY, still signed (and valid) ...
    disabling = client.put(f"{url}/dnssec", json={"enabled": False})
    assert disabling.status_code == 202 and disabling.json()["state"] == "DISABLING"
    wait_status(client, f"{url}/dnssec", "ACTIVE")
    going = transfer(server, name)
    verify(tmp_path, name, going)
    apex = dns.name.from_text(name)
    published = {r.rdtype: sorted(rd.to_text() for rd in r) for r in going if r.name == apex}
    assert published[dns.rdatatype.CDS] == ["0 0 0 00"]
    assert published[dns.rdatatype.CDNSKEY] == ["0 3 0 AA=="]
    # ... then, the tenant confirming the parent dropped the DS, unsigned
    off = client.put(f"{url}/dnssec", json={"enabled": False})
    assert off.status_code == 202 and off.json()["state"] == "UNSIGNED"
    wait_status(client, f"{url}/dnssec", "ACTIVE")
    plain = transfer(server, name)
    assert not {dns.rdatatype.RRSIG, dns.rdatatype.DNSKEY, dns.rdatatype.NSEC} & {
        r.rdtype for r in plain}


@pytest.mark.parametrize("database", ["postgresql", "mysql"])
def test_signed_transfer_on_server_databases(tmp_path, database):
    """The same path on PostgreSQL and MariaDB: settings and sealed keys read by mdns."""
    with ServerProcess(database=database, pools=builtin_pool) as running, httpx.Client(
            base_url=running.api_url, headers=running.headers(), timeout=10) as http:
        name = f"{database}.example."
        signed_zone(http, name, {"algorithm": "ED25519", "nsec": "NSEC3"})
        verify(tmp_path, name, transfer(running, name))


def test_a_change_goes_out_by_ixfr_and_a_restart_signs_the_same(tmp_path):
    """Issue 15: a change to a signed zone reaches a secondary as an incremental IXFR that,
    applied to its copy of the previous serial, gives exactly the new AXFR (which verifies);
    and a restarted server (new processes, empty signature caches, another clock) serves the
    same signed AXFR, record by record, for the same serial."""
    with ServerProcess() as running, httpx.Client(
            base_url=running.api_url, headers=running.headers(), timeout=10) as http:
        name = "ixfr.example."
        zone = signed_zone(http, name, {"algorithm": "ECDSAP256SHA256", "nsec": "NSEC"})
        url = f"/v2/zones/{zone['id']}"
        secondary = zone_copy(running, name)
        before = transfer(running, name)
        serial = next(r for r in before if r.rdtype == dns.rdatatype.SOA)[0].serial
        created = http.post(f"{url}/recordsets", json={"name": f"new.{name}", "type": "A",
                                                       "records": ["192.0.2.77"]})
        assert created.status_code == 202, created.text
        wait_status(http, f"{url}/recordsets/{created.json()['id']}", "ACTIVE")

        answer = ixfr_answer(running, name, serial)
        assert answer[1].rdtype == dns.rdatatype.SOA and answer[1][0].serial == serial
        assert len(answer) < len(before) // 2  # a difference, not the zone again
        changed = {(r.name.to_text(), r.rdtype, r.covers) for r in answer
                   if r.rdtype != dns.rdatatype.SOA}
        assert (f"new.{name}", dns.rdatatype.A, dns.rdatatype.NONE) in changed
        assert (f"new.{name}", dns.rdatatype.RRSIG, dns.rdatatype.A) in changed
        assert (name, dns.rdatatype.RRSIG, dns.rdatatype.SOA) in changed
        assert (f"new.{name}", dns.rdatatype.NSEC, dns.rdatatype.NONE) in changed
        assert (f"www.{name}", dns.rdatatype.RRSIG, dns.rdatatype.AAAA) not in changed

        zone_copy(running, name, secondary)  # applied by dnspython's IXFR client
        after = zone_copy(running, name)
        assert content(secondary) == content(after)
        new_axfr = transfer(running, name)
        verify(tmp_path, name, new_axfr)
        new_serial = next(r for r in new_axfr if r.rdtype == dns.rdatatype.SOA)[0].serial

        running.restart()
        again = transfer(running, name)
        assert next(r for r in again if r.rdtype == dns.rdatatype.SOA)[0].serial == new_serial
        assert [r.to_text() for r in again] == [r.to_text() for r in new_axfr]
        # and the restarted server's IXFR from the old serial is the same difference
        assert [r.to_text() for r in ixfr_answer(running, name, serial)] == [
            r.to_text() for r in answer]


# One valid recordset of each of Designate's 17 types (SOA and NS come with the zone).
EVERY_TYPE = {
    ("www", "A"): ["192.0.2.10"],
    ("www", "AAAA"): ["2001:db8::10"],
    ("alias", "CNAME"): ["www.{zone}"],
    ("@", "MX"): ["10 mail.example.net."],
    ("_sip._tcp", "SRV"): ["10 20 5060 sip.example.net."],
    ("txt", "TXT"): ['"hello world"'],
    ("spf", "SPF"): ['"v=spf1 -all"'],
    ("ptr", "PTR"): ["host.example.net."],
    ("ssh", "SSHFP"): ["4 2 " + "ab" * 32],
    ("@", "NAPTR"): ['100 10 "S" "SIP+D2U" "" _sip._udp.example.net.'],
    ("@", "CAA"): ["0 issue ca.example.net"],
    ("cert", "CERT"): ["PKIX 0 0 MIIB"],
    ("@", "HTTPS"): ["0 svc.example.net."],
    ("_svc", "SVCB"): ["1 svc.example.net. port=8443"],
    ("_443._tcp", "TLSA"): ["3 1 1 " + "cd" * 32],
}


def test_every_record_type_is_signed_and_verifies(server, client, tmp_path):
    """Each type Designate accepts gets an RRSIG and a place in the NSEC bitmaps, and the
    whole zone passes dnssec-verify."""
    name = "types.example."
    zone = client.post("/v2/zones", json={"name": name, "email": "h@types.example",
                                          "ttl": 300}).json()
    url = f"/v2/zones/{zone['id']}"
    for (label, rtype), records in EVERY_TYPE.items():
        owner = name if label == "@" else f"{label}.{name}"
        created = client.post(f"{url}/recordsets", json={
            "name": owner, "type": rtype, "records": [r.format(zone=name) for r in records]})
        assert created.status_code == 202, (rtype, created.text)
    wait_status(client, url, "ACTIVE")
    assert client.put(f"{url}/dnssec", json={"enabled": True}).status_code == 202
    wait_status(client, f"{url}/dnssec", "ACTIVE")
    rrsets = transfer(server, name)
    verify(tmp_path, name, rrsets)
    covered = {dns.rdatatype.to_text(r.covers) for r in rrsets if r.rdtype == dns.rdatatype.RRSIG}
    assert {rtype for _, rtype in EVERY_TYPE} | {"SOA", "NS"} <= covered
    in_bitmaps = {dns.rdatatype.to_text(t) for r in rrsets if r.rdtype == dns.rdatatype.NSEC
                  for rd in r for window in rd.windows for t in _types(window)}
    assert {rtype for _, rtype in EVERY_TYPE} <= in_bitmaps


def _types(window: tuple[int, bytes]) -> list[int]:
    """The types of one NSEC bitmap window (RFC 4034 §4.1.2)."""
    number, bitmap = window
    return [number * 256 + i * 8 + bit for i, byte in enumerate(bitmap)
            for bit in range(8) if byte & (0x80 >> bit)]
