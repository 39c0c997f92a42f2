"""A DNS proxy that makes a healthy nameserver look slow or dead, for fault tests.

Why a proxy and not a slow fake server: the zones must really be served (NOTIFY → AXFR → SOA
answers), so the proxy forwards to the server's built-in nameserver and only adds what a bad
network or an overloaded server would: a delay per message, or silence. It runs its own asyncio
loop in a thread on a free loopback port (UDP and TCP), started and stopped by the context
manager; ``delay`` and ``silent`` may be changed at any time from the test thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Self

from support.server import free_port

_UPSTREAM_TIMEOUT = 5.0


class _Udp(asyncio.DatagramProtocol):
    def __init__(self, proxy: SlowDnsProxy):
        self.proxy = proxy
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        self.proxy.forwarded += 1
        if not self.proxy.silent:
            self.proxy.spawn(self._relay(data, addr))

    async def _relay(self, data: bytes, addr: tuple) -> None:
        await asyncio.sleep(self.proxy.delay)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[bytes] = loop.create_future()

        class _Once(asyncio.DatagramProtocol):
            def datagram_received(self, reply: bytes, _addr: tuple) -> None:
                if not answer.done():
                    answer.set_result(reply)

        upstream, _ = await loop.create_datagram_endpoint(
            _Once, remote_addr=("127.0.0.1", self.proxy.upstream_port))
        try:
            upstream.sendto(data)
            reply = await asyncio.wait_for(answer, _UPSTREAM_TIMEOUT)
        except TimeoutError:
            return
        finally:
            upstream.close()
        if not self.proxy.silent and self.transport is not None:
            self.transport.sendto(reply, addr)


class SlowDnsProxy:
    """Listens on ``port`` (UDP + TCP) and forwards to ``127.0.0.1:upstream_port``.

    ``delay``: seconds added before each message is forwarded. ``silent``: swallow everything
    (queries counted, never answered; TCP connections accepted and left hanging), like a
    nameserver whose host is up but whose daemon is wedged.
    """

    def __init__(self, upstream_port: int = 0, delay: float = 0.0):
        self.upstream_port = upstream_port
        self.delay = delay
        self.silent = False
        self.port = free_port(dns=True)
        self.forwarded = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="dns-proxy", daemon=True)
        self._tasks: set[asyncio.Task] = set()
        self._closers: list = []

    def spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def __enter__(self) -> Self:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        udp, _ = await loop.create_datagram_endpoint(lambda: _Udp(self),
                                                     local_addr=("127.0.0.1", self.port))
        tcp = await asyncio.start_server(self._serve_tcp, "127.0.0.1", self.port)
        self._closers = [udp, tcp]

    async def _stop(self) -> None:
        for closer in self._closers:
            closer.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve_tcp(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A byte pipe with the delay before each client chunk (silent: read and drop)."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        self.forwarded += 1
        try:
            if self.silent:
                while await asyncio.wait_for(reader.read(4096), 30):
                    pass
                return
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
            back = asyncio.ensure_future(self._pipe(up_reader, writer, 0.0))
            try:
                await self._pipe(reader, up_writer, self.delay)
                await asyncio.wait_for(back, _UPSTREAM_TIMEOUT)
            finally:
                back.cancel()
                up_writer.close()
        except (OSError, TimeoutError, asyncio.CancelledError):
            return
        finally:
            writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    delay: float) -> None:
        while chunk := await reader.read(65536):
            if delay:
                await asyncio.sleep(delay)
            writer.write(chunk)
            await writer.drain()
        with contextlib.suppress(OSError):
            writer.write_eof()
