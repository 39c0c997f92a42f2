"""Run a real Knot DNS (``knotd``) with a private control socket, for tests and benches.

knotd stays in the foreground unless ``-d`` is given and, with no ``server.user`` in its
config, keeps running as the current user (root in CI); rundir, database storage, zone files and
the control socket all live in its own directory.  It starts from a text config with no zones:
the knot backend adds them at run time through ``knotc conf-*`` transactions.

    with KnotServer() as knot:
        knot.dns_port, knot.socket
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


from support import daemon
from support.server import free_port

KNOTD_BIN = "knotd"
KNOTC_BIN = "knotc"


def available() -> bool:
    return shutil.which(KNOTD_BIN) is not None and shutil.which(KNOTC_BIN) is not None


class KnotServer:
    """One knotd on 127.0.0.1: DNS on ``dns_port``, control on the UNIX socket ``socket``."""

    def __init__(self, base_dir: str | Path | None = None, start_timeout: float = 20.0):
        self._own_dir = base_dir is None
        self.dir = Path(base_dir or tempfile.mkdtemp(prefix="okd-knot-"))
        self.start_timeout = start_timeout
        self.dns_port = 0
        self._socket_dir: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = None

    @property
    def socket(self) -> Path:
        """In the server's directory, unless that path is too long for a UNIX socket (108
        bytes); then in a short temporary directory of its own."""
        if self._socket_dir is None:
            inside = self.dir / "knot.sock"
            if len(str(inside)) < 100:
                return inside
            self._socket_dir = Path(tempfile.mkdtemp(prefix="okd-knotc-"))
        return self._socket_dir / "knot.sock"

    @property
    def conf_path(self) -> Path:
        return self.dir / "knot.conf"

    @property
    def zones_dir(self) -> Path:
        return self.dir / "zones"

    @property
    def log_path(self) -> Path:
        return self.dir / "knotd.log"

    def knotc(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run knotc against this server (for tests checking what the driver did)."""
        return subprocess.run([KNOTC_BIN, "-s", str(self.socket), *args], capture_output=True,
                              text=True, timeout=30, check=False)

    def start(self) -> "KnotServer":
        self.dir.mkdir(parents=True, exist_ok=True)
        self.zones_dir.mkdir(exist_ok=True)
        # knotd keeps its journal there; without the directory it takes every IXFR, fails to
        # store the change ("failed to store changes (not exists)") and asks for an AXFR.
        (self.dir / "db").mkdir(exist_ok=True)
        daemon.start_on_free_ports(self._launch, self._wait_ready, self._halt, self.stop)
        return self

    def _launch(self) -> None:
        self.dns_port = free_port(dns=True)
        self.conf_path.write_text(self._config())
        self._log = open(self.log_path, "ab")
        self._proc = subprocess.Popen(
            [KNOTD_BIN, "-c", str(self.conf_path), "-s", str(self.socket)],
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)

    def _config(self) -> str:
        return f"""server:
    rundir: "{self.dir}"
    listen: 127.0.0.1@{self.dns_port}
log:
  - target: stderr
    any: info
database:
    storage: "{self.dir}/db"
template:
  - id: default
    storage: "{self.zones_dir}"
"""

    def _wait_ready(self) -> None:
        daemon.wait_ready("knotd", self._proc,
                          lambda: (self.socket.exists()
                                   and daemon.owns_udp_port(self._proc.pid, self.dns_port)
                                   and daemon.udp_dns_answers(self.dns_port)
                                   and self.knotc("status").returncode == 0),
                          self.start_timeout, self.log_tail)

    def _halt(self) -> None:
        daemon.terminate(self._proc, timeout=15)
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        """Terminate (then kill) knotd; remove its directory if it was made here."""
        self._halt()
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def __enter__(self) -> "KnotServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
