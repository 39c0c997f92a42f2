"""The chain of trust between two zones of the service, end to end on the embedded server.

With ``DS`` listed in ``[DEFAULT] supported_record_type``, a signed parent ``p.example.`` holds
the delegation of its signed child zone ``c.p.example.`` (NS, and a DS recordset copied from the
child's ``GET .../dnssec`` ``ds``), and of an unsigned child zone ``u.p.example.`` (NS only).
mdns signs both zones; the built-in nameserver serves both. ``delv`` is given the PARENT's KSK
only: an answer in the signed child is "fully validated" (parent DNSKEY → DS → child DNSKEY →
answer), one in the unsigned child is an "unsigned answer" whose insecurity rests on the
parent's validated proof that ``u.p.example.`` has no DS.

delv is not made to follow referrals: both children are zones served by the same nameserver,
which answers their names from the child zone and a DS query at a child's apex from the parent
(RFC 4035 §3.1.4.1), so every question delv asks gets an answer, never a referral. The referral
itself (DS with its RRSIG in the authority section) is checked with a plain DO query for a name
below a delegation to a server elsewhere.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import dns.flags
import dns.message
import dns.query
import dns.rdatatype
import httpx
import pytest

from openkeel_designate.domain import rrtypes
from support.server import ServerProcess, wait_status

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(shutil.which("delv") is None, reason="BIND's delv needed")]

PARENT, SIGNED, UNSIGNED = "p.example.", "c.p.example.", "u.p.example."
TYPES = [*rrtypes.default_supported(), "DS"]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with ServerProcess(options={"DEFAULT": {"supported_record_type": TYPES}}) as running:
        yield running


@pytest.fixture(scope="module")
def client(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as http:
        yield http


def make_zone(client: httpx.Client, name: str, records: list[tuple[str, str, list[str]]]) -> str:
    created = client.post("/v2/zones", json={"name": name, "email": f"h@{name[:-1]}", "ttl": 300})
    assert created.status_code == 202, created.text
    url = f"/v2/zones/{created.json()['id']}"
    for owner, rtype, data in records:
        response = client.post(f"{url}/recordsets", json={"name": owner, "type": rtype,
                                                           "records": data})
        assert response.status_code == 202, response.text
    wait_status(client, url, "ACTIVE")
    return url


def sign(client: httpx.Client, url: str, nsec: str) -> list[str]:
    """Signs the zone, waits until the nameservers serve it signed; its ``ds`` lines."""
    enabled = client.put(f"{url}/dnssec", json={"enabled": True, "nsec": nsec})
    assert enabled.status_code == 202, enabled.text
    return wait_status(client, f"{url}/dnssec", "ACTIVE", timeout=60)["ds"]


def delegate(client: httpx.Client, parent_url: str, child_url: str, child: str,
             ds: list[str]) -> None:
    """NS (the child's own nameservers) and, for a signed child, its DS in the parent."""
    hosts = [ns["hostname"] for ns in client.get(f"{child_url}/nameservers").json()["nameservers"]]
    for rtype, data in (("NS", hosts), ("DS", ds)):
        if data:
            response = client.post(f"{parent_url}/recordsets", json={
                "name": child, "type": rtype, "records": data})
            assert response.status_code == 202, response.text


def ask(server: ServerProcess, name: str, rtype: str) -> dns.message.Message:
    query = dns.message.make_query(name, rtype, want_dnssec=True)
    return dns.query.tcp(query, "127.0.0.1", port=server.ns_port, timeout=5)


def anchor(server: ServerProcess, zone: str, path: Path) -> Path:
    """A trust-anchors file holding ``zone``'s KSK as the nameserver serves it."""
    keys = [key for rrset in ask(server, zone, "DNSKEY").answer
            if rrset.rdtype == dns.rdatatype.DNSKEY for key in rrset if key.flags & 1]
    assert keys, f"{zone} is not served signed"
    path.write_text("trust-anchors {\n" + "".join(
        f'  {zone} static-key {key.flags} {key.protocol} {key.algorithm} '
        f'"{base64.b64encode(key.key).decode()}";\n' for key in keys) + "};\n")
    return path


def delv(server: ServerProcess, anchors: Path, name: str, rtype: str) -> str:
    result = subprocess.run(["delv", "@127.0.0.1", "-p", str(server.ns_port), "-a",
                             str(anchors), f"+root={PARENT}", name, rtype],
                            capture_output=True, text=True, timeout=30)
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def chain(server, client) -> dict[str, str | list[str]]:
    """The parent and both children, served; the child's ``ds`` and the parent's anchor."""
    parent = make_zone(client, PARENT, [
        (f"www.{PARENT}", "A", ["192.0.2.1"]),
        (f"ext.{PARENT}", "NS", ["ns.elsewhere.example."])])
    signed = make_zone(client, SIGNED, [(f"www.{SIGNED}", "A", ["192.0.2.2"])])
    unsigned = make_zone(client, UNSIGNED, [(f"www.{UNSIGNED}", "A", ["192.0.2.3"])])
    sign(client, parent, "NSEC")
    child_ds = sign(client, signed, "NSEC3")
    delegate(client, parent, signed, SIGNED, child_ds)
    delegate(client, parent, unsigned, UNSIGNED, [])
    # a secure delegation to a server elsewhere (its NS made above): any valid DS will do
    response = client.post(f"{parent}/recordsets", json={"name": f"ext.{PARENT}", "type": "DS",
                                                         "records": child_ds})
    assert response.status_code == 202, response.text
    wait_status(client, parent, "ACTIVE")
    return {"ds": child_ds}


def test_the_parent_serves_the_childs_ds_signed(server, chain) -> None:
    answer = ask(server, SIGNED, "DS").answer
    ds = next(r for r in answer if r.rdtype == dns.rdatatype.DS)
    assert sorted(r.to_text() for r in ds) == sorted(chain["ds"])
    assert any(r.rdtype == dns.rdatatype.RRSIG and r.covers == dns.rdatatype.DS for r in answer)


def test_a_referral_carries_the_ds_and_its_signature(server, chain) -> None:
    response = ask(server, f"www.ext.{PARENT}", "A")
    assert not response.flags & dns.flags.AA and not response.answer
    found = {(r.rdtype, r.covers) for r in response.authority}
    assert found == {(dns.rdatatype.NS, dns.rdatatype.NONE),
                     (dns.rdatatype.DS, dns.rdatatype.NONE),
                     (dns.rdatatype.RRSIG, dns.rdatatype.DS)}


def test_the_parents_anchor_alone_validates_the_signed_child(server, chain, tmp_path) -> None:
    anchors = anchor(server, PARENT, tmp_path / "anchors")
    for name, rtype in ((f"www.{SIGNED}", "A"), (SIGNED, "DS"), (SIGNED, "DNSKEY"),
                        (f"www.{PARENT}", "A")):
        output = delv(server, anchors, name, rtype)
        assert "; fully validated" in output, (name, rtype, output)
    output = delv(server, anchors, f"nothing.{SIGNED}", "A")
    assert "; negative response, fully validated" in output, output


def test_the_unsigned_child_is_provably_insecure(server, chain, tmp_path) -> None:
    anchors = anchor(server, PARENT, tmp_path / "anchors")
    no_ds = delv(server, anchors, UNSIGNED, "DS")
    assert "; negative response, fully validated" in no_ds, no_ds
    answer = delv(server, anchors, f"www.{UNSIGNED}", "A")
    assert "; unsigned answer" in answer and "192.0.2.3" in answer, answer


def test_a_wrong_ds_in_the_parent_breaks_the_chain(server, client, chain, tmp_path) -> None:
    """The control: validation above went through the DS, not around it."""
    parent = next(z for z in client.get("/v2/zones").json()["zones"] if z["name"] == PARENT)
    url = f"/v2/zones/{parent['id']}"
    ds = next(r for r in client.get(f"{url}/recordsets?type=DS&name={SIGNED}").json()[
        "recordsets"])
    tag, algorithm, digest_type, digest = ds["records"][0].split()
    wrong = f"{tag} {algorithm} {digest_type} {digest[::-1]}"
    updated = client.put(f"{url}/recordsets/{ds['id']}", json={"records": [wrong]})
    assert updated.status_code == 202, updated.text
    wait_status(client, url, "ACTIVE")
    anchors = anchor(server, PARENT, tmp_path / "anchors")
    output = delv(server, anchors, f"www.{SIGNED}", "A")
    assert "; fully validated" not in output and "broken trust chain" in output, output
