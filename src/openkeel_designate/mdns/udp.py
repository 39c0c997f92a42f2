"""One bound UDP socket, drained in batches straight from the event loop's selector.

Why not the event loop's datagram transport: asyncio's reads one datagram per turn of the loop
(uvloop's, which ``serve`` runs on, up to 32), neither can stop in the middle of a burst when
the listener is at its bound, and both leave the kernel's default receive buffer (~208 KiB: a
few hundred small datagrams).  Under a flood that buffer fills while the loop is busy elsewhere
and the kernel drops whatever arrives next — legitimate queries, NOTIFYs and the worker's SOA
polls included; ``bench/noisy_neighbour.py`` counted ~39,000 of 40,000 flood datagrams dropped
there, probes among them.  Here each wake-up reads up to ``READ_BATCH`` datagrams (a few
microseconds each when the listener drops them), the listener may stop a batch early (the rest
waits in the kernel buffer for the next turn), and the kernel is asked for a ``RECEIVE_BUFFER``
so that a pause of the loop (a long API request, a transfer being rendered) is absorbed rather
than turned into losses.  The kernel caps that request at ``net.core.rmem_max``: operators
expecting floods raise it.  Same behaviour on either loop.

Answers are sent without buffering: if the socket cannot take one now, it is dropped, as DNS
servers do (the client asks again), rather than queued in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable

log = logging.getLogger(__name__)

READ_BATCH = 256
RECEIVE_BUFFER = 4 * 1024 * 1024
MAX_DATAGRAM = 65535

OnDatagram = Callable[["UdpSocket", bytes, tuple], bool]


class UdpSocket:
    """Calls ``on_datagram(self, data, address)`` for every datagram (False: read no more in
    this turn of the event loop, the rest waits in the kernel buffer); ``send`` answers."""

    def __init__(self, sock: socket.socket, on_datagram: OnDatagram):
        self.sock = sock
        self.on_datagram = on_datagram
        self.closed = False
        self._buffer = bytearray(MAX_DATAGRAM)
        self._view = memoryview(self._buffer)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(sock.fileno(), self._readable)

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def send(self, wire: bytes, address: tuple) -> None:
        if self.closed:
            return
        try:
            self.sock.sendto(wire, address)
        except OSError as exc:  # full send buffer, unreachable peer: the client asks again
            log.debug("UDP answer to %s dropped: %r", address, exc)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._loop.remove_reader(self.sock.fileno())
            self.sock.close()

    def _readable(self) -> None:
        for _ in range(READ_BATCH):
            try:
                size, address = self.sock.recvfrom_into(self._buffer)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. an ICMP error reported for an earlier answer
                log.debug("UDP receive error: %r", exc)
                continue
            if not self.on_datagram(self, bytes(self._view[:size]), address) or self.closed:
                return


async def bind(host: str, port: int, on_datagram: OnDatagram) -> UdpSocket:
    """A non-blocking UDP socket bound to ``(host, port)`` with a large receive buffer."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_DGRAM)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setblocking(False)
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
        sock.bind(address)
        return UdpSocket(sock, on_datagram)
    except BaseException:
        sock.close()
        raise
