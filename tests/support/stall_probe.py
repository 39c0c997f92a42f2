"""Probes that keep asking a running server while something heavy happens, and time the answers.

Why threads in the test process and not the server's own clock: what a tenant sees is the
latency of a DNS query or an API call, so that is what is measured — each probe sends a request,
waits for its answer (bounded by ``timeout``), sleeps ``interval`` and goes again. The worst
latency of a probe is the longest the server left it waiting (its "stall").

    with StallProbes(server, zone="probe.example.") as probes:
        ...  # the heavy work
    report = probes.report()   # {"mdns": ProbeStats, "nameserver": ..., "api": ...}
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import dns.message
import dns.query
import dns.rcode
import httpx


@dataclass
class ProbeStats:
    sent: int = 0
    answered: int = 0
    worst: float = 0.0
    failures: list[str] = field(default_factory=list)

    def line(self, name: str) -> str:
        return (f"{name:<10} probes {self.sent:4d}  answered {self.answered:4d}  "
                f"worst {self.worst * 1000:8.1f} ms")


def _dns_probe(port: int, name: str, rtype: str, timeout: float) -> Callable[[], None]:
    def ask() -> None:
        query = dns.message.make_query(name, rtype)
        answer = dns.query.udp(query, "127.0.0.1", port=port, timeout=timeout)
        if answer.rcode() != dns.rcode.NOERROR or not answer.answer:
            raise AssertionError(f"{name} {rtype}: {dns.rcode.to_text(answer.rcode())}")
    return ask


def _api_probe(client: httpx.Client) -> Callable[[], None]:
    def ask() -> None:
        response = client.get("/v2/zones?limit=1")
        if response.status_code != 200:
            raise AssertionError(f"GET /v2/zones: {response.status_code}")
    return ask


class StallProbes:
    """Three probe threads against one server: mdns (SOA), the built-in nameserver (A), the API."""

    def __init__(self, server: Any, zone: str, host: str | None = None,
                 interval: float = 0.02, timeout: float = 10.0):
        self._client = httpx.Client(base_url=server.api_url, headers=server.headers(),
                                    timeout=timeout)
        self._probes: dict[str, Callable[[], None]] = {
            "mdns": _dns_probe(server.mdns_port, zone, "SOA", timeout),
            "nameserver": _dns_probe(server.ns_port, host or zone, "A" if host else "SOA",
                                     timeout),
            "api": _api_probe(self._client),
        }
        self.stats = {name: ProbeStats() for name in self._probes}
        self._interval = interval
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> "StallProbes":
        for name, probe in self._probes.items():
            thread = threading.Thread(target=self._loop, args=(name, probe), daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)
        self._client.close()

    def _loop(self, name: str, probe: Callable[[], None]) -> None:
        stats = self.stats[name]
        while not self._stop.is_set():
            stats.sent += 1
            started = time.monotonic()
            try:
                probe()
            except Exception as exc:  # a timeout or a wrong answer: counted, not raised here
                stats.failures.append(f"{type(exc).__name__}: {exc}")
            else:
                stats.answered += 1
            stats.worst = max(stats.worst, time.monotonic() - started)
            self._stop.wait(self._interval)

    def worst(self) -> float:
        return max(s.worst for s in self.stats.values())

    def lines(self) -> list[str]:
        return [stats.line(name) for name, stats in self.stats.items()]
