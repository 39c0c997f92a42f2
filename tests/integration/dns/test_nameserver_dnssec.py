"""The built-in nameserver serving zones signed by BIND, checked by a real validator (delv).

Each zone is signed with ``dnssec-signzone`` (NSEC, or NSEC3 without salt or extra iterations;
ECDSAP256SHA256 or ED25519), handed to the nameserver by AXFR from a test primary as mdns would,
and queried with ``delv`` anchored at the zone's KSK.  delv asks its server as a resolver, so a
referral is not something it follows: the referral tests validate the DS, or the NSEC/NSEC3
proving there is none, with dnspython against the zone's DNSKEY instead.
"""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass

import dns.asyncquery
import dns.dnssec
import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdatatype
import pytest

from openkeel_designate.nameserver.server import BuiltinNameserver
from openkeel_designate.nameserver.zones import ServedZone, ZoneStore
from support import signed_zone
from support.signed_zone import EXAMPLE_BODY, Primary, SignedZone, sign

pytestmark = pytest.mark.skipif(not signed_zone.available() or shutil.which("delv") is None,
                                reason="BIND's dnssec-keygen, dnssec-signzone and delv needed")

CONFIGS = [("nsec", "ECDSAP256SHA256"), ("nsec3", "ED25519"), ("nsec", "ED25519"),
           ("nsec3", "ECDSAP256SHA256"), ("optout", "ED25519")]
WILDCARD_ANSWERS = {"x.wild.example./A", "a.b.wild.example./A"}
POSITIVE = ["www.example./A", "www.example./AAAA", "example./MX", "txt.example./TXT",
            "_sip._tcp.example./SRV", "example./CAA", "example./NS", "example./SOA",
            "example./DNSKEY", "alias.example./A", "x.wild.example./A", "a.b.wild.example./A",
            "secure.example./DS", "mail.example./A", "dangling.example./A"]
NEGATIVE = ["nothing.example./A", "a.b.nothing.example./TXT", "www.example./MX",
            "deep.example./A", "x.wild.example./MX", "insecure.example./DS", "www.example./DS"]


@dataclass
class Served:
    chain: str
    signed: SignedZone
    address: tuple[str, int]
    nameserver: BuiltinNameserver


@pytest.fixture(scope="module", params=CONFIGS, ids=["-".join(config) for config in CONFIGS])
async def served(request, tmp_path_factory):
    chain, algorithm = request.param
    signed = sign(tmp_path_factory.mktemp(f"{chain}-{algorithm}"), "example.", EXAMPLE_BODY,
                  algorithm=algorithm, nsec3=chain == "nsec3", optout=chain == "optout")
    async with Primary(signed.zone) as primary:
        nameserver = BuiltinNameserver([("127.0.0.1", 0)], primary.bound)
        await nameserver.start()
        try:
            assert await nameserver.refresher.refresh(signed.origin)
            yield Served(chain, signed, nameserver.bound[0], nameserver)
        finally:
            await nameserver.stop()


async def delv(served: Served, question: str, anchors=None) -> str:
    name, rdtype = question.split("/")
    process = await asyncio.create_subprocess_exec(
        "delv", "@127.0.0.1", "-p", str(served.address[1]), "-a",
        str(anchors or served.signed.anchors), "+root=example.", name, rdtype,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await asyncio.wait_for(process.communicate(), 20)
    return output.decode()


async def ask(served: Served, name: str, rdtype: str, *, dnssec: bool = True,
              payload: int = 1232, tcp: bool = False) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype, want_dnssec=dnssec, payload=payload)
    host, port = served.address
    if tcp:
        return await dns.asyncquery.tcp(query, host, timeout=2, port=port)
    return await dns.asyncquery.udp(query, host, timeout=2, port=port)


async def test_transfer_keeps_every_dnssec_record(served) -> None:
    assert served.nameserver.store.get(served.signed.origin).zone == served.signed.zone


async def test_delv_fully_validates_positive_answers(served) -> None:
    """With opt-out every NSEC3 may hide an unsigned delegation, so a wildcard answer (whose
    proof is an NSEC3 covering the next closer name) is insecure to delv: not bogus."""
    expected = {question: "; fully validated" for question in POSITIVE}
    if served.chain == "optout":
        expected.update({question: "; unsigned answer" for question in WILDCARD_ANSWERS})
    failed = {question: output for question, verdict in expected.items()
              if verdict not in (output := await delv(served, question))}
    assert failed == {}


async def test_delv_fully_validates_negative_answers(served) -> None:
    failed = {question: output for question in NEGATIVE
              if "; negative response, fully validated" not in
              (output := await delv(served, question))}
    assert failed == {}


async def test_delv_rejects_another_key(served, tmp_path) -> None:
    """The control: the same answers do not validate from a key that did not sign them."""
    other = sign(tmp_path, "example.", EXAMPLE_BODY)
    output = await delv(served, "www.example./A", anchors=other.anchors)
    assert "fully validated" not in output


def keys(served: Served) -> dict:
    origin = served.signed.origin
    return {origin: served.signed.zone.get_rdataset(origin, dns.rdatatype.DNSKEY)}


def validate_section(served: Served, section) -> set[tuple[dns.name.Name, int]]:
    """Every RRset of ``section`` checked against its RRSIG; the (owner, type) validated."""
    signatures = {(rrset.name, rrset.covers): rrset for rrset in section
                  if rrset.rdtype == dns.rdatatype.RRSIG}
    checked = set()
    for rrset in section:
        if rrset.rdtype != dns.rdatatype.RRSIG and (rrset.name, rrset.rdtype) in signatures:
            dns.dnssec.validate(rrset, signatures[(rrset.name, rrset.rdtype)], keys(served))
            checked.add((rrset.name, rrset.rdtype))
    return checked


async def test_referral_with_ds_carries_the_signed_ds(served) -> None:
    response = await ask(served, "host.secure.example.", "A")
    cut = dns.name.from_text("secure.example.")
    assert not response.flags & dns.flags.AA and response.answer == []
    assert (cut, dns.rdatatype.NS) in {(r.name, r.rdtype) for r in response.authority}
    assert validate_section(served, response.authority) == {(cut, dns.rdatatype.DS)}
    assert [r.name for r in response.additional] == [dns.name.from_text("ns.secure.example.")]


async def test_referral_without_ds_proves_there_is_none(served) -> None:
    response = await ask(served, "host.insecure.example.", "A")
    cut = dns.name.from_text("insecure.example.")
    checked = validate_section(served, response.authority)
    proofs = [r for r in response.authority
              if r.rdtype in (dns.rdatatype.NSEC, dns.rdatatype.NSEC3)]
    assert {(r.name, r.rdtype) for r in proofs} <= checked
    if served.chain == "optout":  # closest provable encloser, opt-out cover of the cut
        assert len(proofs) == 2 and proofs[1][0].flags & 1
        return
    assert len(proofs) == 1
    proof = proofs[0][0]
    if proof.rdtype == dns.rdatatype.NSEC:
        assert proofs[0].name == cut
    else:
        param = served.signed.zone.get_rdataset(served.signed.origin, dns.rdatatype.NSEC3PARAM)[0]
        digest = dns.dnssec.nsec3_hash(cut, None, param.iterations, param.algorithm)
        assert proofs[0].name.labels[0].decode().upper() == digest
    types = {t for window, bitmap in proof.windows for t in _types(window, bitmap)}
    assert dns.rdatatype.NS in types and dns.rdatatype.DS not in types


def _types(window: int, bitmap: bytes) -> list[int]:
    return [window * 256 + i * 8 + bit for i, byte in enumerate(bitmap) for bit in range(8)
            if byte & (0x80 >> bit)]


async def test_do_bit_is_echoed_and_asked_for(served) -> None:
    plain = await ask(served, "www.example.", "A", dnssec=False)
    assert all(r.rdtype == dns.rdatatype.A for r in plain.answer) and not plain.authority
    assert not plain.ednsflags & dns.flags.DO
    signed = await ask(served, "www.example.", "A")
    assert signed.ednsflags & dns.flags.DO
    assert validate_section(served, signed.answer) == {(dns.name.from_text("www.example."),
                                                        dns.rdatatype.A)}


async def test_signed_answers_too_big_for_udp_are_truncated(served) -> None:
    """``big`` fits 512 bytes without DNSSEC, not with its RRSIG: TC, and the whole over TCP."""
    plain = await ask(served, "big.example.", "TXT", dnssec=False, payload=512)
    assert not plain.flags & dns.flags.TC and len(plain.answer[0]) == 4
    small = await ask(served, "big.example.", "TXT", payload=512)
    assert small.flags & dns.flags.TC and len(small.to_wire()) <= 512
    for whole in (await ask(served, "big.example.", "TXT"),
                  await ask(served, "big.example.", "TXT", payload=512, tcp=True)):
        assert not whole.flags & dns.flags.TC
        assert validate_section(served, whole.answer) == {(dns.name.from_text("big.example."),
                                                           dns.rdatatype.TXT)}


async def test_a_persisted_signed_zone_loads_unchanged(served, tmp_path) -> None:
    await ZoneStore(str(tmp_path)).put(served.signed.zone)
    restarted = ZoneStore(str(tmp_path))
    assert restarted.load() == [served.signed.origin]
    again = restarted.get(served.signed.origin)
    original = ServedZone.of(served.signed.zone)
    assert again.zone == served.signed.zone and again.chain == original.chain


async def test_a_new_signed_version_is_indexed_anew(tmp_path) -> None:
    """Serial 2 adds ``later`` and removes ``www``: proofs come from the new chain only."""
    first = sign(tmp_path / "1", "example.", EXAMPLE_BODY, nsec3=True)
    body = EXAMPLE_BODY.replace("hostmaster 1 ", "hostmaster 2 ").replace("www A", "later A")
    second = sign(tmp_path / "2", "example.", body.replace("www AAAA", "later AAAA"),
                  nsec3=True)
    async with Primary(first.zone) as primary:
        async with BuiltinNameserver([("127.0.0.1", 0)], primary.bound) as nameserver:
            assert await nameserver.refresher.refresh(first.origin)
            primary.zones[second.origin] = second.zone
            assert await nameserver.refresher.refresh(first.origin)
            served = Served("nsec3", second, nameserver.bound[0], nameserver)
            assert "; fully validated" in await delv(served, "later.example./A")
            assert "; negative response, fully validated" in await delv(served, "www.example./A")


async def test_a_signed_child_zone_served_here_too_validates_from_the_parent(tmp_path) -> None:
    """Designate often hosts a zone and its subzone on the same nameservers: the DS of the
    child is the parent's answer, and the chain of trust runs parent → DS → child's DNSKEY."""
    child = sign(tmp_path / "child", "child.example.",
                 "@ SOA ns1 hostmaster 1 3600 600 604800 60\n@ NS ns1\nns1 A 192.0.2.80\n"
                 "www A 192.0.2.81\n", algorithm="ED25519", nsec3=True)
    delegation = "child NS ns1.child\nns1.child A 192.0.2.80\n" + child.ds
    parent = sign(tmp_path / "parent", "example.", EXAMPLE_BODY + delegation)
    async with Primary(parent.zone, child.zone) as primary:
        async with BuiltinNameserver([("127.0.0.1", 0)], primary.bound) as nameserver:
            assert await nameserver.refresher.refresh(parent.origin)
            assert await nameserver.refresher.refresh(child.origin)
            served = Served("nsec", parent, nameserver.bound[0], nameserver)
            for question in ("child.example./DS", "www.child.example./A",
                             "child.example./DNSKEY"):
                assert "; fully validated" in await delv(served, question), question
            assert "; negative response, fully validated" in await delv(
                served, "nothing.child.example./A")
