"""The built-in nameserver hands a zone out by AXFR/IXFR only to an address of
``[service:nameserver] allow_transfer`` or a query signed with a TSIG key known to the system
(issue 11: before, anyone could list every zone).  127.0.0.2 is loopback too, so a client bound
to it tests the address check for real."""

from __future__ import annotations

import asyncio
import base64
import time

import dns.asyncquery
import dns.exception
import dns.flags
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import dns.rrset
import dns.tsig
import httpx
import pytest

from openkeel_designate.dnswire import client
from openkeel_designate.dnswire.tsig import StaticKeyring, make_entry
from openkeel_designate.dnswire.zonedata import ServedRecord
from openkeel_designate.nameserver.handler import transfer_acl
from openkeel_designate.nameserver.server import BuiltinNameserver
from support.server import ServerProcess

ZONE = "acl.example."
SECRET = base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
KEY = dns.tsig.Key("xfr-key.", SECRET, dns.tsig.HMAC_SHA256)


def records() -> list[ServedRecord]:
    return [ServedRecord(f"h{i}.{ZONE}", "A", 300, f"192.0.2.{i}") for i in range(1, 40)]


async def start(mdns, source, tmp_path, **options) -> BuiltinNameserver:
    source.put(ZONE, 5, records())
    entry = make_entry("xfr-key.", "hmac-sha256", SECRET, "POOL", "any-pool")
    server = BuiltinNameserver([("127.0.0.1", 0)], mdns.bound, str(tmp_path),
                               keyring=StaticKeyring([entry]), **options)
    await server.start()
    host, port = server.bound[0]
    assert await client.send_notify(ZONE, host, port, timeout=2) == dns.rcode.NOERROR
    await asyncio.sleep(0)
    await server.refresher.idle()
    return server


def xfr(server: BuiltinNameserver, rdtype: str = "AXFR", *, source: str = "127.0.0.1",
        key: dns.tsig.Key | None = None, udp: bool = False) -> dns.message.Message | list:
    """The first answer message over UDP, or every RR of a TCP transfer (TransferError on a
    refusal)."""
    host, port = server.bound[0]
    q = dns.message.make_query(ZONE, rdtype)
    if rdtype == "IXFR":
        q.authority.append(dns.rrset.from_text(ZONE, 0, "IN", "SOA", ". . 1 0 0 0 0"))
    if key is not None:
        q.use_tsig(key)
    if udp:
        return dns.query.udp(q, host, port=port, timeout=1, source=source)
    serial = 1 if rdtype == "IXFR" else 0
    return [rr for message in dns.query.xfr(host, ZONE, rdtype=rdtype, port=port, timeout=2,
                                           source=source, keyring=key, serial=serial,
                                           relativize=False)
            for rrset in message.answer for rr in rrset]


def refused(call) -> bool:
    try:
        call()
    except dns.query.TransferError as exc:
        return exc.rcode == dns.rcode.REFUSED
    return False


async def test_transfers_refused_by_default(mdns, source, tmp_path) -> None:
    server = await start(mdns, source, tmp_path)
    try:
        for rdtype in ("AXFR", "IXFR"):
            assert await asyncio.to_thread(refused, lambda: xfr(server, rdtype))
            answer = await asyncio.to_thread(xfr, server, rdtype, udp=True)
            assert answer.rcode() == dns.rcode.REFUSED and not answer.answer
        host, port = server.bound[0]  # ordinary queries are still answered for everyone
        answer = await dns.asyncquery.udp(dns.message.make_query(f"h1.{ZONE}", "A"), host,
                                          port=port, timeout=1)
        assert answer.answer[0][0].address == "192.0.2.1"
    finally:
        await server.stop()


async def test_allow_transfer_opens_listed_addresses_only(mdns, source, tmp_path) -> None:
    server = await start(mdns, source, tmp_path, allow_transfer=["127.0.0.2", "10.0.0.0/8"])
    try:
        rrs = await asyncio.to_thread(xfr, server, source="127.0.0.2")
        assert len(rrs) == 1 + 1 + 39 + 1  # SOA, NS, the A records, SOA
        ixfr = await asyncio.to_thread(xfr, server, "IXFR", source="127.0.0.2")
        assert len(ixfr) == len(rrs)  # no history here: the whole zone, RFC 1995 §4
        assert await asyncio.to_thread(refused, lambda: xfr(server, source="127.0.0.3"))
        assert await asyncio.to_thread(refused, lambda: xfr(server, source="127.0.0.1"))
        udp = await asyncio.to_thread(xfr, server, source="127.0.0.2", udp=True)
        assert [r.rdtype for r in udp.answer] == [dns.rdatatype.SOA]  # AXFR over UDP: SOA + TC
        assert udp.flags & dns.flags.TC
    finally:
        await server.stop()


async def test_network_entries(mdns, source, tmp_path) -> None:
    server = await start(mdns, source, tmp_path, allow_transfer=["127.0.0.0/30"])
    try:
        assert len(await asyncio.to_thread(xfr, server, source="127.0.0.3")) == 42
        assert await asyncio.to_thread(refused, lambda: xfr(server, source="127.0.0.4"))
    finally:
        await server.stop()


async def test_tsig_signed_transfer_is_allowed_and_signed(mdns, source, tmp_path) -> None:
    server = await start(mdns, source, tmp_path)
    try:
        # dns.query.xfr verifies every message's TSIG with the key: a signed, chained answer
        assert len(await asyncio.to_thread(xfr, server, key=KEY)) == 42
        assert len(await asyncio.to_thread(xfr, server, "IXFR", key=KEY)) == 42
        wrong = dns.tsig.Key("xfr-key.", base64.b64encode(b"x" * 32).decode(),
                             dns.tsig.HMAC_SHA256)
        unknown = dns.tsig.Key("nobody.", SECRET, dns.tsig.HMAC_SHA256)
        for key in (wrong, unknown):  # a bad signature is not a credential: dropped
            with pytest.raises(dns.exception.Timeout):
                await asyncio.to_thread(xfr, server, key=key, udp=True)
    finally:
        await server.stop()


def test_bad_allow_transfer_entry_is_rejected() -> None:
    assert [str(n) for n in transfer_acl(["192.0.2.1", "10.0.0.0/8", " ", "::1"])] == [
        "192.0.2.1/32", "10.0.0.0/8", "::1/128"]
    with pytest.raises(ValueError, match="not-an-address"):
        transfer_acl(["not-an-address"])


# --- the real server: option from designate.conf, key from /v2/tsigkeys -------------------------
@pytest.mark.integration
def test_server_refuses_transfers_unless_allowed_or_signed() -> None:
    options = {"service:nameserver": {"allow_transfer": ["127.0.0.2"]}}
    with ServerProcess(options=options) as server, httpx.Client(
            base_url=server.api_url, headers=server.headers(), timeout=10) as http:
        zone = http.post("/v2/zones", json={"name": ZONE, "email": "h@acl.example"}).json()
        deadline = time.monotonic() + 20
        while http.get(f"/v2/zones/{zone['id']}").json()["status"] != "ACTIVE":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        key = http.post("/v2/tsigkeys", json={"name": "acl-key", "algorithm": "hmac-sha256",
                                              "secret": SECRET, "scope": "POOL",
                                              "resource_id": zone["pool_id"]})
        assert key.status_code == 201, key.text

        def axfr(source: str, keyring=None) -> int:
            return sum(len(rrset) for m in dns.query.xfr(
                "127.0.0.1", ZONE, port=server.ns_port, timeout=3, source=source,
                keyring=keyring) for rrset in m.answer)

        assert axfr("127.0.0.2") == 3  # SOA, NS, SOA
        assert refused(lambda: axfr("127.0.0.1"))
        signed = dns.tsig.Key("acl-key.", SECRET, dns.tsig.HMAC_SHA256)
        assert axfr("127.0.0.1", signed) == 3
