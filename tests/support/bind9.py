"""Run a real BIND 9 (``named``) with rndc control, for tests and benches.

``named -f`` stays in the foreground and, without ``-u``, keeps running as the current user (root
in CI) — no privilege drop, so a private directory under /tmp is enough.  The server reads only
its own named.conf (DNS and rndc on free loopback ports, ``allow-new-zones yes`` for rndc
addzone), and rndc reads only a private rndc.conf: neither touches /etc/bind or /run/named.

    with Bind9Server() as bind:
        bind.dns_port, bind.rndc_port, bind.rndc_conf, bind.rndc_key
"""

from __future__ import annotations

import base64
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path


from support import daemon
from support.server import free_port

NAMED_BIN = "named"
RNDC_BIN = "rndc"
KEY_NAME = "okd-rndc-key"


def available() -> bool:
    return shutil.which(NAMED_BIN) is not None and shutil.which(RNDC_BIN) is not None


class Bind9Server:
    """One named on 127.0.0.1: DNS on ``dns_port``, rndc on ``rndc_port``."""

    def __init__(self, base_dir: str | Path | None = None, start_timeout: float = 20.0):
        self._own_dir = base_dir is None
        self.dir = Path(base_dir or tempfile.mkdtemp(prefix="okd-bind9-"))
        self.start_timeout = start_timeout
        self.secret = base64.b64encode(secrets.token_bytes(32)).decode()
        self.dns_port = self.rndc_port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = None

    @property
    def conf_path(self) -> Path:
        return self.dir / "named.conf"

    @property
    def rndc_key(self) -> Path:
        """The key alone (``rndc -k``); the server includes the same file."""
        return self.dir / "rndc.key"

    @property
    def rndc_conf(self) -> Path:
        """A complete rndc.conf (``rndc -c``): key, default server and port."""
        return self.dir / "rndc.conf"

    @property
    def log_path(self) -> Path:
        return self.dir / "named.log"

    def rndc(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run rndc against this server (for tests checking what the driver did)."""
        return subprocess.run([RNDC_BIN, "-c", str(self.rndc_conf), *args], capture_output=True,
                              text=True, timeout=30, check=False)

    def start(self) -> "Bind9Server":
        self.dir.mkdir(parents=True, exist_ok=True)
        daemon.start_on_free_ports(self._launch, self._wait_ready, self._halt, self.stop)
        return self

    def _launch(self) -> None:
        self.dns_port, self.rndc_port = free_port(dns=True), free_port()
        self._write_files()
        self._log = open(self.log_path, "ab")
        self._proc = subprocess.Popen([NAMED_BIN, "-f", "-n", "1", "-c", str(self.conf_path)],
                                      stdout=self._log, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, start_new_session=True)

    def _write_files(self) -> None:
        key = f'key "{KEY_NAME}" {{ algorithm hmac-sha256; secret "{self.secret}"; }};\n'
        self.rndc_key.write_text(key)
        self.rndc_conf.write_text(
            key + f'options {{ default-key "{KEY_NAME}"; default-server 127.0.0.1; '
                  f'default-port {self.rndc_port}; }};\n')
        d = self.dir
        self.conf_path.write_text(f"""
include "{self.rndc_key}";
controls {{
    inet 127.0.0.1 port {self.rndc_port} allow {{ 127.0.0.1; }} keys {{ "{KEY_NAME}"; }};
}};
options {{
    directory "{d}";
    pid-file "{d}/named.pid";
    session-keyfile "{d}/session.key";
    managed-keys-directory "{d}";
    listen-on port {self.dns_port} {{ 127.0.0.1; }};
    listen-on-v6 {{ none; }};
    allow-new-zones yes;
    recursion no;
    dnssec-validation no;
    notify no;
    allow-notify {{ 127.0.0.0/8; }};
    allow-transfer {{ none; }};
}};
logging {{
    channel to_file {{ file "{d}/named.run"; severity info; print-time yes; print-category yes; }};
    category default {{ to_file; }};
    category lame-servers {{ null; }};
}};
""")

    def _wait_ready(self) -> None:
        daemon.wait_ready("named", self._proc,
                          lambda: (daemon.owns_udp_port(self._proc.pid, self.dns_port)
                                   and daemon.udp_dns_answers(self.dns_port)
                                   and self.rndc("status").returncode == 0),
                          self.start_timeout, self.log_tail)

    def _halt(self) -> None:
        daemon.terminate(self._proc, timeout=15)
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def stop(self) -> None:
        """Terminate (then kill) named; remove its directory if it was made here."""
        self._halt()
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def log_tail(self, lines: int = 30) -> str:
        text = ""
        for path in (self.log_path, self.dir / "named.run"):
            try:
                text += "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) + "\n"
            except OSError:
                pass
        return text

    def __enter__(self) -> "Bind9Server":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
