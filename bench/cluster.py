"""Our server scaled out: separate role processes on one fresh PostgreSQL database.

Used by ``load.py`` and ``scale.py``. The first process is a ``ServerProcess`` (tests/support):
it creates the ``okd_*`` database, runs ``manage database sync`` and ``pool update`` (default pool
= the built-in nameserver) and serves ``api,producer``. The others run ``openkeel-designate serve
--roles ...`` on the same config file, as in ``tests/integration/test_scale_out.py``; a second
API process gets a copy of the config with its own listen port. Every process runs in its own
session (process group), so its RSS/CPU can be read and it can be stopped alone. ``stop()`` stops
every process started here (SIGTERM, SIGKILL after 15 s) and drops the database.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/support, as targets.py

from stats import cpu_seconds, memory_mb
from support.server import (
    ServerProcess,
    _http_answers,
    _tcp_accepts,
    builtin_pool,
    free_port,
    server_command,
)
from targets import BENCH_QUOTAS


@dataclass
class Proc:
    name: str
    roles: str
    popen: subprocess.Popen[bytes] | None
    pgid: int
    log: Path
    api_url: str | None = None


class Cluster:
    """``apis`` API processes (the first also runs the producer), ``workers`` worker processes,
    one ``mdns,nameserver`` process; all on one fresh PostgreSQL database."""

    def __init__(self, apis: int = 2, workers: int = 2, project: str = "bench",
                 options: dict[str, dict[str, Any]] | None = None, start_timeout: float = 120):
        opts: dict[str, dict[str, Any]] = {"DEFAULT": dict(BENCH_QUOTAS)}
        for section, values in (options or {}).items():
            opts.setdefault(section, {}).update(values)
        self.first = ServerProcess(options=opts, database="postgresql", pools=builtin_pool,
                                   roles="api,producer", project=project, start_timeout=start_timeout)
        self.n_apis, self.n_workers = apis, workers
        self.start_timeout = start_timeout
        self.procs: list[Proc] = []

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Cluster:
        try:
            self.first.start()
            pid = self.first.pid
            assert pid is not None
            self.procs.append(Proc("api1+producer", "api,producer", None, pid, self.first.log_path,
                                   self.first.api_url))
            config = self.first.config_path.read_text()
            for i in range(2, self.n_apis + 1):
                port = free_port()
                path = self.first.state_dir / f"api{i}.conf"
                path.write_text(config.replace(f"127.0.0.1:{self.first.api_port}", f"127.0.0.1:{port}"))
                self._launch(f"api{i}", "api", path, api_url=f"http://127.0.0.1:{port}")
            self._launch("mdns+nameserver", "mdns,nameserver", self.first.config_path)
            for i in range(1, self.n_workers + 1):
                self._launch(f"worker{i}", "worker", self.first.config_path)
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _launch(self, name: str, roles: str, config: Path, api_url: str | None = None) -> None:
        log = self.first.state_dir / f"{name}.log"
        with open(log, "ab") as out:
            popen = subprocess.Popen([*server_command(), "serve", "--config-file", str(config), "--roles", roles],
                                     stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
        self.procs.append(Proc(name, roles, popen, popen.pid, log, api_url))

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        for proc in self.procs:
            while True:
                if proc.popen is not None and proc.popen.poll() is not None:
                    raise RuntimeError(f"{proc.name} exited {proc.popen.returncode}:\n{tail(proc.log)}")
                if proc.api_url:
                    ready = _http_answers(proc.api_url + "/")
                elif "mdns" in proc.roles:
                    ready = _tcp_accepts(self.first.mdns_port) and _tcp_accepts(self.first.ns_port)
                else:
                    ready = "serving roles" in proc.log.read_text(errors="replace")
                if ready:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{proc.name} not ready after {self.start_timeout}s:\n{tail(proc.log)}")
                time.sleep(0.1)

    def save_logs(self, directory: Path) -> None:
        """Copy every process log (the state directory is removed at stop) for a post-mortem."""
        directory.mkdir(parents=True, exist_ok=True)
        for proc in self.procs:
            try:
                (directory / f"{proc.name}.log").write_bytes(proc.log.read_bytes())
            except OSError:
                pass

    def stop(self) -> None:
        """Stop the extra processes (their groups), then the first server (drops the database)."""
        for proc in self.procs:
            if proc.popen is None or proc.popen.poll() is not None:
                continue
            try:
                os.killpg(proc.pgid, signal.SIGTERM)
                proc.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pgid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.popen.wait(timeout=10)
            except ProcessLookupError:
                pass
        self.first.stop()

    # ------------------------------------------------------------------ facts
    @property
    def api_urls(self) -> list[str]:
        return [p.api_url for p in self.procs if p.api_url]

    @property
    def database_url(self) -> str:
        url = self.first.database_url
        assert url is not None
        return url

    @property
    def mdns_port(self) -> int:
        return self.first.mdns_port

    @property
    def ns_port(self) -> int:
        return self.first.ns_port

    def memory(self) -> dict[str, dict[str, float]]:
        return {p.name: memory_mb([p.pgid]) for p in self.procs}

    def cpu(self) -> dict[str, float]:
        return {p.name: round(cpu_seconds([p.pgid]), 2) for p in self.procs}

    def logs(self) -> dict[str, str]:
        return {p.name: p.log.read_text(errors="replace") for p in self.procs}


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


DEADLOCK_MARKERS = ("deadlock", "could not serialize", "serializationfailure", "lock timeout",
                    "lockwaittimeout", "lock wait timeout")


def log_problems(logs: dict[str, str]) -> dict[str, Any]:
    """Counts of tracebacks, ERROR lines and deadlock-type messages in each process log."""
    out: dict[str, Any] = {}
    for name, text in logs.items():
        lower = text.lower()
        errors = [line for line in text.splitlines() if " ERROR " in line or "Traceback" in line]
        out[name] = {"tracebacks": text.count("Traceback (most recent call last)"),
                     "error_lines": len(errors),
                     "deadlock_type": sum(lower.count(m) for m in DEADLOCK_MARKERS),
                     "first_errors": errors[:5]}
    return out
