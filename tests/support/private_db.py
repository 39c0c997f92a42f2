"""Private, throw-away PostgreSQL and MariaDB servers that a test may stop and restart at will.

Why not the machine's servers (``support.databases``): a restart test takes the database down
for seconds, and the shared servers on 5432/3306 belong to every other test and engineer. Each
private server lives in its own temporary directory (data, socket, log), listens on a free
loopback port, and is removed by ``cleanup()`` (also the context manager's exit and ``atexit``).

    with PrivatePostgres() as pg:
        url = pg.create_database("okd")           # postgresql://127.0.0.1:<port>/okd?user=postgres
        pg.stop(); pg.start()                     # an outage of the database only

PostgreSQL refuses to run as root: when the tests run as root, ``initdb`` and ``postgres`` run as
the ``postgres`` system user (``Popen(user=...)``) on a directory chowned to it. MariaDB runs with
``--no-defaults`` so the machine's ``my.cnf`` (user, log paths, port) cannot leak in.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Self

from support.server import free_port

PG_BIN = Path(os.environ.get("OKD_PG_BIN", "/usr/lib/postgresql/15/bin"))
_LIVE: set[PrivateServer] = set()


class PrivateDatabaseError(RuntimeError):
    """The private server did not start or stop in time; the message carries its log tail."""


class PrivateServer:
    """Common lifecycle: a data directory made once, a server process started and stopped many
    times on the same port (so a client's URL stays valid across restarts)."""

    kind = ""

    def __init__(self, start_timeout: float = 60.0):
        self.start_timeout = start_timeout
        self.root = Path(tempfile.mkdtemp(prefix=f"okd-{self.kind}-"))
        self.port = free_port()
        self.log_path = self.root / "server.log"
        self._proc: subprocess.Popen[bytes] | None = None
        self._initialised = False

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Self:
        """Initialise the data directory on first use, start the server, wait until it answers."""
        if self.is_running():
            return self
        _LIVE.add(self)
        if not self._initialised:
            self._initialise()
            self._initialised = True
        with open(self.log_path, "ab") as log:
            self._proc = subprocess.Popen(self._command(), stdout=log, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, start_new_session=True,
                                          **self._run_as())
        deadline = time.monotonic() + self.start_timeout
        while not self._answers():
            if self._proc.poll() is not None:
                raise PrivateDatabaseError(f"{self.kind} exited {self._proc.returncode}\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise PrivateDatabaseError(f"{self.kind} not ready in {self.start_timeout}s\n{self.log_tail()}")
            time.sleep(0.05)
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Shut down (fast shutdown: open connections are cut, as in a real outage); kill if slow."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(self._stop_signal)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)

    def restart(self, downtime: float = 0.0) -> None:
        """Stop, stay down ``downtime`` seconds, start again on the same port and data."""
        self.stop()
        time.sleep(downtime)
        self.start()

    def cleanup(self) -> None:
        """Stop the server and remove its directory (data, socket, log)."""
        try:
            self.stop()
        finally:
            _LIVE.discard(self)
            if os.environ.get("OKD_KEEP_STATE") != "1":
                shutil.rmtree(self.root, ignore_errors=True)

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    # ------------------------------------------------------------------ per engine
    _stop_signal = signal.SIGTERM

    def _initialise(self) -> None:
        raise NotImplementedError

    def _command(self) -> list[str]:
        raise NotImplementedError

    def _run_as(self) -> dict:
        return {}

    def _answers(self) -> bool:
        raise NotImplementedError

    def create_database(self, name: str) -> str:
        """Create ``name`` and return the URL an operator would put in designate.conf."""
        raise NotImplementedError


class PrivatePostgres(PrivateServer):
    """``initdb`` (trust auth) + ``postgres -D data -p PORT -k ROOT`` on 127.0.0.1."""

    kind = "postgresql"
    _stop_signal = signal.SIGINT  # "fast" shutdown: disconnect clients, no waiting for them

    def _run_as(self) -> dict:
        if os.geteuid() != 0:
            return {}
        return {"user": "postgres", "group": pwd.getpwnam("postgres").pw_gid}

    def _initialise(self) -> None:
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        with open(self.log_path, "ab") as log:
            done = subprocess.run(
                [str(PG_BIN / "initdb"), "-D", str(self.root / "data"), "-A", "trust", "-U",
                 "postgres", "-E", "UTF8", "--no-sync"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120,
                check=False, **self._run_as())
        if done.returncode != 0:
            raise PrivateDatabaseError(f"initdb exited {done.returncode}\n{self.log_tail()}")

    def _command(self) -> list[str]:
        return [str(PG_BIN / "postgres"), "-D", str(self.root / "data"), "-p", str(self.port),
                "-k", str(self.root), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                "-c", "max_connections=200"]

    def _connect(self, dbname: str = "postgres"):
        import psycopg2

        return psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres",
                                dbname=dbname, connect_timeout=2)

    def _answers(self) -> bool:
        try:
            self._connect().close()
            return True
        except Exception:  # noqa: BLE001 - "starting up" comes as several error types
            return False

    def create_database(self, name: str) -> str:
        conn = self._connect()
        try:
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute(f'CREATE DATABASE "{name}"')
        finally:
            conn.close()
        return f"postgresql://127.0.0.1:{self.port}/{name}?user=postgres"


class PrivateMariaDB(PrivateServer):
    """``mariadb-install-db`` + ``mariadbd --no-defaults`` on 127.0.0.1, root without password."""

    kind = "mariadb"

    def _user_args(self) -> list[str]:
        return ["--user=root"] if os.geteuid() == 0 else []

    def _initialise(self) -> None:
        with open(self.log_path, "ab") as log:
            done = subprocess.run(
                ["mariadb-install-db", "--no-defaults", f"--datadir={self.root / 'data'}",
                 "--auth-root-authentication-method=normal", "--skip-test-db", *self._user_args()],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120,
                check=False)
        if done.returncode != 0:
            raise PrivateDatabaseError(f"mariadb-install-db exited {done.returncode}\n{self.log_tail()}")

    def _command(self) -> list[str]:
        binary = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        return [binary, "--no-defaults", f"--datadir={self.root / 'data'}", f"--port={self.port}",
                "--bind-address=127.0.0.1", f"--socket={self.root / 'mysqld.sock'}",
                f"--pid-file={self.root / 'mysqld.pid'}", "--skip-log-bin",
                "--innodb-flush-log-at-trx-commit=0", "--max-connections=300",
                *self._user_args()]

    def _connect(self):
        import pymysql

        return pymysql.connect(host="127.0.0.1", port=self.port, user="root", connect_timeout=2,
                               autocommit=True)

    def _answers(self) -> bool:
        try:
            self._connect().close()
            return True
        except Exception:  # noqa: BLE001 - refused / handshake errors while starting
            return False

    def create_database(self, name: str) -> str:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
        finally:
            conn.close()
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/{name}"


def missing_binaries(kind: str) -> list[str]:
    """The server programs of ``kind`` not installed here (empty: a private server can run)."""
    if kind in ("postgresql", "postgres", "pg"):
        return [str(PG_BIN / b) for b in ("initdb", "postgres") if not (PG_BIN / b).exists()]
    return [b for b in ("mariadb-install-db", "mariadbd")
            if not shutil.which(b) and not Path("/usr/sbin", b).exists()]


def private_server(kind: str) -> PrivateServer:
    """``"postgresql"`` or ``"mysql"``/``"mariadb"`` → a new (not yet started) private server."""
    if kind in ("postgresql", "postgres", "pg"):
        return PrivatePostgres()
    if kind in ("mysql", "mariadb"):
        return PrivateMariaDB()
    raise ValueError(f"unknown database kind {kind!r}")


@atexit.register
def _cleanup_all() -> None:
    """Never leave a private server running, even after a crashed test."""
    for server in list(_LIVE):
        with contextlib.suppress(Exception):  # best effort at interpreter exit
            server.cleanup()
