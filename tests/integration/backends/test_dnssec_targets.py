"""Signed zones on real secondaries: PowerDNS, BIND 9 and Knot, each the one target of a pool of
``openkeel-designate serve``, receive a zone signed by mdns and serve it so that ``delv``, with
the zone's KSK (from ``GET /v2/zones/{id}/dnssec``) as trust anchor, validates positive answers,
a wildcard, NXDOMAIN, NODATA and the proof that a delegation has no DS, and again after a change
(sent as an IXFR of the signed zone); turned off, the zone is served unsigned again.  A PowerDNS whose backend stores no DNSSEC data cannot keep the
signatures: the zone goes ERROR instead of ACTIVE.

One server and one zone per case, NSEC for some and NSEC3 for others, one ED25519.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import dns.flags
import dns.message
import dns.query
import dns.rdatatype
import httpx
import pytest

from support import pdns
from support.server import ServerProcess, wait_status

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("delv") is None, reason="BIND's delv is not installed")]

RECORDSETS = [("www", "A", "192.0.2.10"), ("www", "AAAA", "2001:db8::10"),
              ("@", "MX", "10 mail"), ("mail", "A", "192.0.2.25"),
              ("txt", "TXT", '"hello world"'), ("*.wild", "A", "192.0.2.7"),
              ("sub", "NS", "ns.sub"), ("ns.sub", "A", "192.0.2.53")]
FULLY = "; fully validated"
NEGATIVE = "; negative response, fully validated"
QUESTIONS = {
    "www/A": FULLY, "www/AAAA": FULLY, "@/MX": FULLY, "txt/TXT": FULLY,
    "x.wild/A": FULLY,  # wildcard expansion: the RRSIG's label count and the NSEC(3) proof
    "nothing/A": NEGATIVE,  # NXDOMAIN
    "www/MX": NEGATIVE,  # NODATA
    "sub/DS": NEGATIVE,  # the delegation is provably insecure: no DS
}


def absolute(label: str, zone: str) -> str:
    return zone if label == "@" else f"{label}.{zone}"


def rdata(rtype: str, value: str, zone: str) -> str:
    if rtype in ("MX", "NS"):
        *head, target = value.split()
        return " ".join([*head, absolute(target, zone)])
    return value


# --- one real secondary per case --------------------------------------------------------------
def secondary(request: pytest.FixtureRequest, kind: str) -> tuple[dict[str, object], int]:
    """Target options and DNS port of the module's real server of ``kind`` (skips if absent)."""
    if kind == "pdns4":
        server = request.getfixturevalue("pdns_server")
        return ({"api_endpoint": server.api_url, "api_token": server.api_key,
                 "host": "127.0.0.1", "port": server.dns_port}, server.dns_port)
    if kind == "bind9":
        server = request.getfixturevalue("bind9_server")
        return ({"rndc_host": "127.0.0.1", "rndc_port": server.rndc_port,
                 "rndc_config_file": str(server.rndc_conf),
                 "host": "127.0.0.1", "port": server.dns_port}, server.dns_port)
    server = request.getfixturevalue("knot_server")
    return ({"socket": str(server.socket), "host": "127.0.0.1", "port": server.dns_port},
            server.dns_port)


@pytest.fixture(scope="module")
def pdns_without_dnssec(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pdns.PdnsServer]:
    if not pdns.available():
        pytest.skip("pdns_server with the gsqlite3 backend is not installed")
    with pdns.PdnsServer(tmp_path_factory.mktemp("pdns-nodnssec"),
                         extra_config={"gsqlite3-dnssec": "no"}) as server:
        yield server


# --- steps over HTTP ----------------------------------------------------------------------------
def create_zone(client: httpx.Client, name: str) -> str:
    zone = client.post("/v2/zones", json={"name": name, "email": f"h@{name.rstrip('.')}",
                                          "ttl": 300})
    assert zone.status_code == 202, zone.text
    url = f"/v2/zones/{zone.json()['id']}"
    for label, rtype, value in RECORDSETS:
        created = client.post(f"{url}/recordsets", json={
            "name": absolute(label, name), "type": rtype, "records": [rdata(rtype, value, name)]})
        assert created.status_code == 202, created.text
    wait_status(client, url, "ACTIVE", timeout=30)
    return url


def set_dnssec(client: httpx.Client, url: str, **body: object) -> dict:
    changed = client.put(f"{url}/dnssec", json=body)
    assert changed.status_code == 202, changed.text
    return changed.json()


def trust_anchor(setting: dict, zone: str, path: Path) -> Path:
    """The zone's KSK (flags 257) as delv's trust anchor, taken from our API, not the server."""
    lines = [f'  {zone} static-key {key["flags"]} 3 {key["algorithm"]} "{key["public_key"]}";'
             for key in setting["keys"] if key["flags"] == 257]
    assert lines, setting
    path.write_text("trust-anchors {\n" + "\n".join(lines) + "\n};\n")
    return path


# --- asking the secondary ---------------------------------------------------------------------
def delv(port: int, anchors: Path, zone: str, question: str) -> str:
    label, rtype = question.split("/")
    done = subprocess.run(["delv", "@127.0.0.1", "-p", str(port), "-a", str(anchors),
                           f"+root={zone}", absolute(label, zone), rtype],
                          capture_output=True, text=True, timeout=30)
    return done.stdout + done.stderr


def ask(port: int, name: str, rtype: str) -> dns.message.Message:
    return dns.query.tcp(dns.message.make_query(name, rtype, want_dnssec=True), "127.0.0.1",
                         port=port, timeout=5)


def dnssec_types(response: dns.message.Message) -> set[str]:
    return {dns.rdatatype.to_text(rrset.rdtype) for section in (response.answer,
                                                                response.authority)
            for rrset in section
            if rrset.rdtype in (dns.rdatatype.RRSIG, dns.rdatatype.NSEC, dns.rdatatype.NSEC3,
                                dns.rdatatype.DNSKEY)}


@pytest.mark.parametrize(("kind", "nsec", "algorithm"), [
    ("pdns4", "NSEC3", "ECDSAP256SHA256"),
    ("pdns4", "NSEC", "ECDSAP256SHA256"),
    ("bind9", "NSEC3", "ECDSAP256SHA256"),
    ("knot", "NSEC", "ED25519"),
])
def test_the_secondary_serves_the_signed_zone_then_the_unsigned_one(
        request, make_pool_yaml, tmp_path, kind: str, nsec: str, algorithm: str) -> None:
    options, port = secondary(request, kind)
    name = f"{kind}-{nsec}.example.".lower()
    with ServerProcess(pools=lambda s: make_pool_yaml(s, kind, options, port)) as server, \
            httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        url = create_zone(client, name)
        started = time.monotonic()
        setting = set_dnssec(client, url, enabled=True, algorithm=algorithm, nsec=nsec)
        wait_status(client, f"{url}/dnssec", "ACTIVE", timeout=30)
        print(f"{kind} {nsec} {algorithm}: DNSSEC on -> served signed in "
              f"{(time.monotonic() - started) * 1000:.0f} ms")
        anchors = trust_anchor(setting, name, tmp_path / "anchors")

        answers = {question: delv(port, anchors, name, question) for question in QUESTIONS}
        failed = {question: output for question, output in answers.items()
                  if QUESTIONS[question] not in output}
        assert failed == {}
        assert nsec in dnssec_types(ask(port, f"nothing.{name}", "A"))
        # delv cannot follow a referral to the server that gave it; what it validated above
        # (sub/DS) is the proof a referral below ``sub`` must carry, checked here.
        referral = ask(port, f"host.sub.{name}", "A")
        assert not referral.flags & dns.flags.AA and not referral.answer
        assert {dns.rdatatype.to_text(r.rdtype) for r in referral.authority} >= {"NS", nsec}
        assert all(r.covers != dns.rdatatype.NS for r in referral.authority), "NS signed"
        assert any(r.rdtype == dns.rdatatype.RRSIG and dns.rdatatype.to_text(r.covers) == nsec
                   for r in referral.authority), "the proof is not signed"

        # A change while signed reaches the secondary by IXFR (the signed difference): the new
        # name validates, and so do the denial proofs around it.
        late = client.post(f"{url}/recordsets", json={
            "name": f"late.{name}", "type": "A", "records": ["192.0.2.88"]})
        assert late.status_code == 202, late.text
        wait_status(client, f"{url}/recordsets/{late.json()['id']}", "ACTIVE", timeout=30)
        for question in ("late/A", "nothing/A", "www/A"):
            wanted = FULLY if question != "nothing/A" else NEGATIVE
            output = delv(port, anchors, name, question)
            assert wanted in output, (question, output)

        # Going insecure takes two steps (RFC 8078 delete records first, README): the second
        # confirms the parent dropped the DS, and only then is the zone served unsigned.
        assert set_dnssec(client, url, enabled=False)["state"] == "DISABLING"
        wait_status(client, f"{url}/dnssec", "ACTIVE", timeout=30)
        cds = ask(port, name, "CDS").answer
        assert [rd.to_text() for rrset in cds if rrset.rdtype == dns.rdatatype.CDS
                for rd in rrset] == ["0 0 0 00"], cds
        assert set_dnssec(client, url, enabled=False)["state"] == "UNSIGNED"
        wait_status(client, f"{url}/dnssec", "ACTIVE", timeout=30)
        serial = client.get(url).json()["serial"]
        assert ask(port, name, "SOA").answer[0][0].serial == serial
        for question in (("www", "A"), ("@", "DNSKEY"), ("nothing", "A")):
            response = ask(port, absolute(question[0], name), question[1])
            assert dnssec_types(response) == set(), (question, response)
        assert ask(port, f"www.{name}", "A").answer[0][0].address == "192.0.2.10"


def test_powerdns_without_dnssec_in_its_backend_puts_the_zone_in_error(
        pdns_without_dnssec, make_pool_yaml) -> None:
    server_pdns = pdns_without_dnssec
    options = {"api_endpoint": server_pdns.api_url, "api_token": server_pdns.api_key,
               "host": "127.0.0.1", "port": server_pdns.dns_port}

    def pools(server: ServerProcess) -> str:
        return make_pool_yaml(server, "pdns4", options, server_pdns.dns_port)

    with ServerProcess(pools=pools) as server, \
            httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        url = create_zone(client, "unsignable.example.")
        set_dnssec(client, url, enabled=True, algorithm="ECDSAP256SHA256", nsec="NSEC")
        zone = wait_status(client, url, "ERROR", timeout=30)
        propagation = client.get(f"{url}/propagation").text
        setting = client.get(f"{url}/dnssec").json()
    assert "gsqlite3-dnssec" in propagation, propagation
    assert zone["action"] == "UPDATE"
    # PowerDNS does serve the new serial, unsigned: the setting shares the zone's error
    assert setting["status"] == "ERROR", setting
