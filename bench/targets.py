"""The two systems measured: our server (started here) and the real Designate 23.0.0 (/work/shared/ref).

Both are reduced to a ``Target``: an API URL, the DNS server whose answer counts as "answered"
(our built-in nameserver; the reference's PowerDNS secondary), the process groups whose memory
and CPU are the service's, and polling parameters. Polling differs per target on purpose: the
reference API saturates two cores at ~170 req/s, so polling it every 10 ms would slow the very
thing being timed; it is polled every 100 ms like its own baseline bench.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from support.bind9 import Bind9Server  # noqa: E402
from support.knot import KnotServer  # noqa: E402
from support.pdns import PdnsServer  # noqa: E402
from support.reflock import setup_lock  # noqa: E402
from support.server import ServerProcess  # noqa: E402  (needs the sys.path line above)

BENCH_QUOTAS = {"quota_zones": 100000, "quota_zone_recordsets": 100000, "quota_zone_records": 100000,
                "quota_recordset_records": 100, "quota_api_export_size": 100000}


@dataclass
class Target:
    """What the measurements need to know about one running system."""

    label: str
    api_url: str
    dns_port: int
    dns_label: str
    pgids: Callable[[], list[int]]
    # How often a change's status is polled until ACTIVE: the figure's resolution. Ours on its
    # built-in nameserver is ACTIVE 10-20 ms after the POST, so it is polled every 2 ms (polled
    # every 10 ms, zones ACTIVE 9.4 ms after their creation by the server's clock, p50, were
    # seen ACTIVE 23.3 ms after the POST: bench/README.md, "Issue 13, session of 2026-12-07
    # (17:24-)"); ours with a PowerDNS, BIND 9 or Knot target (25-500 ms) every 10 ms; the
    # reference (seconds) every 100 ms.
    api_poll_s: float
    dns_poll_s: float
    pause_s: tuple[float, float]
    notes: list[str] = field(default_factory=list)


def http_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=3) as resp:
            resp.read()
        return True
    except urllib.error.HTTPError:
        return True
    except (OSError, ValueError):
        return False


class Ours:
    """Our server on the embedded default (SQLite unless asked otherwise, built-in nameserver)."""

    def __init__(self, database: str = "sqlite"):
        self.server = ServerProcess(options={"DEFAULT": dict(BENCH_QUOTAS)}, database=database,
                                    project="bench", wait_dns=True, start_timeout=120)
        self.database = database

    def start(self) -> Target:
        self.server.start()
        pid = self.server.pid
        assert pid is not None
        return Target(label="ours", api_url=self.server.api_url, dns_port=self.server.ns_port,
                      dns_label="built-in nameserver", pgids=lambda: [pid], api_poll_s=0.002,
                      dns_poll_s=0.005, pause_s=(0.0, 0.05),
                      notes=[f"openkeel-designate serve, {self.database}, one process"])

    def stop(self) -> None:
        self.server.stop()


# The reference's PowerDNS (/tmp/ref/etc/pdns/pdns.conf, written by /work/shared/ref/setup.sh) runs
# without answer caches and with a 5 s refresh cycle; the bench's PowerDNS gets the same settings so
# that "answered by PowerDNS" means the same thing on both sides.
REF_PDNS_SETTINGS = {"cache-ttl": "0", "query-cache-ttl": "0", "negquery-cache-ttl": "0",
                     "xfr-cycle-interval": "5", "allow-axfr-ips": "127.0.0.0/8", "disable-axfr": "no"}


def secondary_pool_yaml(server: ServerProcess, target_type: str, dns_port: int,
                        options: dict[str, object]) -> str:
    """The default pool, whose only target and only nameserver is one real secondary server."""
    option_lines = "".join(f"        {key}: {value}\n" for key, value in options.items())
    return f"""---
- name: default
  description: bench pool, one real {target_type} server
  attributes: {{}}
  ns_records:
    - hostname: ns1.example.net.
      priority: 1
  nameservers:
    - host: 127.0.0.1
      port: {dns_port}
  targets:
    - type: {target_type}
      description: {target_type} {dns_port}
      masters:
        - host: 127.0.0.1
          port: {server.mdns_port}
      options:
        host: 127.0.0.1
        port: {dns_port}
{option_lines}"""


# Row label -> (target type, what the row's pool options are, in the bench's words).
SECONDARY_ROWS = {
    "ours": ("pdns4", "pdns4 target, default options (axfr_retrieve)"),
    "ours-no-axfr_retrieve": ("pdns4", "pdns4 target, axfr_retrieve: false (Designate's calls)"),
    "ours-bind9": ("bind9", "bind9 target (rndc addzone), NOTIFY"),
    "ours-knot": ("knot", "knot target (knotc), NOTIFY"),
}


class OursSecondary:
    """Our server whose default pool is one real secondary (PowerDNS, BIND 9 or Knot), started
    here; PowerDNS gets the reference's settings.

    ``row``: a key of ``SECONDARY_ROWS``; ``ours`` is PowerDNS with the default pdns4 options
    (create and update also ask it to transfer at once), ``ours-no-axfr_retrieve`` the opt-out
    (PowerDNS transfers when its secondary loop wakes after the NOTIFY).
    """

    def __init__(self, row: str, database: str = "sqlite", server_src: Path | None = None):
        self.label = row
        self.kind, self.description = SECONDARY_ROWS[row]
        self.dns = self._make_dns()
        env = {"PYTHONPATH": str(server_src.resolve())} if server_src else None
        self.server = ServerProcess(options={"DEFAULT": dict(BENCH_QUOTAS)}, database=database,
                                    project="bench", wait_dns=True, start_timeout=120,
                                    pools=self._pools, env=env)
        self.database = database

    def _make_dns(self):  # noqa: ANN202 - PdnsServer | Bind9Server | KnotServer
        if self.kind == "bind9":
            return Bind9Server()
        if self.kind == "knot":
            return KnotServer()
        return PdnsServer(extra_config=REF_PDNS_SETTINGS)

    def _options(self) -> dict[str, object]:
        if self.kind == "bind9":
            return {"rndc_host": "127.0.0.1", "rndc_port": self.dns.rndc_port,
                    "rndc_config_file": str(self.dns.rndc_conf)}
        if self.kind == "knot":
            return {"socket": str(self.dns.socket)}
        options: dict[str, object] = {"api_endpoint": self.dns.api_url, "api_token": self.dns.api_key}
        if self.label == "ours-no-axfr_retrieve":
            options["axfr_retrieve"] = "false"
        return options

    def _pools(self, server: ServerProcess) -> str:
        return secondary_pool_yaml(server, self.kind, self.dns.dns_port, self._options())

    @property
    def pdns(self):  # noqa: ANN201 - kept for callers that knew only PowerDNS
        return self.dns

    def start(self) -> Target:
        self.dns.start()
        self.server.start()
        pid = self.server.pid
        assert pid is not None
        label = {"pdns4": "PowerDNS", "bind9": "BIND 9", "knot": "Knot"}[self.kind]
        return Target(label=self.label, api_url=self.server.api_url, dns_port=self.dns.dns_port,
                      dns_label=f"{label} (pool target)", pgids=lambda: [pid], api_poll_s=0.01,
                      dns_poll_s=0.005, pause_s=(0.0, 0.05),
                      notes=[f"openkeel-designate serve, {self.database}; pool: {self.description}"])

    def stop(self) -> None:
        try:
            self.server.stop()
        finally:
            self.dns.stop()


class RefUnavailable(RuntimeError):
    """The reference stack could not be set up or started; the message says why."""


def ref_ports() -> dict[str, int]:
    """The reference stack's moved ports (environment overrides), clear of our servers'."""
    return {name: int(os.environ.get(name, default)) for name, default in
            (("API_PORT", 9101), ("MDNS_PORT", 5454), ("PDNS_PORT", 5400), ("PDNS_API_PORT", 8181))}


class Ref:
    """The real Designate 23.0.0 through /work/shared/ref's scripts, on moved ports.

    Only what this object started is stopped: the Designate services (by their pid files,
    through stop.sh) and PowerDNS if it was not running before. MariaDB and RabbitMQ are
    shared with the rest of the machine and left alone.
    """

    def __init__(self, scripts: Path, ref_dir: Path, ports: dict[str, int], setup_timeout: float = 1800):
        self.scripts = scripts
        self.ref_dir = ref_dir
        self.ports = ports
        self.setup_timeout = setup_timeout
        self.api_url = f"http://127.0.0.1:{ports['API_PORT']}"
        self.started = False
        self.pdns_pid_before: int | None = None
        self.log = ref_dir.parent / f"{ref_dir.name}-bench.log"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["REF_DIR"] = str(self.ref_dir)
        env.update({k: str(v) for k, v in self.ports.items()})
        return env

    def _run(self, script: str, *args: str, timeout: float) -> None:
        with open(self.log, "ab") as log:
            log.write(f"\n=== {script} {' '.join(args)} {time.strftime('%H:%M:%S')}\n".encode())
            log.flush()
            try:
                done = subprocess.run(["bash", str(self.scripts / script), *args], env=self._env(),
                                      stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      timeout=timeout, check=False)
            except subprocess.TimeoutExpired as exc:
                raise RefUnavailable(f"{script} timed out after {timeout:.0f}s (log {self.log})") from exc
        if done.returncode != 0:
            tail = "\n".join(self.log.read_text(errors="replace").splitlines()[-8:])
            raise RefUnavailable(f"{script} exited {done.returncode} (log {self.log}):\n{tail}")

    def _pid_file(self, name: str) -> int | None:
        try:
            pid = int((self.ref_dir / "run" / f"{name}.pid").read_text().strip())
            os.kill(pid, 0)
            return pid
        except (OSError, ValueError):
            return None

    def _is_set_up(self) -> bool:
        return ((self.ref_dir / "etc" / "designate.conf").exists()
                and (self.ref_dir / "venv" / "bin" / "designate-central").exists())

    def start(self) -> Target:
        if not self.scripts.is_dir():
            raise RefUnavailable(f"{self.scripts} not found")
        # Read before setup.sh: it starts PowerDNS too (to load the pool), and a PowerDNS that
        # setup.sh started for this run is ours to stop.
        self.pdns_pid_before = self._pid_file("pdns")
        if not self._is_set_up():
            with setup_lock():
                self._run("setup.sh", timeout=self.setup_timeout)
        notes = []
        if http_answers(self.api_url + "/"):
            notes.append("reference stack was already running: idle RSS is not 'fresh after start'")
        else:
            self.started = True
            self._run("start.sh", timeout=300)
        if not http_answers(self.api_url + "/"):
            raise RefUnavailable(f"reference API {self.api_url} does not answer after start.sh")
        notes.append("designate 23.0.0: api (gunicorn 2w x 4 threads), central, worker, producer, mdns; "
                     "MariaDB + RabbitMQ; PowerDNS 4 secondary")
        return Target(label="ref", api_url=self.api_url, dns_port=self.ports["PDNS_PORT"],
                      dns_label="PowerDNS secondary", pgids=self._designate_pgids, api_poll_s=0.1,
                      dns_poll_s=0.005, pause_s=(0.5, 5.5), notes=notes)

    def _designate_pgids(self) -> list[int]:
        """start.sh runs each service under setsid: its pid file holds the process group id."""
        names = ("central", "worker", "producer", "mdns", "api")
        return [pid for pid in (self._pid_file(f"designate-{n}") for n in names) if pid]

    def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        try:
            self._run("stop.sh", timeout=120)
        finally:
            pdns = self._pid_file("pdns")
            if pdns and self.pdns_pid_before is None:
                _terminate(pdns)


def _terminate(pid: int, timeout: float = 10.0) -> None:
    """SIGTERM one process we started, SIGKILL if it lingers (bounded)."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
