"""What the test DNS servers (PowerDNS, BIND 9, Knot) share: waiting until a started daemon
is ready, stopping it, and probing a DNS port."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import dns.exception
import dns.message
import dns.query


def udp_dns_answers(port: int) -> bool:
    """Any DNS reply on UDP means the listener is up (a refused query is fine)."""
    try:
        dns.query.udp(dns.message.make_query(".", "SOA"), "127.0.0.1", port=port, timeout=0.3)
        return True
    except (OSError, dns.exception.DNSException):
        return False


class PortTaken(RuntimeError):
    """Another process has a socket on the daemon's port: start it again on new ports."""


def owns_udp_port(group: int, port: int) -> bool:
    """Whether the process group ``group`` (a daemon started in a session of its own) has a UDP
    socket on 127.0.0.1:``port``; PortTaken when another process has one there too.

    Each pytest worker picks free ports on its own, so two can pick the same number. knotd
    binds with ``SO_REUSEPORT`` and then shares the port with another worker's knotd, and
    named carries on without a listener it could not open: an answer on the port alone may
    come from another test's server."""
    inodes = _udp_inodes(port)
    if not inodes:
        return False
    foreign = inodes - _socket_inodes(group)
    if foreign:
        raise PortTaken(f"UDP port {port} is shared with another process")
    return True


def _udp_inodes(port: int) -> set[str]:
    """Socket inodes bound to 127.0.0.1:``port`` over UDP (``/proc/net/udp``)."""
    local = f"0100007F:{port:04X}"
    lines = Path("/proc/net/udp").read_text().splitlines()[1:]
    return {fields[9] for fields in map(str.split, lines) if fields[1] == local}


def _socket_inodes(group: int) -> set[str]:
    """Socket inodes open in any process of the process group ``group``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) != group:
                continue
            for fd in (entry / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    found.add(target[8:-1])
        except (OSError, IndexError, ValueError):  # the process ended meanwhile
            continue
    return found


def start_on_free_ports(launch: Callable[[], None], wait: Callable[[], None],
                        halt: Callable[[], None], stop: Callable[[], None],
                        attempts: int = 3) -> None:
    """``launch`` (which picks free ports), then ``wait``; when the ports turn out to be shared
    with another process (PortTaken), ``halt`` and launch again on new ones. Any failure left
    ``stop``s the daemon (and its directory) before it is raised."""
    try:
        for attempt in range(attempts):
            launch()
            try:
                wait()
                return
            except PortTaken:
                halt()
                if attempt + 1 == attempts:
                    raise
    except BaseException:
        stop()
        raise


def wait_ready(name: str, proc: subprocess.Popen | None, ready: Callable[[], bool],
               timeout: float, log_tail: Callable[[], str]) -> None:
    """Bounded wait for ``ready()``; a daemon that exits early fails at once with its log."""
    deadline = time.monotonic() + timeout
    while not ready():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{name} exited {proc.returncode}\n{log_tail()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} not ready in {timeout}s\n{log_tail()}")
        time.sleep(0.05)


def terminate(proc: subprocess.Popen | None, timeout: float = 15.0) -> None:
    """SIGTERM, then SIGKILL if the daemon does not exit in ``timeout`` seconds."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
