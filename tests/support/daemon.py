"""What the test DNS servers (PowerDNS, BIND 9, Knot) share: waiting until a started daemon
is ready, stopping it, and probing a DNS port."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

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
