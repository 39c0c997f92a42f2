"""``[service:api] workers``: several API processes on one port, the other roles in the parent.

One process runs the API on one core at most (one event loop, one GIL). With ``workers = N`` above
1, ``serve`` starts N children that run only the ``api`` role (central in process, as always) and
keeps every other role — worker, mdns, producer, nameserver, sink — in the parent.

* **One port**: each child opens its own listening socket with ``SO_REUSEPORT``, so the kernel
  spreads new connections over the children (a port another process listens on is refused
  first: ``refuse_taken``). A socket bound once and inherited would make them race for
  ``accept`` and, since an event loop accepts every pending connection in one go, hand a burst
  of keep-alive connections to whichever child woke first.
* **Wake-ups**: central, in a child, tells the worker a zone became pending through
  ``wake_worker``; the worker is in the parent. Each child holds the write end of one pipe, the
  parent reads it: one byte per wake-up, coalesced when the pipe is full (a wake-up is a hint,
  the worker's sweep finds the zone anyway). This works on every database. On PostgreSQL the
  parent, which alone knows whether its worker has room, makes the LISTEN/NOTIFY announcement
  for workers of other hosts when it has none (``Services.wake_worker``); a child only relays.
  Until 2026-12-07 every child announced every write itself, a round trip and a notification
  the parent took in too: 0.3-0.5 ms of CPU per POST (bench/README.md).
* **Lifecycle**: a child writes one ``READY`` byte once its listeners accept; ``start`` waits for
  all of them (a child that exits first — port taken, bad configuration — fails the start). A
  child that dies later is started again after a pause. On stop the parent sends SIGTERM to every
  child and SIGKILLs those still there after the grace. A child whose parent disappeared (killed
  with SIGKILL) stops by itself: it polls its parent id.

* **Metrics**: ``/metrics`` is the parent's; each child writes its API request counts to a file
  in a directory the parent made (``metrics_dir``), which the parent adds in at scrape time
  (``observability/api_children.py``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

LOG = logging.getLogger(__name__)
READY = b"r"
WAKE = b"w"
# Option of ``serve`` (hidden from --help) that makes a process an API child: the pipe's fd.
CHILD_OPTION = "--api-child-pipe"
# And the directory it writes its API request metrics to (``observability/api_children.py``).
METRICS_OPTION = "--api-child-metrics"
RESTART_DELAY = 1.0
PARENT_POLL_SECONDS = 1.0


def reuseport_socket(host: str, port: int) -> socket.socket:
    """A bound (not yet listening: uvicorn listens) TCP socket others of this uid may share."""
    sock = _bound(host, port, share=True)
    sock.setblocking(False)
    return sock


def refuse_taken(host: str, port: int) -> None:
    """SystemExit when another process listens on the port.

    The children's ``SO_REUSEPORT`` sockets would join a group of this user's already there: a
    second ``serve`` with ``workers`` above 1 on the same port shared its connections with the
    first instead of failing to start, as one API process does. A socket without the option
    cannot bind a port anyone listens on, so it tells before the children start."""
    try:
        _bound(host, port, share=False).close()
    except OSError as exc:
        raise SystemExit(f"cannot listen on {host}:{port}: {exc}") from exc


def _bound(host: str, port: int, share: bool) -> socket.socket:
    """A TCP socket bound to the address (``SO_REUSEADDR``: a connection in TIME_WAIT owns no
    port), with ``SO_REUSEPORT`` when ``share``."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if share:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


@dataclass
class ChildChannel:
    """The child's end: tell the parent it is ready, wake its worker, leave it metrics."""

    fd: int
    metrics_dir: Path | None = None

    def ready(self) -> None:
        os.write(self.fd, READY)

    def wake(self) -> None:
        try:
            os.write(self.fd, WAKE)
        except BlockingIOError:  # the pipe is full: the parent has wake-ups to read already
            pass

    def watch_parent(self, on_orphaned: Callable[[], None]) -> asyncio.Task:
        """Call ``on_orphaned`` once the parent is gone (its id is no longer our parent's)."""
        parent = os.getppid()

        async def poll() -> None:
            while os.getppid() == parent:
                await asyncio.sleep(PARENT_POLL_SECONDS)
            LOG.warning("API process %d: parent %d is gone, stopping", os.getpid(), parent)
            on_orphaned()

        return asyncio.create_task(poll())


def open_child_channel(fd: int, metrics_dir: str | None = None) -> ChildChannel:
    os.set_blocking(fd, False)
    return ChildChannel(fd, Path(metrics_dir) if metrics_dir else None)


class ApiProcesses:
    """The parent's side: ``count`` children started with ``argv``, supervised until ``stop``."""

    def __init__(self, count: int, argv: list[str], on_wake: Callable[[], None],
                 start_timeout: float = 120.0):
        self.count = count
        self.argv = argv
        self.on_wake = on_wake
        self.start_timeout = start_timeout
        self._read_fd, self._write_fd = os.pipe()
        self.metrics_dir = Path(tempfile.mkdtemp(prefix="okd-api-metrics-"))
        os.set_blocking(self._read_fd, False)
        self._ready = 0
        self._ready_event = asyncio.Event()
        self._children: list[asyncio.subprocess.Process | None] = [None] * count
        self._watchers: list[asyncio.Task] = []
        self._stopping = False

    @property
    def pids(self) -> list[int]:
        return [child.pid for child in self._children if child is not None]

    async def start(self) -> None:
        """Every child serving, or none left running (SystemExit says why)."""
        asyncio.get_running_loop().add_reader(self._read_fd, self._drain)
        try:
            await self._start_all()
        except BaseException:
            await self.stop(grace=5.0)
            raise

    async def _start_all(self) -> None:
        for index in range(self.count):
            await self._spawn(index)
        deadline = asyncio.get_running_loop().time() + self.start_timeout
        while self._ready < self.count:
            exited = [c for c in self._children if c is None or c.returncode is not None]
            if exited:
                raise SystemExit(f"an API process exited while starting (code "
                                 f"{exited[0].returncode if exited[0] else '?'}): see its log")
            if asyncio.get_running_loop().time() > deadline:
                raise SystemExit(f"the API processes were not ready in {self.start_timeout} s")
            self._ready_event.clear()
            try:
                await asyncio.wait_for(self._ready_event.wait(), 0.1)
            except TimeoutError:
                pass
        self._watchers = [asyncio.create_task(self._supervise(i)) for i in range(self.count)]

    async def _spawn(self, index: int) -> None:
        argv = [*self.argv, CHILD_OPTION, str(self._write_fd), METRICS_OPTION,
                str(self.metrics_dir)]
        self._children[index] = await asyncio.create_subprocess_exec(
            *argv, pass_fds=(self._write_fd,), stdin=asyncio.subprocess.DEVNULL)
        LOG.info("API process %d of %d started (pid %d)", index + 1, self.count,
                 self._children[index].pid)

    async def _supervise(self, index: int) -> None:
        """Start a child again when it dies while the server runs."""
        while not self._stopping:
            child = self._children[index]
            assert child is not None
            code = await child.wait()
            if self._stopping:
                return
            LOG.error("API process %d (pid %d) exited with %s; starting it again in %.0f s",
                      index + 1, child.pid, code, RESTART_DELAY)
            await asyncio.sleep(RESTART_DELAY)
            if not self._stopping:
                await self._spawn(index)

    def _drain(self) -> None:
        try:
            data = os.read(self._read_fd, 4096)
        except BlockingIOError:
            return
        if READY in data:
            self._ready += data.count(READY)
            self._ready_event.set()
        if WAKE in data:
            self.on_wake()

    async def stop(self, grace: float) -> None:
        """SIGTERM to every child; SIGKILL to those still running after ``grace`` seconds."""
        self._stopping = True
        for watcher in self._watchers:
            watcher.cancel()
        live = [c for c in self._children if c is not None and c.returncode is None]
        for child in live:
            _signal(child, signal.SIGTERM)
        if live:
            _, pending = await asyncio.wait([asyncio.create_task(c.wait()) for c in live],
                                            timeout=grace)
            if pending:
                for child in live:
                    if child.returncode is None:
                        LOG.warning("API process %d did not stop in %.0f s: killed", child.pid,
                                    grace)
                        _signal(child, signal.SIGKILL)
                await asyncio.gather(*(c.wait() for c in live))
        await asyncio.gather(*self._watchers, return_exceptions=True)
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._read_fd)
        os.close(self._read_fd)
        os.close(self._write_fd)
        shutil.rmtree(self.metrics_dir, ignore_errors=True)


def _signal(child: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    try:
        child.send_signal(sig)
    except ProcessLookupError:
        pass


def child_argv(config_files: list[str], debug: bool) -> list[str]:
    """The command line of one API child: this interpreter, the same files, the api role."""
    argv = [sys.executable, "-m", "openkeel_designate.cli"]
    if debug:
        argv.append("--debug")
    argv.append("serve")
    for path in config_files:
        argv += ["--config-file", os.path.abspath(path)]
    return [*argv, "--roles", "api"]
