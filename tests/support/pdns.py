"""Run a real PowerDNS Authoritative Server (``pdns_server``) as a secondary, for tests and benches.

It runs in the foreground (``--daemon=no --guardian=no``) as the current user (``setuid=`` and
``setgid=`` left empty), with a private gsqlite3 database, control socket directory and config
under its own directory, DNS and the HTTP API on free loopback ports.  Nothing of the machine's
own PowerDNS installation (``/etc/powerdns``, ``/run/pdns``) is read or touched.

    with PdnsServer() as pdns:
        pdns.api_url, pdns.api_key, pdns.dns_port
"""

from __future__ import annotations

import secrets
import shutil
import sqlite3
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path


from support import daemon
from support.server import free_port

PDNS_BIN = "pdns_server"
SCHEMA_PATHS = (
    Path("/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql"),
    Path("/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql"),
)


def available() -> bool:
    """True when pdns_server and the gsqlite3 schema are installed (tests skip otherwise)."""
    return shutil.which(PDNS_BIN) is not None and _schema_path() is not None


def _schema_path() -> Path | None:
    return next((p for p in SCHEMA_PATHS if p.exists()), None)


class PdnsServer:
    """One pdns_server on 127.0.0.1: DNS on ``dns_port``, the API on ``api_port``."""

    def __init__(self, base_dir: str | Path | None = None, start_timeout: float = 20.0,
                 extra_config: Mapping[str, str] | None = None):
        """``extra_config``: more pdns.conf settings (e.g. ``{"cache-ttl": "0"}``), written last
        so they override ours (``{"gsqlite3-dnssec": "no"}``: a backend without DNSSEC)."""
        self._own_dir = base_dir is None
        self.extra_config = dict(extra_config or {})
        self.dir = Path(base_dir or tempfile.mkdtemp(prefix="okd-pdns-"))
        self.start_timeout = start_timeout
        self.api_key = secrets.token_hex(12)
        self.dns_port = self.api_port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    @property
    def pid(self) -> int | None:
        """The pdns_server process (also its process group: it runs in its own session)."""
        return self._proc.pid if self._proc else None

    @property
    def log_path(self) -> Path:
        return self.dir / "pdns.log"

    def start(self) -> "PdnsServer":
        self.dir.mkdir(parents=True, exist_ok=True)
        database = self.dir / "pdns.sqlite3"
        if not database.exists():
            with sqlite3.connect(database) as conn:
                conn.executescript(_schema_path().read_text())
        daemon.start_on_free_ports(lambda: self._launch(database), self._wait_ready,
                                   self._halt, self.stop)
        return self

    def _launch(self, database: Path) -> None:
        self.dns_port, self.api_port = free_port(dns=True), free_port()
        (self.dir / "pdns.conf").write_text(self._config(database))
        self._log = open(self.log_path, "ab")
        self._proc = subprocess.Popen([PDNS_BIN, f"--config-dir={self.dir}"], stdout=self._log,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      start_new_session=True)

    def _config(self, database: Path) -> str:
        return "\n".join([
            "launch=gsqlite3",
            f"gsqlite3-database={database}",
            # DNSSEC data in the backend, as a secondary of signed zones needs: PowerDNS then
            # keeps a transferred signed zone as presigned (pdns4 backend's check_served).
            "gsqlite3-dnssec=yes",
            "local-address=127.0.0.1",
            f"local-port={self.dns_port}",
            "query-local-address=127.0.0.1",
            f"socket-dir={self.dir}",
            "setuid=",
            "setgid=",
            "daemon=no",
            "guardian=no",
            "disable-syslog=yes",
            "log-timestamp=yes",
            "security-poll-suffix=",
            "secondary=yes",
            "allow-notify-from=127.0.0.0/8",
            "api=yes",
            f"api-key={self.api_key}",
            "webserver=yes",
            "webserver-address=127.0.0.1",
            f"webserver-port={self.api_port}",
            "webserver-allow-from=127.0.0.0/8",
            *(f"{key}={value}" for key, value in self.extra_config.items()),
            "",
        ])

    def _wait_ready(self) -> None:
        daemon.wait_ready("pdns_server", self._proc,
                          lambda: (self._api_answers()
                                   and daemon.owns_udp_port(self._proc.pid, self.dns_port)
                                   and daemon.udp_dns_answers(self.dns_port)),
                          self.start_timeout, self.log_tail)

    def _api_answers(self) -> bool:
        request = urllib.request.Request(self.api_url + "/api/v1/servers/localhost",
                                         headers={"X-API-Key": self.api_key})
        try:
            with urllib.request.urlopen(request, timeout=1) as resp:
                return resp.status == 200
        except (OSError, urllib.error.HTTPError):
            return False

    def _halt(self) -> None:
        daemon.terminate(self._proc, timeout=10)
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        """Terminate (then kill) the server; remove its directory if it was made here."""
        self._halt()
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def __enter__(self) -> "PdnsServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
