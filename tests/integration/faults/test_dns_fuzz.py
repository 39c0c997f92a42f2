"""Hostile traffic against mdns and the built-in nameserver of one running server.

Per port, at the same time: seeded malformed, truncated, oversized and random packets over UDP
and TCP (with bogus length prefixes and pipelining), slow-loris clients sending one byte a second,
many idle connections and half-open ones — while a probe keeps asking well-formed questions that
must get correct answers within a bound. The server must stay up, answer garbage only with
silence or FORMERR/REFUSED/NOTIMP/NOTAUTH (spec/async.md §4), and disconnect clients that hold
a connection without completing a message. Set ``OKD_FUZZ_SEED`` to replay another seed.
"""

from __future__ import annotations

import asyncio
import os
import random
import struct
import time
from collections import Counter
from dataclasses import dataclass, field

import dns.asyncquery
import dns.exception
import dns.message
import dns.rcode
import dns.rdatatype
import httpx
import pytest
from dnsfuzz import CATEGORIES, check_answer, packets, valid_query
from faultkit import wait_terminal
from support.server import ServerProcess

pytestmark = pytest.mark.integration

SEED = int(os.environ.get("OKD_FUZZ_SEED", "20261129"))
UDP_PACKETS = 1500
TCP_PACKETS = 500  # 2,000 packets per port in all
TCP_CONCURRENCY = 8
SLOW_LORIS = 4
IDLE_CONNECTIONS = 150
HALF_OPEN = 20
PROBE_BOUND = 3.0  # seconds a well-formed query may take while under attack
# Probes that must have run while the attack lasted: two rounds of SOA over UDP and A over TCP.
# How many more fit depends on how fast this machine gets through the attack, not on the server.
MIN_PROBES = 4
HOLD_BOUND = 12.0  # seconds a client that never completes a message may hold a connection
ZONE, HOST, ADDRESS = "fuzz.example.", "www.fuzz.example.", "192.0.2.53"


@dataclass
class Report:
    """What one port went through; ``problems`` must stay empty."""

    port: int
    problems: list[str] = field(default_factory=list)
    answers: Counter = field(default_factory=Counter)
    probes: int = 0
    slowest_probe: float = 0.0
    held: list[float] = field(default_factory=list)


def _frame(wire: bytes) -> bytes:
    return struct.pack("!H", len(wire)) + wire


def _frames(data: bytes) -> list[bytes]:
    """Split a TCP byte stream into messages (a trailing partial frame is ignored)."""
    out, offset = [], 0
    while offset + 2 <= len(data):
        (length,) = struct.unpack_from("!H", data, offset)
        if offset + 2 + length > len(data):
            break
        out.append(data[offset + 2: offset + 2 + length])
        offset += 2 + length
    return out


def _judge(report: Report, category: str, wire: bytes) -> None:
    problem = check_answer(wire)
    if problem is None:
        report.answers[dns.rcode.to_text(dns.message.from_wire(wire, ignore_trailing=True).rcode())] += 1
    else:
        report.problems.append(f"{category}: {problem}")


# --- UDP ---------------------------------------------------------------------------------------
class _Collector(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.received: list[bytes] = []

    def datagram_received(self, data: bytes, _addr: tuple) -> None:
        self.received.append(data)


async def udp_fuzz(report: Report, seed: int) -> None:
    loop = asyncio.get_running_loop()
    transport, collector = await loop.create_datagram_endpoint(
        _Collector, remote_addr=("127.0.0.1", report.port))
    try:
        for index, (_category, wire) in enumerate(packets(seed, UDP_PACKETS)):
            transport.sendto(wire)
            if index % 50 == 49:
                await asyncio.sleep(0.02)  # a flood, but one the kernel buffers can hold
        await asyncio.sleep(1.0)
    finally:
        transport.close()
    for wire in collector.received:
        _judge(report, "udp", wire)


# --- TCP ---------------------------------------------------------------------------------------
def _tcp_payload(rng: random.Random, wire: bytes) -> tuple[str, bytes]:
    """One connection's bytes: correct framing, a lying length prefix, or pipelined messages."""
    kind = rng.choice(["framed", "framed", "long-prefix", "short-prefix", "zero", "pipelined"])
    if kind == "long-prefix":
        return kind, struct.pack("!H", min(65535, len(wire) + rng.randrange(1, 5000))) + wire
    if kind == "short-prefix":
        return kind, struct.pack("!H", max(0, len(wire) - rng.randrange(1, 12))) + wire
    if kind == "zero":
        return kind, b"\x00\x00" + _frame(valid_query(rng))
    if kind == "pipelined":
        return kind, _frame(wire) + _frame(valid_query(rng)) + _frame(wire[:65535])
    return kind, _frame(wire[:65535])


async def _tcp_exchange(report: Report, kind: str, payload: bytes) -> None:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", report.port), 5)
    except (OSError, TimeoutError) as exc:
        report.problems.append(f"tcp connect refused under fuzz: {exc!r}")
        return
    try:
        writer.write(payload)
        await writer.drain()
        writer.write_eof()  # half-close: the server must answer what it got, then hang up
        data = await asyncio.wait_for(reader.read(), HOLD_BOUND)
        for wire in _frames(data):
            _judge(report, f"tcp/{kind}", wire)
    except TimeoutError:
        report.problems.append(f"tcp/{kind}: server kept a half-closed connection open")
    except OSError:
        pass  # a reset after garbage is an acceptable way to hang up
    finally:
        writer.close()


async def tcp_fuzz(report: Report, seed: int) -> None:
    rng = random.Random(seed + 1)
    work = [_tcp_payload(rng, wire) for _category, wire in packets(seed + 2, TCP_PACKETS)]
    gate = asyncio.Semaphore(TCP_CONCURRENCY)

    async def one(kind: str, payload: bytes) -> None:
        async with gate:
            await _tcp_exchange(report, kind, payload)

    await asyncio.gather(*(one(kind, payload) for kind, payload in work))


async def _held_for(report: Report, writer: asyncio.StreamWriter, reader: asyncio.StreamReader,
                    started: float, label: str) -> None:
    """Wait for the server to hang up on a client that never completes a message."""
    try:
        while await asyncio.wait_for(reader.read(4096), HOLD_BOUND):
            pass
        report.held.append(time.monotonic() - started)
    except TimeoutError:
        report.problems.append(f"{label}: connection still open after {HOLD_BOUND}s")
    except OSError:
        report.held.append(time.monotonic() - started)
    finally:
        writer.close()


async def slow_loris(report: Report) -> None:
    """Each client sends a valid framed query one byte per second."""
    async def client(index: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", report.port)
        started = time.monotonic()
        data = _frame(dns.message.make_query(HOST, "A").to_wire())

        async def drip() -> None:
            for byte in data:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(1.0)

        dripping = asyncio.ensure_future(drip())
        try:
            await _held_for(report, writer, reader, started, f"slow-loris {index}")
        finally:
            dripping.cancel()
            await asyncio.gather(dripping, return_exceptions=True)

    await asyncio.gather(*(client(i) for i in range(SLOW_LORIS)))


async def idle_and_half_open(report: Report) -> None:
    """Many connections that send nothing, and some that send half a message and half-close."""
    async def idle() -> None:
        started = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", report.port)
        await _held_for(report, writer, reader, started, "idle connection")

    async def half_open() -> None:
        started = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", report.port)
        try:
            writer.write(_frame(valid_query(random.Random(report.port)))[:7])
            await writer.drain()
            writer.write_eof()
        except OSError:  # the server hung up first: that is the point
            report.held.append(time.monotonic() - started)
            writer.close()
            return
        await _held_for(report, writer, reader, started, "half-open connection")

    await asyncio.gather(*(idle() for _ in range(IDLE_CONNECTIONS)),
                         *(half_open() for _ in range(HALF_OPEN)))


# --- the probe ---------------------------------------------------------------------------------
async def probe(report: Report, done: asyncio.Event) -> None:
    """Well-formed questions all along; each must be answered correctly within PROBE_BOUND."""
    while not done.is_set():
        for rdtype, via_tcp in ((dns.rdatatype.SOA, False), (dns.rdatatype.A, True)):
            query = dns.message.make_query(HOST if rdtype == dns.rdatatype.A else ZONE, rdtype)
            started = time.monotonic()
            try:
                if via_tcp:
                    answer = await dns.asyncquery.tcp(query, "127.0.0.1", port=report.port,
                                                      timeout=PROBE_BOUND)
                else:
                    answer = await _udp_with_retries(query, report.port)
            except Exception as exc:  # noqa: BLE001 - a timeout or reset is the finding
                report.problems.append(f"probe {dns.rdatatype.to_text(rdtype)}: {exc!r}")
                continue
            elapsed = time.monotonic() - started
            report.probes += 1
            report.slowest_probe = max(report.slowest_probe, elapsed)
            if answer.rcode() != dns.rcode.NOERROR or not answer.answer:
                report.problems.append(f"probe {dns.rdatatype.to_text(rdtype)}: {answer}")
            elif rdtype == dns.rdatatype.A and [r.address for r in answer.answer[0]] != [ADDRESS]:
                report.problems.append(f"probe A: wrong answer {answer.answer}")
        await asyncio.sleep(0.2)


async def _udp_with_retries(query: dns.message.Message, port: int) -> dns.message.Message:
    """As a resolver asks: UDP may be dropped by a kernel buffer the flood filled, so three tries
    of a third of the bound each; only no answer at all within the bound is a failure."""
    for attempt in range(3):
        try:
            return await dns.asyncquery.udp(query, "127.0.0.1", port=port, timeout=PROBE_BOUND / 3)
        except dns.exception.Timeout:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


async def attack(port: int, seed: int) -> Report:
    report = Report(port)
    done = asyncio.Event()
    watcher = asyncio.ensure_future(probe(report, done))
    try:
        await asyncio.wait_for(asyncio.gather(
            udp_fuzz(report, seed), tcp_fuzz(report, seed), slow_loris(report),
            idle_and_half_open(report)), 150)
    finally:
        done.set()
        await watcher
    return report


async def unanswered(port: int, categories: list[str], seed: int) -> list[str]:
    """Send packets the spec says to drop; return the categories that got an answer anyway."""
    loop = asyncio.get_running_loop()
    rng = random.Random(seed)
    answered: list[str] = []
    for category in categories:
        transport, collector = await loop.create_datagram_endpoint(
            _Collector, remote_addr=("127.0.0.1", port))
        try:
            for _ in range(5):
                transport.sendto(CATEGORIES[category](rng))
            await asyncio.sleep(0.5)
        finally:
            transport.close()
        if collector.received:
            answered.append(f"{category}: {len(collector.received)} answers")
    return answered


def test_mdns_and_nameserver_survive_hostile_traffic() -> None:
    with ServerProcess(wait_dns=True) as server:
        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=20)
        zone = client.post("/v2/zones", json={"name": ZONE, "email": "h@fuzz.example"}).json()
        rs = client.post(f"/v2/zones/{zone['id']}/recordsets", json={
            "name": HOST, "type": "A", "records": [ADDRESS]}).json()
        assert not wait_terminal(client, [f"/v2/zones/{zone['id']}/recordsets/{rs['id']}"], 30)

        async def both() -> list[Report]:
            return list(await asyncio.gather(attack(server.mdns_port, SEED),
                                             attack(server.ns_port, SEED + 100)))

        reports = asyncio.run(both())
        # spec/async.md §4: what cannot be parsed or verified gets no answer at all
        dropped = ["qr-set", "pointer-loop", "long-name"]
        assert not asyncio.run(unanswered(server.mdns_port, [*dropped, "tsig-unknown"], SEED))
        assert not asyncio.run(unanswered(server.ns_port, dropped, SEED))

        assert server.is_running(), server.log_tail()
        assert client.get("/v2/zones").status_code == 200
        for report, name in zip(reports, ("mdns", "nameserver"), strict=True):
            summary = (f"{name}: answers {dict(report.answers)}, {report.probes} probes, slowest "
                       f"{report.slowest_probe:.2f}s, longest hold {max(report.held, default=0):.1f}s")
            print(summary)
            assert not report.problems, f"{summary}\n" + "\n".join(report.problems[:20])
            assert report.probes >= MIN_PROBES, summary
            assert len(report.held) == SLOW_LORIS + IDLE_CONNECTIONS + HALF_OPEN, summary
        log = server.log_path.read_text(errors="replace")
        for crash in ("handler failed", "mdns failed answering", "Task exception was never retrieved",
                      "Exception in callback", "Traceback"):
            assert crash not in log, f"{crash!r} in the server log:\n{server.log_tail(60)}"
