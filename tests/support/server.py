"""Run the real ``openkeel-designate serve`` as a subprocess, for integration tests and benchmarks.

Why a subprocess and not the ASGI app in-process: these tests exist to prove what an operator
gets — the console script, the config file, the ports, SIGTERM/SIGKILL behaviour and restart
recovery — so they start exactly that, on free loopback ports, and stop it afterwards.

``tests/support`` is a plain folder, not a package: the suite's conftest puts ``tests/`` on
``sys.path``, so tests write ``from support.server import ServerProcess``. Scripts outside the
suite (``bench/``) add ``<repo>/tests`` to ``sys.path`` themselves.

    with ServerProcess(options={"DEFAULT": {"quota_zones": 1000}}) as srv:
        httpx.get(srv.api_url + "/v2/zones", headers=srv.headers())

Every process started here is stopped by ``stop()``, by the context manager, or at interpreter
exit (``atexit``); a database created for a server is dropped when that server stops.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from support.databases import TestDatabase, make_database

OptionValue = str | int | float | bool | list[str] | None
Options = Mapping[str, Mapping[str, OptionValue]]
PoolsSource = str | Callable[["ServerProcess"], str]

_LIVE: set["ServerProcess"] = set()
_ISSUED_PORTS: set[int] = set()
_BIND_ERRORS = ("address already in use", "errno 98", "eaddrinuse")


def _port_is_free(port: int, kinds: tuple[int, ...]) -> bool:
    """True when ``port`` can be bound on 127.0.0.1 for every socket kind in ``kinds``."""
    for kind in kinds:
        with socket.socket(socket.AF_INET, kind) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                return False
    return True


def free_port(dns: bool = False) -> int:
    """A loopback port free now (TCP, and UDP too for DNS listeners), never handed out twice.

    The kernel picks the candidate; remembering issued ports keeps two servers started in the
    same test run from racing for the same number before either has bound it.
    """
    kinds = (socket.SOCK_STREAM, socket.SOCK_DGRAM) if dns else (socket.SOCK_STREAM,)
    for _ in range(200):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in _ISSUED_PORTS and _port_is_free(port, kinds):
            _ISSUED_PORTS.add(port)
            return port
    raise RuntimeError("no free loopback port found")


def server_command() -> list[str]:
    """How to launch the console script of the interpreter running us (the project's venv)."""
    script = Path(sys.executable).with_name("openkeel-designate")
    if script.exists():
        return [str(script)]
    found = shutil.which("openkeel-designate")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from openkeel_designate.cli import main; sys.exit(main())"]


def _render(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def render_config(sections: Mapping[str, Mapping[str, OptionValue]]) -> str:
    """An oslo.config ini text; options whose value is None are left out (server default)."""
    lines: list[str] = []
    for section, opts in sections.items():
        lines.append(f"[{section}]")
        lines.extend(f"{key} = {_render(val)}" for key, val in opts.items() if val is not None)
        lines.append("")
    return "\n".join(lines)


def merge_options(base: Options, extra: Options | None) -> dict[str, dict[str, OptionValue]]:
    """``extra`` over ``base``, section by section (a None value removes a default)."""
    merged = {section: dict(opts) for section, opts in base.items()}
    for section, opts in (extra or {}).items():
        merged.setdefault(section, {}).update(opts)
    return merged


def builtin_pool(server: "ServerProcess") -> str:
    """A pools.yaml whose default pool targets the server's own built-in nameserver (``pools=builtin_pool``).

    It mirrors the embedded default, so a test can go through ``manage pool update`` and still get
    zones served by the built-in nameserver.
    """
    return f"""---
- name: default
  description: built-in nameserver of the test server
  attributes: {{}}
  ns_records:
    - hostname: ns1.example.net.
      priority: 1
  nameservers:
    - host: 127.0.0.1
      port: {server.ns_port}
  targets:
    - type: builtin
      description: built-in nameserver
      masters:
        - host: 127.0.0.1
          port: {server.mdns_port}
      options:
        host: 127.0.0.1
        port: {server.ns_port}
"""


class ServerError(RuntimeError):
    """The server did not start or a manage command failed; the message carries the log tail."""


class ServerProcess:
    """One ``openkeel-designate serve`` on free loopback ports, with its own state directory.

    ``database``: ``"sqlite"`` (default: the server's file under state_path), ``"postgresql"`` or
    ``"mysql"`` (a fresh ``okd_<random>`` database, dropped at ``stop()``), a ``TestDatabase``
    (owned by the caller) or a URL string.
    ``pools``: pools.yaml text, or a callable given this server (for its ports); when set,
    ``database sync`` and ``pool update`` run before ``serve``.
    ``options``: extra config sections, merged over the defaults written here.
    ``roles``: ``serve --roles`` (default: every role); the API role is needed to become ready.
    """

    def __init__(self, *, options: Options | None = None, database: str | TestDatabase = "sqlite",
                 pools: PoolsSource | None = None, state_dir: str | os.PathLike[str] | None = None,
                 project: str = "okd-test", wait_dns: bool = False, start_timeout: float = 60.0,
                 env: Mapping[str, str] | None = None, roles: str | None = None):
        self._extra_options = options
        self.roles = roles
        self._database_spec = database
        self._pools = pools
        self._own_state = state_dir is None
        self._state_dir = Path(state_dir) if state_dir else None
        self.project = project
        self.wait_dns = wait_dns
        self.start_timeout = start_timeout
        self._env = dict(env or {})
        self.api_port = self.mdns_port = self.ns_port = self.metrics_port = 0
        self.database: TestDatabase | None = None
        self._own_database = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_file: Any = None
        self._log_start = 0  # where this launch's lines begin in the log

    # ----------------------------------------------------------------- properties
    @property
    def state_dir(self) -> Path:
        """Config, log, pools.yaml and the server's state_path; a temp dir made at start()."""
        if self._state_dir is None:
            raise ServerError("server not started: no state directory yet")
        return self._state_dir

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def config_path(self) -> Path:
        return self.state_dir / "openkeel-designate.conf"

    @property
    def log_path(self) -> Path:
        return self.state_dir / "server.log"

    @property
    def pools_path(self) -> Path:
        return self.state_dir / "pools.yaml"

    @property
    def database_url(self) -> str | None:
        """The URL in the config file; None means the server's own SQLite default."""
        return self.database.url if self.database else None

    def headers(self, project: str | None = None, roles: str = "admin") -> dict[str, str]:
        """noauth request headers for this server's test project."""
        return {"X-Auth-Project-ID": project or self.project, "X-Roles": roles,
                "Content-Type": "application/json", "Accept": "application/json"}

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> "ServerProcess":
        """Write config (and pools), prepare the database, start serve, wait until it answers.

        A port picked free can be taken by someone else before the server binds it; on such a
        bind error the start is retried on new ports, a bounded number of times.
        """
        if self.is_running():
            return self
        _LIVE.add(self)
        if self._state_dir is None:
            self._state_dir = Path(tempfile.mkdtemp(prefix="okd-server-"))
        try:
            self._prepare_database()
            for attempt in range(3):
                self._pick_ports()
                self._write_files()
                if self._pools is not None or self.database is not None:
                    # serve refuses a PostgreSQL/MariaDB schema that is not current (as
                    # Designate's services do); SQLite it migrates itself
                    self._manage("database", "sync")
                if self._pools is not None:
                    self._manage("pool", "update", "--file", str(self.pools_path))
                try:
                    self._launch()
                    return self
                except ServerError as exc:
                    if attempt == 2 or not any(m in str(exc).lower() for m in _BIND_ERRORS):
                        raise
        except BaseException:
            self.stop()
            raise
        return self

    def spawn(self) -> "ServerProcess":
        """Like ``start`` but returns as soon as the process is launched; ``wait_ready`` waits.

        For tests that start several servers at the same instant (as systemd or a Kubernetes
        rollout does): spawn them all, then wait for each. No retry on a port taken meanwhile, and
        no ``pools`` step (that would serialise the starts).
        """
        if self.is_running():
            return self
        _LIVE.add(self)
        if self._state_dir is None:
            self._state_dir = Path(tempfile.mkdtemp(prefix="okd-server-"))
        try:
            self._prepare_database()
            self._pick_ports()
            self._write_files()
            self._popen()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_ready(self) -> "ServerProcess":
        """Bounded wait until a spawned server serves (see ``_wait_ready``); stops it if not."""
        try:
            self._wait_ready()
        except ServerError:
            self.terminate(timeout=5)
            raise
        return self

    def kill(self) -> None:
        """SIGKILL the server (its whole process group): a crash, for recovery tests."""
        self._signal(signal.SIGKILL)
        self._reap(timeout=10)

    def terminate(self, timeout: float = 15.0) -> int | None:
        """SIGTERM, then SIGKILL after ``timeout``; the database and state are kept."""
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
        return self._reap(timeout=10)

    def restart(self) -> "ServerProcess":
        """Stop (gracefully if still running) and start again on the same ports and database."""
        self.terminate()
        self._write_files()
        self._launch()
        return self

    def stop(self) -> None:
        """Final stop: terminate, drop a database created here, remove a temporary state dir.

        Set ``OKD_KEEP_STATE=1`` to keep the state directory (config, log) for a post-mortem.
        """
        try:
            self.terminate()
        finally:
            _LIVE.discard(self)
            if self.database is not None and self._own_database:
                self.database.drop()
                self.database = None
            if self._own_state and self._state_dir and os.environ.get("OKD_KEEP_STATE") != "1":
                shutil.rmtree(self._state_dir, ignore_errors=True)
                self._state_dir = None

    def __enter__(self) -> "ServerProcess":
        return self.start()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        """Stop; when the block failed, first print the log's tail to stderr, which pytest
        shows with the failure (the log goes with the state directory)."""
        if exc_type is not None:
            print(f"--- last lines of {self.log_path}:\n{self.log_tail(80)}", file=sys.stderr)
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    # ----------------------------------------------------------------- internals
    def _prepare_database(self) -> None:
        if self.database is not None:
            return
        spec = self._database_spec
        if isinstance(spec, TestDatabase):
            self.database = spec
        elif spec == "sqlite":
            self.database = None
        elif "://" in spec:
            self.database = TestDatabase(kind="url", name="", url=spec)
        else:
            self.database = make_database(spec)
            self._own_database = True

    def _pick_ports(self) -> None:
        self.api_port = free_port()
        self.mdns_port = free_port(dns=True)
        self.ns_port = free_port(dns=True)
        self.metrics_port = free_port()

    def _default_options(self) -> dict[str, dict[str, OptionValue]]:
        opts: dict[str, dict[str, OptionValue]] = {
            "DEFAULT": {"state_path": str(self.state_dir / "state")},
            "service:api": {"listen": f"127.0.0.1:{self.api_port}", "auth_strategy": "noauth",
                            "api_base_uri": f"{self.api_url}/"},
            "service:mdns": {"listen": f"127.0.0.1:{self.mdns_port}"},
            "service:nameserver": {"listen": f"127.0.0.1:{self.ns_port}"},
            "service:metrics": {"listen": f"127.0.0.1:{self.metrics_port}"},
        }
        if self.database is not None:
            opts["storage:sqlalchemy"] = {"connection": self.database.url}
        return opts

    def _write_files(self) -> None:
        (self.state_dir / "state").mkdir(parents=True, exist_ok=True)
        options = merge_options(self._default_options(), self._extra_options)
        self.config_path.write_text(render_config(options))
        if self._pools is not None:
            text = self._pools(self) if callable(self._pools) else self._pools
            self.pools_path.write_text(text)

    def _child_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env.update(self._env)
        return env

    def _manage(self, *args: str, timeout: float = 180.0) -> None:
        """Run one ``manage`` command to completion; its output goes to the server log."""
        cmd = [*server_command(), "manage", "--config-file", str(self.config_path), *args]
        with open(self.log_path, "ab") as log:
            log.write(f"\n$ {' '.join(cmd)}\n".encode())
            log.flush()
            try:
                done = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      env=self._child_env(), timeout=timeout, check=False)
            except subprocess.TimeoutExpired as exc:
                raise ServerError(f"{' '.join(args)} timed out after {timeout}s\n{self.log_tail()}") from exc
        if done.returncode != 0:
            raise ServerError(f"manage {' '.join(args)} exited {done.returncode}\n{self.log_tail()}")

    def _launch(self) -> None:
        self._popen()
        self.wait_ready()

    def _popen(self) -> None:
        cmd = [*server_command(), "serve", "--config-file", str(self.config_path)]
        if self.roles:
            cmd += ["--roles", self.roles]
        self._log_file = open(self.log_path, "ab")
        self._log_start = self._log_file.tell()
        self._log_file.write(f"\n$ {' '.join(cmd)}\n".encode())
        self._log_file.flush()
        self._proc = subprocess.Popen(cmd, stdout=self._log_file, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, env=self._child_env(),
                                      start_new_session=True)

    def _wait_ready(self) -> None:
        """Bounded wait until the process serves (``_serves``) and, if asked, its DNS ports
        accept connections."""
        deadline = time.monotonic() + self.start_timeout
        while not self._serves():
            self._check_alive()
            if time.monotonic() > deadline:
                raise ServerError(f"API {self.api_url} did not answer in {self.start_timeout}s\n"
                                  f"{self.log_tail()}")
            time.sleep(0.05)
        if self.wait_dns:
            for port in (self.mdns_port, self.ns_port):
                while not _tcp_accepts(port):
                    self._check_alive()
                    if time.monotonic() > deadline:
                        raise ServerError(f"nothing listens on 127.0.0.1:{port}\n{self.log_tail()}")
                    time.sleep(0.05)

    def _serves(self) -> bool:
        """This launch logged that it serves its roles, and its API (if it has one) answers.

        The log line comes once every listener of the process is bound. Without it, an answer
        on the API port may be another test's server that took the same port first (ports are
        picked free in each pytest worker on its own): this one then exits on the bind error
        and is started again on new ports, instead of a test talking to the other server (a
        zone POST answered 409 Duplicate Zone, the other test having made that zone)."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(self._log_start)
                if b"serving roles" not in log.read():
                    return False
        except OSError:
            return False
        if self.roles and "api" not in self.roles.split(","):
            return True
        return _http_answers(self.api_url + "/")

    def _check_alive(self) -> None:
        if self._proc is not None and self._proc.poll() is not None:
            raise ServerError(f"server exited with {self._proc.returncode}\n{self.log_tail()}")

    def _signal(self, sig: signal.Signals) -> None:
        if self._proc is None or self._proc.poll() is not None:
            return
        try:
            os.killpg(self._proc.pid, sig)
        except ProcessLookupError:
            pass

    def _reap(self, timeout: float) -> int | None:
        code = None
        if self._proc is not None:
            try:
                code = self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                code = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return code


def wait_status(client: Any, url: str, status: str, timeout: float = 20.0) -> dict:
    """GET ``url`` with ``client`` (an httpx.Client) until its ``status`` is ``status``."""
    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body.get("status") == status:
            return body
        time.sleep(0.02)
    raise AssertionError(f"{url} never reached {status}: {body}")


def _http_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            resp.read()
        return True
    except urllib.error.HTTPError:
        return True
    except (OSError, ValueError):
        return False


def _tcp_accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@atexit.register
def _stop_all() -> None:
    """Never leave a server behind, even when a test or script forgot to stop it."""
    for server in list(_LIVE):
        try:
            server.stop()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass
