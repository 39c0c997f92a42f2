"""UDP + TCP listeners that feed raw DNS messages to a handler and send back what it returns.

Shared by mdns and the built-in nameserver: the transport knows framing and timeouts, nothing of
DNS content.  A handler gets ``(wire, peer, tcp)`` and returns the wire messages to send back (none
means "drop").  A handler error never reaches the event loop: the message is dropped and logged.
TCP connections may carry several queries; a peer that stays silent longer than
``tcp_recv_timeout`` between messages (or mid-message) is disconnected, so slow or idle clients
cannot pin connections.

UDP is where a flood arrives, so each datagram is judged before anything is spent on it: a
source over its rate (``limiter``, see ``ratelimit``) or a datagram arriving while
``max_udp_in_flight`` queries are being answered is dropped on the spot, counted in ``stats``
and reported in the log at most every ``DROP_REPORT_SECONDS``.  Dropping rather than queueing is
what keeps a flood from becoming a backlog that every later query, and every other task of the
event loop, waits behind; a client that was dropped asks again, as DNS clients do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from openkeel_designate.mdns import udp
from openkeel_designate.mdns.ratelimit import SourceRateLimiter
from openkeel_designate.observability import dns as dns_metrics

log = logging.getLogger(__name__)

Peer = tuple[str, int]
Handler = Callable[[bytes, Peer, bool], Awaitable[list[bytes]]]

_LENGTH = struct.Struct("!H")
_BIND_ATTEMPTS = 20
DEFAULT_MAX_UDP_IN_FLIGHT = 100
DROP_REPORT_SECONDS = 10.0


@dataclass(slots=True)
class UdpStats:
    """Datagrams received by a listener since it started, and those dropped unanswered."""

    received: int = 0
    rate_limited: int = 0
    over_capacity: int = 0  # max_udp_in_flight queries were being answered


class DnsListener:
    """Binds every ``(host, port)`` of ``listen`` on UDP and TCP (port 0 picks a free port)."""

    def __init__(
        self,
        listen: list[tuple[str, int]],
        handler: Handler,
        *,
        tcp_recv_timeout: float = 0.5,
        tcp_send_timeout: float = 30.0,
        backlog: int = 100,
        name: str = "dns",
        max_udp_in_flight: int = DEFAULT_MAX_UDP_IN_FLIGHT,
        limiter: SourceRateLimiter | None = None,
    ):
        """``max_udp_in_flight``: UDP queries answered at once over all of ``listen``;
        ``limiter``: the per-source UDP rate limit (None: none).  TCP is bounded by its
        timeouts instead, and never rate limited."""
        if max_udp_in_flight < 1:
            raise ValueError("max_udp_in_flight must be at least 1")
        self.listen = list(listen)
        self.handler = handler
        self.tcp_recv_timeout = tcp_recv_timeout
        self.tcp_send_timeout = tcp_send_timeout
        self.backlog = backlog
        self.name = name
        self.max_udp_in_flight = max_udp_in_flight
        self.limiter = limiter
        self.stats = UdpStats()
        self._reported = UdpStats()
        self._reported_at = float("-inf")
        self._udp_in_flight = 0
        self._servers: list[asyncio.AbstractServer] = []
        self._udp: list[udp.UdpSocket] = []
        self._tasks: set[asyncio.Task] = set()
        self._bound: list[tuple[str, int]] = []

    @property
    def bound(self) -> list[tuple[str, int]]:
        """The ``(host, port)`` pairs actually listened on, in ``listen`` order."""
        return list(self._bound)

    async def start(self) -> None:
        try:
            for host, port in self.listen:
                self._bound.append((host, await self._bind(host, port)))
        except BaseException:
            await self.stop()
            raise
        log.info("%s listening on %s", self.name, self._bound)

    async def _bind(self, host: str, port: int) -> int:
        """TCP and UDP on the same port; with port 0, retry until one port is free for both."""
        for _ in range(_BIND_ATTEMPTS if port == 0 else 1):
            server = await asyncio.start_server(
                self._serve_tcp, host, port, backlog=self.backlog, reuse_address=True
            )
            actual = server.sockets[0].getsockname()[1]
            try:
                datagrams = await udp.bind(host, actual, self._on_datagram)
            except OSError:
                server.close()
                await server.wait_closed()
                if port != 0:
                    raise
                continue
            self._servers.append(server)
            self._udp.append(datagrams)
            return actual
        raise OSError(f"no free port on {host} for both UDP and TCP")

    async def stop(self) -> None:
        for server in self._servers:
            server.close()
        for datagrams in self._udp:
            datagrams.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for server in self._servers:
            with contextlib.suppress(Exception):
                await server.wait_closed()
        self._servers.clear()
        self._udp.clear()
        self._bound.clear()
        self._report_drops(force=True)

    # --- UDP ----------------------------------------------------------------------------------
    def _on_datagram(self, sock: udp.UdpSocket, data: bytes, addr: tuple) -> bool:
        """Answer in a task of its own, unless the source is over its rate or the listener
        at its bound: then drop at once (no parsing, no task).  Returns whether to read on in
        this turn of the loop: not once the bound is reached, so that the tasks just started
        run (and quick ones finish) before a burst read in one go is judged over capacity."""
        self.stats.received += 1
        if self.limiter is not None and not self.limiter.allow(addr[0]):
            self.stats.rate_limited += 1
            dns_metrics.dropped(self.name, "rate_limited")
            self._report_drops()
            return True
        if self._udp_in_flight >= self.max_udp_in_flight:
            self.stats.over_capacity += 1
            dns_metrics.dropped(self.name, "over_capacity")
            self._report_drops()
            return True
        self._udp_in_flight += 1
        task = asyncio.get_running_loop().create_task(self._answer_udp(sock, data, addr))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return self._udp_in_flight < self.max_udp_in_flight

    async def _answer_udp(self, sock: udp.UdpSocket, data: bytes, addr: tuple) -> None:
        try:
            for wire in await self._call(data, (addr[0], addr[1]), False):
                sock.send(wire, addr)
        finally:
            # Here rather than in a done callback, which would run a turn of the loop later
            # and leave a finished query holding its slot meanwhile.
            self._udp_in_flight -= 1

    def _report_drops(self, force: bool = False) -> None:
        """One log line per ``DROP_REPORT_SECONDS`` at most (a flood must not flood the log),
        with what was dropped since the previous one; the first drop is reported at once."""
        now = time.monotonic()
        if not force and now - self._reported_at < DROP_REPORT_SECONDS:
            return
        limited = self.stats.rate_limited - self._reported.rate_limited
        capacity = self.stats.over_capacity - self._reported.over_capacity
        if limited or capacity:
            log.warning("%s dropped %d UDP queries unanswered: %d over the per-source rate "
                        "limit, %d while %d were in flight", self.name, limited + capacity,
                        limited, capacity, self.max_udp_in_flight)
        self._reported = replace(self.stats)
        self._reported_at = now

    async def _call(self, wire: bytes, peer: Peer, tcp: bool) -> list[bytes]:
        try:
            answers = await self.handler(wire, peer, tcp)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s handler failed on a message from %s; dropped", self.name, peer)
            answers = []
        dns_metrics.observe(self.name, wire, answers)
        return answers

    async def _serve_tcp(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        peername = writer.get_extra_info("peername") or ("", 0)
        peer = (peername[0], peername[1])
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                wire = await self._read_message(reader)
                if wire is None:
                    return
                for answer in await self._call(wire, peer, True):
                    writer.write(_LENGTH.pack(len(answer)) + answer)
                await asyncio.wait_for(writer.drain(), self.tcp_send_timeout)
        except (asyncio.IncompleteReadError, TimeoutError, ConnectionError, OSError):
            return
        except asyncio.CancelledError:
            # stop() cancels connections; ending normally keeps asyncio's stream callback quiet.
            return
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    async def _read_message(self, reader: asyncio.StreamReader) -> bytes | None:
        """One length-prefixed message, or None when the peer is done or too slow."""
        try:
            header = await asyncio.wait_for(reader.readexactly(2), self.tcp_recv_timeout)
            (length,) = _LENGTH.unpack(header)
            return await asyncio.wait_for(reader.readexactly(length), self.tcp_recv_timeout)
        except (asyncio.IncompleteReadError, TimeoutError):
            return None
