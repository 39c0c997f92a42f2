"""What a UDP flood may make mdns and the built-in nameserver do (issue 11): real listeners on
loopback, floods from one address of 127/8 while other addresses ask.

* a flooding address is rate limited (token bucket: at most its burst plus its rate over the
  time it flooded) while another address is answered, and TCP from the flooder still is;
* the addresses that must never be starved are exempt: the pools' nameservers and the
  operator's list for mdns, the masters and the operator's list for the nameserver;
* past ``max_udp_in_flight`` queries in flight a datagram is dropped, not queued: once the
  handler is free again, nothing of the excess is answered;
* the receive buffer holds a burst that arrives while the event loop is busy elsewhere;
* on the real server, as configured by default, the pool's own addresses are exempt.
"""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import dns.asyncquery
import dns.message
import dns.rcode
import pytest

from openkeel_designate.mdns.server import MdnsServer
from openkeel_designate.mdns.transport import DnsListener
from openkeel_designate.mdns.udp import RECEIVE_BUFFER
from openkeel_designate.nameserver.server import BuiltinNameserver
from support.server import ServerProcess

from conftest import POOL, MemorySource  # type: ignore[import-not-found]

ZONE = "guard.example."


def query_wire(i: int, name: str = ZONE, rdtype: str = "SOA") -> bytes:
    query = dns.message.make_query(name, rdtype)
    query.id = i & 0xFFFF
    return query.to_wire()


class Flooder:
    """A UDP socket bound to one loopback address that sends without waiting and counts the
    answers that came back."""

    def __init__(self, source: str):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((source, 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
        self.sent = 0
        self.started = 0.0

    def send(self, target: tuple[str, int], count: int) -> None:
        self.started = self.started or time.monotonic()
        for i in range(count):
            self.sock.sendto(query_wire(self.sent + i), target)
        self.sent += count

    def answers(self) -> list[dns.message.Message]:
        self.sock.setblocking(False)
        out = []
        while True:
            try:
                out.append(dns.message.from_wire(self.sock.recv(65535)))
            except BlockingIOError:
                return out

    def close(self) -> None:
        self.sock.close()


async def settled(listener: DnsListener, received: int) -> float:
    """Wait until the listener has seen ``received`` datagrams and answered all it took on
    (answers on loopback are in the client's buffer once sent); returns when (monotonic)."""
    deadline = time.monotonic() + 20
    while listener.stats.received < received or listener._udp_in_flight:
        assert time.monotonic() < deadline, (listener.stats, listener._udp_in_flight)
        await asyncio.sleep(0.01)
    return time.monotonic()


async def flood_answered(listener: DnsListener, flood: Flooder, count: int) -> int:
    """Send ``count`` queries at once; how many were answered."""
    before = listener.stats.received
    flood.send(listener.bound[0], count)
    await settled(listener, before + count)
    return len(flood.answers())


async def ask_from(source: str, port: int, name: str = ZONE, rdtype: str = "SOA", *,
                   tcp: bool = False) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype)
    if tcp:
        return await dns.asyncquery.tcp(query, "127.0.0.1", port=port, source=source, timeout=5)
    return await dns.asyncquery.udp(query, "127.0.0.1", port=port, source=source, timeout=5)


@pytest.fixture
def zone_source(source: MemorySource) -> MemorySource:
    source.put(ZONE, 7)
    return source


async def test_a_flood_from_one_address_is_limited_while_another_is_answered(zone_source) -> None:
    rate = 10
    async with MdnsServer(zone_source, [("127.0.0.1", 0)], POOL, udp_rate_limit=rate) as mdns:
        port = mdns.bound[0][1]
        flood = Flooder("127.0.0.2")
        try:
            flood.send(mdns.bound[0], 500)
            quiet = await ask_from("127.0.0.3", port)
            assert quiet.rcode() == dns.rcode.NOERROR and quiet.answer
            ended = await settled(mdns.listener, 501)
            answered = len(flood.answers())
            burst = rate  # one second's worth (below a quarter of the in-flight bound)
            assert burst <= answered <= burst + rate * (ended - flood.started) + 1
            assert mdns.listener.stats.rate_limited == 500 - answered
            # TCP proves the address and is never limited.
            assert (await ask_from("127.0.0.2", port, tcp=True)).rcode() == dns.rcode.NOERROR
        finally:
            flood.close()


async def test_mdns_never_limits_the_pools_nameservers_nor_its_exempt_list(zone_source) -> None:
    peers = ["127.0.0.5", "ns1.example.net"]  # names in pools.yaml are skipped, not resolved

    async def peer_hosts() -> list[str]:
        return peers

    async with MdnsServer(zone_source, [("127.0.0.1", 0)], POOL, udp_rate_limit=1,
                          udp_rate_limit_exempt=["127.0.0.4/32"], peers=peer_hosts) as mdns:
        for address in ("127.0.0.4", "127.0.0.5"):
            flood = Flooder(address)
            try:
                assert await flood_answered(mdns.listener, flood, 200) == 200, address
            finally:
                flood.close()
        assert mdns.listener.stats.rate_limited == 0
        # The pools change (manage pool update): the next refresh follows them.
        peers[:] = ["127.0.0.6"]
        assert mdns.exemption is not None
        await mdns.exemption.refresh()
        for address, answered in (("127.0.0.6", 200), ("127.0.0.5", 1)):
            flood = Flooder(address)
            try:
                assert await flood_answered(mdns.listener, flood, 200) == answered, address
            finally:
                flood.close()


async def test_the_nameserver_never_limits_its_masters(tmp_path: Path) -> None:
    masters = [("127.0.0.7", 5354)]  # nobody listens there: no zone, every answer REFUSED
    async with BuiltinNameserver([("127.0.0.1", 0)], masters, str(tmp_path),
                                 udp_rate_limit=5, udp_rate_limit_exempt=["127.0.0.11"]) as ns:
        for address in ("127.0.0.7", "127.0.0.11"):
            master = Flooder(address)
            try:
                assert await flood_answered(ns.listener, master, 100) == 100, address
            finally:
                master.close()
        other = Flooder("127.0.0.8")
        try:
            answered = await flood_answered(ns.listener, other, 100)
            assert answered <= 5 + 5 * (time.monotonic() - other.started) + 1
            assert ns.listener.stats.rate_limited == 100 - answered
        finally:
            other.close()


async def test_past_the_in_flight_bound_datagrams_are_dropped_not_queued() -> None:
    release = asyncio.Event()
    entered: list[bytes] = []

    async def slow_handler(wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        entered.append(wire)
        await release.wait()
        return [wire]  # echo: enough to count what was answered

    listener = DnsListener([("127.0.0.1", 0)], slow_handler, max_udp_in_flight=5)
    await listener.start()
    client = Flooder("127.0.0.9")
    try:
        client.send(listener.bound[0], 12)
        await settled_received(listener, 12)
        assert len(entered) == 5
        assert listener.stats.over_capacity == 7
        release.set()
        await settled(listener, 12)
        assert len(client.answers()) == 5  # the seven others are gone, not waiting
        assert len(entered) == 5
        # With the slots free again, a new query is answered.
        assert await flood_answered(listener, client, 1) == 1 and len(entered) == 6
    finally:
        client.close()
        await listener.stop()


async def settled_received(listener: DnsListener, received: int) -> None:
    deadline = time.monotonic() + 20
    while listener.stats.received < received:
        assert time.monotonic() < deadline, listener.stats
        await asyncio.sleep(0.01)


def _rmem_max() -> int:
    try:
        return int(Path("/proc/sys/net/core/rmem_max").read_text())
    except (OSError, ValueError):
        return 0


@pytest.mark.skipif(_rmem_max() < RECEIVE_BUFFER,
                    reason="net.core.rmem_max below the listeners' 4 MiB receive buffer: the "
                           "kernel caps it, so a burst this size may be dropped by design")
async def test_a_burst_arriving_while_the_loop_is_busy_is_received() -> None:
    async def echo(wire: bytes, peer: tuple[str, int], tcp: bool) -> list[bytes]:
        return []

    listener = DnsListener([("127.0.0.1", 0)], echo)
    await listener.start()
    client = Flooder("127.0.0.10")
    try:
        # Sent while this test holds the event loop: the listener reads nothing meanwhile. With
        # a default receive buffer (~200 KiB, a few hundred datagrams) most would be lost.
        client.send(listener.bound[0], 3000)
        await settled_received(listener, 3000)
        assert listener.stats.received == 3000
    finally:
        client.close()
        await listener.stop()


def collect(flood: Flooder, wanted: int, quiet: float) -> int:
    """Answers received until ``wanted`` arrived or none came for ``quiet`` seconds."""
    flood.sock.settimeout(quiet)
    got = 0
    while got < wanted:
        try:
            flood.sock.recv(65535)
        except (TimeoutError, socket.timeout):
            break
        got += 1
    return got


@pytest.mark.integration
def test_the_real_server_limits_a_flood_but_never_its_own_pool() -> None:
    """Defaults as shipped: mdns exempts the default pool's nameserver (127.0.0.1, read from
    the pools), the nameserver its master (mdns, 127.0.0.1); another address is limited."""
    with ServerProcess(wait_dns=True) as server:
        for port, rate in ((server.mdns_port, 20), (server.ns_port, 100)):
            pool = Flooder("127.0.0.1")
            try:
                for _ in range(10):  # 500 queries within seconds, 50 at a time
                    pool.send(("127.0.0.1", port), 50)
                    assert collect(pool, 50, 5.0) == 50, port
            finally:
                pool.close()
            stranger = Flooder("127.0.0.12")
            try:
                stranger.send(("127.0.0.1", port), 500)
                answered = collect(stranger, 500, 1.0)
                burst = min(rate, 100 / 4)  # a quarter of the default in-flight bound at most
                assert 1 <= answered <= burst + rate * (time.monotonic() - stranger.started) + 1
            finally:
                stranger.close()
