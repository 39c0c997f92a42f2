"""A noisy neighbour against one running server, and probes of what a quiet tenant still gets.

Used by ``tests/integration/faults/test_noisy_neighbour.py`` (which asserts that every probe was
answered correctly) and ``bench/noisy_neighbour.py`` (which prints how long the worst answers
took). One member project abuses everything it may reach at once:

* a zone import of ``$GENERATE 1-100000`` (``POST /v2/zones/tasks/imports``, ``text/dns``);
* 10 MiB request bodies, with ``Content-Length`` and chunked without it;
* slow-loris clients sending their request headers one byte at a time;
* a UDP query flood at mdns and at the built-in nameserver, from other loopback addresses
  (127.0.0.2, 127.0.0.3), so a per-source limit of the server hits the flood, not the probes.

The attacks run in a process of their own. Every attack stops at a deadline and after a
bounded count. Meanwhile probes (threads) keep
asking well-formed questions as another project: mdns SOA (from 127.0.0.1, the address of the
pool's nameserver, which mdns never rate limits: it stands for the pool), the nameserver's A
record (from ``RESOLVER``, an address like any resolver's, below the nameserver's per-client
rate), an API read, and recordset writes that must go ACTIVE. A probe's "stall" is the time it
waited for its answer; a DNS probe resends after ``RESEND_SECONDS`` as a resolver does, and the
resends are counted.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import random
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import dns.message
import dns.rcode
import dns.rdatatype
import httpx

NOISY, QUIET = "okd-noisy", "okd-quiet"
MEMBER = "reader,member"  # what Keystone gives a member (member implies reader)
BIG_BODY = 10 * 1024 * 1024
PIECE = 64 * 1024
RESEND_SECONDS = 1.0
DNS_TRIES = 5
ATTACK_SOURCES = ("127.0.0.2", "127.0.0.3")
POOL_NAMESERVER, RESOLVER = "127.0.0.1", "127.0.0.4"
ATTACKS = ("import", "bodies", "loris", "udp")
ATTACKER_NICE = 10

GENERATE_ZONEFILE = """$ORIGIN noisy.example.
$TTL 300
@ IN SOA ns1.example.net. hostmaster.noisy.example. 1 3600 600 86400 300
@ IN NS ns1.example.net.
$GENERATE 1-100000 host-$ IN A 192.0.2.1
"""


def headers(project: str) -> dict[str, str]:
    """noauth headers of a member (not admin) of ``project``, as Keystone would send them."""
    return {"X-Auth-Project-ID": project, "X-Roles": MEMBER, "Content-Type": "application/json",
            "Accept": "application/json"}


# ------------------------------------------------------------------------------------ probes
@dataclass
class ProbeStats:
    """The answers of one probe kind: round trips (s), failures (wrong or missing answers)."""

    kind: str
    times: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    resends: int = 0

    @property
    def worst(self) -> float:
        return max(self.times, default=0.0)

    @property
    def p99(self) -> float:
        if not self.times:
            return 0.0
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]

    def line(self) -> str:
        return (f"{self.kind:<22} answered {len(self.times):5d}  failed {len(self.failures):3d}  "
                f"resends {self.resends:3d}  p99 {self.p99 * 1000:8.1f} ms  "
                f"worst {self.worst * 1000:8.1f} ms")


def dns_ask(port: int, qname: str, rtype: str, stats: ProbeStats,
            expect: Callable[[dns.message.Message], str | None], source: str) -> None:
    """One well-formed UDP question from ``source``, resent like a resolver; records the
    stall."""
    query = dns.message.make_query(qname, rtype)
    wire = query.to_wire()
    started = time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((source, 0))
        sock.settimeout(RESEND_SECONDS)
        for attempt in range(DNS_TRIES):
            if attempt:
                stats.resends += 1
            sock.sendto(wire, ("127.0.0.1", port))
            try:
                while True:
                    data, _ = sock.recvfrom(65535)
                    answer = dns.message.from_wire(data)
                    if answer.id == query.id:
                        break
            except (TimeoutError, socket.timeout):
                continue
            problem = expect(answer)
            if problem:
                stats.failures.append(f"{qname} {rtype}: {problem}")
            else:
                stats.times.append(time.monotonic() - started)
            return
    stats.failures.append(f"{qname} {rtype}: no answer after {DNS_TRIES} tries")


def expect_soa(answer: dns.message.Message) -> str | None:
    if answer.rcode() != dns.rcode.NOERROR:
        return dns.rcode.to_text(answer.rcode())
    if not any(rrset.rdtype == dns.rdatatype.SOA for rrset in answer.answer):
        return "no SOA in the answer"
    return None


def expect_address(address: str) -> Callable[[dns.message.Message], str | None]:
    def check(answer: dns.message.Message) -> str | None:
        if answer.rcode() != dns.rcode.NOERROR:
            return dns.rcode.to_text(answer.rcode())
        got = [rd.address for rrset in answer.answer if rrset.rdtype == dns.rdatatype.A
               for rd in rrset]
        return None if got == [address] else f"answered {got}, not [{address}]"
    return check


class Prober:
    """Probe threads that repeat until ``stop()``: each kind one question at a time."""

    def __init__(self, interval: float = 0.02):
        self.interval = interval
        self.stats: dict[str, ProbeStats] = {}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def every(self, kind: str, ask: Callable[[ProbeStats], None]) -> None:
        stats = self.stats.setdefault(kind, ProbeStats(kind))

        def loop() -> None:
            while not self._stop.is_set():
                try:
                    ask(stats)
                except Exception as exc:  # noqa: BLE001 - a probe failure is a finding, recorded
                    stats.failures.append(f"{type(exc).__name__}: {exc}")
                self._stop.wait(self.interval)

        thread = threading.Thread(target=loop, name=f"probe-{kind}", daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)


def api_read(client: httpx.Client, path: str) -> Callable[[ProbeStats], None]:
    def ask(stats: ProbeStats) -> None:
        started = time.monotonic()
        response = client.get(path)
        if response.status_code != 200:
            stats.failures.append(f"GET {path}: {response.status_code} {response.text[:200]}")
        else:
            stats.times.append(time.monotonic() - started)
    return ask


@dataclass
class Write:
    name: str
    address: str
    posted_at: float
    status: int
    id: str | None = None
    active_after: float | None = None


class QuietWrites:
    """The quiet project creates A recordsets (``ask``, called by a ``Prober`` at its interval)
    in its zone and watches each go ACTIVE (one listing poll for all of them)."""

    def __init__(self, client: httpx.Client, zone_id: str, zone_name: str, limit: int = 40,
                 prefix: str = "w"):
        self.client, self.zone_id, self.zone_name = client, zone_id, zone_name
        self.limit, self.prefix = limit, prefix
        self.writes: list[Write] = []
        self.post_stats = ProbeStats("recordset POST")
        self.active_stats = ProbeStats("recordset POST->ACTIVE")

    def ask(self, stats: ProbeStats) -> None:  # the Prober calls this every interval
        if len(self.writes) >= self.limit:
            return
        i = len(self.writes) + 1
        name, address = f"{self.prefix}{i}.{self.zone_name}", f"198.51.100.{i}"
        started = time.monotonic()
        response = self.client.post(f"/v2/zones/{self.zone_id}/recordsets",
                                    json={"name": name, "type": "A", "records": [address]})
        write = Write(name, address, started, response.status_code)
        if response.status_code in (201, 202):
            write.id = response.json()["id"]
            self.post_stats.times.append(time.monotonic() - started)
        else:
            self.post_stats.failures.append(f"POST {name}: {response.status_code} "
                                            f"{response.text[:200]}")
        self.writes.append(write)
        self.watch()

    def watch(self) -> None:
        """Note when each accepted write was first seen ACTIVE."""
        pending = {w.id: w for w in self.writes if w.id and w.active_after is None}
        if not pending:
            return
        listed = self.client.get(f"/v2/zones/{self.zone_id}/recordsets",
                                 params={"type": "A", "limit": 1000})
        now = time.monotonic()
        for rs in listed.json().get("recordsets", []):
            write = pending.get(rs["id"])
            if write is not None and rs["status"] == "ACTIVE":
                write.active_after = now - write.posted_at
                self.active_stats.times.append(write.active_after)

    def settle(self, timeout: float = 60.0) -> None:
        """Bounded wait for every accepted write to be seen ACTIVE (or the zone to go ERROR)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.watch()
            if all(w.active_after is not None for w in self.writes if w.id):
                return
            time.sleep(0.1)
        for write in self.writes:
            if write.id and write.active_after is None:
                self.active_stats.failures.append(f"{write.name} not ACTIVE after {timeout}s")


# ----------------------------------------------------------------------------------- attacks
@dataclass
class AttackLog:
    """What each attack sent and what it got back (for the report, and a few checks)."""

    imports: list[tuple[int, str]] = field(default_factory=list)  # (status, task id or body)
    bodies: list[tuple[str, str]] = field(default_factory=list)  # (kind, outcome)
    loris_held: list[float] = field(default_factory=list)  # seconds until the server hung up
    loris_outcomes: list[str] = field(default_factory=list)
    udp_sent: dict[int, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        held = ", ".join(f"{h:.1f} s ({o})" for h, o in zip(self.loris_held, self.loris_outcomes))
        return [f"noisy imports sent: {len(self.imports)}",
                f"10 MiB bodies: {dict(Counter(self.bodies))}",
                f"slow-loris held: {held or '-'}",
                f"UDP flood packets sent per port: {self.udp_sent}"]


def _status_line(sock: socket.socket) -> str:
    """The status of whatever answer the server sent, or how the connection ended."""
    data = b""
    with contextlib.suppress(OSError):
        sock.settimeout(10)
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    if data.startswith(b"HTTP/"):
        return data.split(b"\r\n", 1)[0].split(b" ")[1].decode()
    return "closed"


def big_body(port: int, chunked: bool) -> str:
    """POST a 10 MiB JSON-ish body to /v2/zones; returns the status code or 'closed'."""
    head = (f"POST /v2/zones HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"X-Auth-Project-ID: {NOISY}\r\nX-Roles: {MEMBER}\r\n"
            "Content-Type: application/json\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {BIG_BODY}\r\n\r\n"
    piece = b"[" + b"1," * (PIECE // 2 - 1) + b"1"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(head.encode())
            for _ in range(BIG_BODY // len(piece)):
                if chunked:
                    sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                else:
                    sock.sendall(piece)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except OSError:  # the server answered early and hung up: read what it said
            pass
        return _status_line(sock)


def slow_loris(port: int, deadline: float, log: AttackLog, byte_every: float = 0.05) -> None:
    """Send request headers one byte at a time until the server hangs up or the deadline."""
    request = (f"GET /v2/zones HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               f"X-Auth-Project-ID: {NOISY}\r\nX-Roles: {MEMBER}\r\n"
               + "".join(f"X-Padding-{i}: {'a' * 20}\r\n" for i in range(200)) + "\r\n").encode()
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        outcome = "held until the deadline"
        for i in range(len(request)):
            if time.monotonic() > deadline:
                break
            try:
                sock.sendall(request[i:i + 1])
            except OSError:
                outcome = "server hung up"
                break
            time.sleep(byte_every)
        else:
            outcome = f"request complete: {_status_line(sock)}"
        log.loris_held.append(time.monotonic() - started)
        log.loris_outcomes.append(outcome)


def udp_flood(port: int, source: str, deadline: float, max_packets: int) -> int:
    """Well-formed queries for random names, as fast as one thread sends; returns the count."""
    rng = random.Random(port)
    sent = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((source, 0))
        sock.setblocking(False)
        templates = [dns.message.make_query(f"flood-{i}.noisy.example.", "A").to_wire()
                     for i in range(64)]
        while sent < max_packets and time.monotonic() < deadline:
            wire = bytearray(rng.choice(templates))
            struct.pack_into("!H", wire, 0, rng.getrandbits(16))
            try:
                sock.sendto(wire, ("127.0.0.1", port))
                sent += 1
            except BlockingIOError:
                time.sleep(0.0005)
            with contextlib.suppress(BlockingIOError):
                while True:
                    sock.recv(65535)  # drop the answers: the flood never waits for them
    return sent


def noisy_import(client: httpx.Client, log: AttackLog) -> None:
    response = client.post("/v2/zones/tasks/imports", content=GENERATE_ZONEFILE,
                           headers={"Content-Type": "text/dns"})
    body = response.json() if response.headers.get("content-type", "").startswith(
        "application/json") else {}
    log.imports.append((response.status_code, body.get("id") or response.text[:200]))


def _run_attacks(api_url: str, ports: dict[str, int], seconds: float, udp_packets: int,
                 loris: int, imports: int, kinds: tuple[str, ...]) -> AttackLog:
    """Run the ``kinds`` of attack in threads for at most ``seconds``; returns what they got."""
    log = AttackLog()
    deadline = time.monotonic() + seconds
    client = httpx.Client(base_url=api_url, headers=headers(NOISY), timeout=30)
    threads: list[threading.Thread] = []

    def start(target: Callable[..., Any], *args: Any) -> None:
        def run() -> None:
            try:
                target(*args)
            except Exception as exc:  # noqa: BLE001 - an attack that fails is noted, not fatal
                log.bodies.append((target.__name__, f"{type(exc).__name__}: {exc}"))
        thread = threading.Thread(target=run, name=f"attack-{target.__name__}", daemon=True)
        thread.start()
        threads.append(thread)

    def bodies() -> None:
        while time.monotonic() < deadline:
            for chunked in (False, True):
                log.bodies.append(("chunked" if chunked else "content-length",
                                   big_body(ports["api"], chunked)))

    def flood(port: int, source: str) -> None:
        log.udp_sent[port] = udp_flood(port, source, deadline, udp_packets)

    if "import" in kinds:
        for _ in range(imports):
            start(noisy_import, client, log)
    if "bodies" in kinds:
        start(bodies)
    if "loris" in kinds:
        for _ in range(loris):
            start(slow_loris, ports["api"], deadline, log)
    if "udp" in kinds:
        start(flood, ports["mdns"], ATTACK_SOURCES[0])
        start(flood, ports["nameserver"], ATTACK_SOURCES[1])
    for thread in threads:
        thread.join(timeout=seconds + 60)
    client.close()
    return log


def _attacker(channel: Any, nice: int, *args: Any) -> None:
    """The attacker process: lowers its priority by ``nice``, says it is ready, attacks, sends
    back its log."""
    os.nice(nice)
    channel.send("ready")
    channel.send(_run_attacks(*args))
    channel.close()


@contextlib.contextmanager
def attack(server: Any, seconds: float, udp_packets: int, loris: int = 4, imports: int = 2,
           kinds: tuple[str, ...] = ATTACKS, nice: int = ATTACKER_NICE) -> Iterator[AttackLog]:
    """Run the ``kinds`` of attack for at most ``seconds``; the body of the ``with`` runs while
    they do, and leaving it waits for them (each bounded by the deadline) and fills the log.

    The attacker is a process of its own, as a real one would be: its flood threads busy a
    Python interpreter, and sharing the probes' interpreter (and its lock) would count the
    attacker's own contention as the server's stall.  It runs ``nice``-d: a real attacker
    spends its own machine's CPU, not the server's; on one 2-core machine a lower priority is
    the nearest stand-in (it still takes every cycle the server leaves)."""
    log = AttackLog()
    ports = {"api": server.api_port, "mdns": server.mdns_port, "nameserver": server.ns_port}
    parent, child = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(
        target=_attacker, name="noisy-attacker", daemon=True,
        args=(child, nice, server.api_url, ports, seconds, udp_packets, loris, imports, tuple(kinds)))
    process.start()
    child.close()
    try:
        if not parent.poll(60) or parent.recv() != "ready":
            raise RuntimeError("the attacker process did not start")
        yield log
    finally:
        with contextlib.suppress(EOFError):  # an attacker that died sends nothing back
            if parent.poll(seconds + 90):
                done: AttackLog = parent.recv()
                for name in ("imports", "bodies", "loris_held", "loris_outcomes"):
                    getattr(log, name).extend(getattr(done, name))
                log.udp_sent.update(done.udp_sent)
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
        parent.close()


def import_outcomes(server: Any, log: AttackLog, timeout: float = 60.0) -> list[str]:
    """Bounded wait for the noisy imports to end; their final status and message."""
    out = []
    with httpx.Client(base_url=server.api_url, headers=headers(NOISY), timeout=10) as client:
        for status, task_id in log.imports:
            if status != 202:
                out.append(f"POST {status}: {task_id}")
                continue
            deadline = time.monotonic() + timeout
            while True:
                task = client.get(f"/v2/zones/tasks/imports/{task_id}").json()
                if task.get("status") != "PENDING" or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            out.append(f"{task.get('status')}: {task.get('message')}")
    return out
