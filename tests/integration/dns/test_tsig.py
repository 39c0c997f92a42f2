"""TSIG on mdns: signed queries see what their key's scope opens, answers are signed (chained
over multi-message transfers), and anything unverifiable is dropped without an answer."""

from __future__ import annotations

import base64
import time

import dns.asyncquery
import dns.exception
import dns.message
import dns.name
import dns.opcode
import dns.query
import dns.rcode
import dns.rdatatype
import dns.tsig
import dns.tsigkeyring
import dns.xfr
import dns.zone
import httpx
import pytest

from openkeel_designate.dnswire.tsig import ALGORITHMS, KeyEntry, StaticKeyring, make_entry
from openkeel_designate.mdns.server import MdnsServer
from support.server import ServerProcess

POOL = "794ccc2c-d751-44fe-b57f-8894c9f5c842"
SECRET = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
OTHER_POOL = "11111111-2222-3333-4444-555555555555"


def entry(name: str, scope: str, resource: str, algorithm: str = "hmac-sha256") -> KeyEntry:
    made = make_entry(name, algorithm, SECRET, scope, resource)
    assert made is not None
    return made


async def signed(server: MdnsServer, qname: str, rdtype: str, key: dns.tsig.Key, *,
                 tcp: bool = False, timeout: float = 1.0) -> dns.message.Message:
    query = dns.message.make_query(qname, rdtype)
    query.use_tsig(key)
    host, port = server.bound[0]
    if tcp:
        return await dns.asyncquery.tcp(query, host, port=port, timeout=timeout)
    return await dns.asyncquery.udp(query, host, port=port, timeout=timeout)


@pytest.fixture
async def tsig_mdns(source):
    keyring = StaticKeyring([
        entry("pool-key.", "POOL", POOL),
        entry("other-pool-key.", "POOL", OTHER_POOL),
        entry("zone-key.", "ZONE", "id-example.org."),
        *(entry(f"{alg}.", "POOL", POOL, alg) for alg in ALGORITHMS),
    ])
    source.put("example.org.", 10)
    source.put("example.net.", 20)
    source.put("other.test.", 30, pool_id=OTHER_POOL)
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, keyring=keyring)
    async with server:
        yield server, keyring


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
async def test_every_algorithm_verifies_and_signs(tsig_mdns, algorithm) -> None:
    server, keyring = tsig_mdns
    key = keyring.lookup(dns.name.from_text(f"{algorithm}.")).key
    answer = await signed(server, "example.org.", "SOA", key)  # from_wire verified the answer
    assert answer.had_tsig and answer.rcode() == dns.rcode.NOERROR
    assert answer.answer[0][0].serial == 10


async def test_pool_key_sees_its_pool_only(tsig_mdns) -> None:
    server, keyring = tsig_mdns
    other = keyring.lookup(dns.name.from_text("other-pool-key.")).key
    assert (await signed(server, "other.test.", "SOA", other)).answer[0][0].serial == 30
    assert (await signed(server, "example.org.", "SOA", other)).rcode() == dns.rcode.REFUSED


async def test_zone_key_sees_its_zone_only(tsig_mdns) -> None:
    server, keyring = tsig_mdns
    key = keyring.lookup(dns.name.from_text("zone-key.")).key
    assert (await signed(server, "example.org.", "SOA", key)).answer[0][0].serial == 10
    assert (await signed(server, "example.net.", "SOA", key)).rcode() == dns.rcode.REFUSED


@pytest.mark.parametrize("key", [
    dns.tsig.Key("nobody-knows.", SECRET, dns.tsig.HMAC_SHA256),     # unknown key name
    dns.tsig.Key("pool-key.", base64.b64encode(b"wrong" * 8).decode(), dns.tsig.HMAC_SHA256),
    dns.tsig.Key("pool-key.", SECRET, dns.tsig.HMAC_SHA512),         # wrong algorithm
])
async def test_unverifiable_queries_get_no_answer(tsig_mdns, key) -> None:
    server, _ = tsig_mdns
    for rdtype in ("SOA", "AXFR"):
        with pytest.raises(dns.exception.Timeout):
            await signed(server, "example.org.", rdtype, key, tcp=rdtype == "AXFR", timeout=0.5)
    notify = dns.message.make_query("example.org.", "SOA")
    notify.set_opcode(dns.opcode.NOTIFY)
    notify.use_tsig(key)
    with pytest.raises(dns.exception.Timeout):
        host, port = server.bound[0]
        await dns.asyncquery.udp(notify, host, port=port, timeout=0.5)


async def test_signed_axfr_spans_messages_with_chained_signatures(source, a_records) -> None:
    source.put("big.example.", 7, a_records("big.example.", 3000))
    key_entry = entry("xfr-key.", "POOL", POOL, "hmac-sha512")
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, max_message_size=4096,
                        keyring=StaticKeyring([key_entry]))
    async with server:
        host, port = server.bound[0]
        zone = dns.zone.Zone("big.example.", relativize=False)
        query, _ = dns.xfr.make_query(zone, serial=None, keyring=key_entry.key)
        # dnspython verifies each message's TSIG against the chain (RFC 8945 §5.3.1).
        await dns.asyncquery.inbound_xfr(host, zone, query, port=port, timeout=5)
        answers = await server.handler(query.to_wire(), ("127.0.0.1", 1), True)
    assert len(list(zone.iterate_rdatas("A"))) == 3000
    assert len(answers) > 10
    ctx = None
    for wire in answers:
        message = dns.message.from_wire(wire, keyring=key_entry.key, request_mac=query.mac,
                                        tsig_ctx=ctx, multi=True)
        assert message.had_tsig
        ctx = message.tsig_ctx


async def test_signed_transfer_messages_stay_within_max_size(source, a_records) -> None:
    source.put("big.example.", 7, a_records("big.example.", 2000))
    key_entry = entry("a-rather-long-key-name.for-the-reservation.test.", "POOL", POOL,
                      "hmac-sha512")
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, max_message_size=2048,
                        keyring=StaticKeyring([key_entry]))
    async with server:
        query = dns.message.make_query("big.example.", "AXFR")
        query.use_tsig(key_entry.key)
        answers = await server.handler(query.to_wire(), ("127.0.0.1", 1), True)
    assert len(answers) > 20
    assert max(len(a) for a in answers) <= 2048


async def test_enforce_tsig_refuses_unsigned(source, ask) -> None:
    source.put("example.org.", 10)
    key_entry = entry("pool-key.", "POOL", POOL)
    server = MdnsServer(source, [("127.0.0.1", 0)], POOL, enforce_tsig=True,
                        keyring=StaticKeyring([key_entry]))
    async with server:
        host, port = server.bound[0]
        assert (await ask(host, port, "example.org.", "SOA")).rcode() == dns.rcode.REFUSED
        assert (await signed(server, "example.org.", "SOA", key_entry.key)).rcode() == \
            dns.rcode.NOERROR


async def test_without_keyring_signed_queries_are_dropped(mdns, source) -> None:
    source.put("example.org.", 10)
    with pytest.raises(dns.exception.Timeout):
        await signed(mdns, "example.org.", "SOA", entry("pool-key.", "POOL", POOL).key,
                     timeout=0.5)


@pytest.mark.integration
def test_key_created_over_the_api_is_usable_at_once() -> None:
    """The SQL keyring: a key created through /v2/tsigkeys opens its pool on the next query;
    its deletion closes it again (within the keyring's refresh interval)."""
    with ServerProcess() as server, httpx.Client(base_url=server.api_url,
                                                 headers=server.headers(), timeout=10) as client:
        zone = client.post("/v2/zones", json={"name": "tsig.example.", "email": "h@tsig.example"})
        assert zone.status_code == 202, zone.text
        pool_id = zone.json()["pool_id"]
        created = client.post("/v2/tsigkeys", json={
            "name": "api-key", "algorithm": "hmac-sha256", "secret": SECRET, "scope": "POOL",
            "resource_id": pool_id})
        assert created.status_code == 201, created.text
        key = dns.tsig.Key("api-key.", SECRET, dns.tsig.HMAC_SHA256)
        query = dns.message.make_query("tsig.example.", "SOA")
        query.use_tsig(key)
        answer = dns.query.udp(query, "127.0.0.1", port=server.mdns_port, timeout=2)
        assert answer.had_tsig and answer.answer[0].name.to_text() == "tsig.example."

        assert client.delete(f"/v2/tsigkeys/{created.json()['id']}").status_code == 204
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                dns.query.udp(query, "127.0.0.1", port=server.mdns_port, timeout=0.3)
            except dns.exception.Timeout:
                return
            time.sleep(0.3)
        raise AssertionError("a deleted key still opened the pool")
