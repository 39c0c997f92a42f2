"""UDP + TCP listeners that feed raw DNS messages to a handler and send back what it returns.

Shared by mdns and the built-in nameserver: the transport knows framing and timeouts, nothing of
DNS content.  A handler gets ``(wire, peer, tcp)`` and returns the wire messages to send back (none
means "drop").  A handler error never reaches the event loop: the message is dropped and logged.
TCP connections may carry several queries; a peer that stays silent longer than
``tcp_recv_timeout`` between messages (or mid-message) is disconnected, so slow or idle clients
cannot pin connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Peer = tuple[str, int]
Handler = Callable[[bytes, Peer, bool], Awaitable[list[bytes]]]

_LENGTH = struct.Struct("!H")
_BIND_ATTEMPTS = 20


class _UdpProtocol(asyncio.DatagramProtocol):
    def __init__(self, listener: DnsListener):
        self.listener = listener
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        self.listener._spawn(self._answer(data, addr))

    async def _answer(self, data: bytes, addr: tuple) -> None:
        for wire in await self.listener._call(data, (addr[0], addr[1]), False):
            if self.transport is not None and not self.transport.is_closing():
                self.transport.sendto(wire, addr)

    def error_received(self, exc: Exception) -> None:
        log.debug("UDP error: %r", exc)


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
    ):
        self.listen = list(listen)
        self.handler = handler
        self.tcp_recv_timeout = tcp_recv_timeout
        self.tcp_send_timeout = tcp_send_timeout
        self.backlog = backlog
        self.name = name
        self._servers: list[asyncio.AbstractServer] = []
        self._udp: list[asyncio.DatagramTransport] = []
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
                transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
                    lambda: _UdpProtocol(self), local_addr=(host, actual)
                )
            except OSError:
                server.close()
                await server.wait_closed()
                if port != 0:
                    raise
                continue
            self._servers.append(server)
            self._udp.append(transport)  # type: ignore[arg-type]
            return actual
        raise OSError(f"no free port on {host} for both UDP and TCP")

    async def stop(self) -> None:
        for server in self._servers:
            server.close()
        for transport in self._udp:
            transport.close()
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

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _call(self, wire: bytes, peer: Peer, tcp: bool) -> list[bytes]:
        try:
            return await self.handler(wire, peer, tcp)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s handler failed on a message from %s; dropped", self.name, peer)
            return []

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
