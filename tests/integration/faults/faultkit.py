"""Shared tools of the fault tests: a bounded write load that records every answer, convergence
waits, and direct database reads to check that nothing was lost or duplicated.

Why a module and not fixtures: each fault test composes these differently (load during a
database outage, a burst before a SIGKILL), and plain functions read better in the test body.
The fault folder has no ``__init__``; pytest's default import mode puts it on ``sys.path``, so
tests write ``from faultkit import ...`` (the name is unique in the suite on purpose).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from support.databases import make_database
from support.server import Options, ServerProcess, server_command

from openkeel_designate.storage import migrate

TERMINAL = ("ACTIVE", "ERROR")


@dataclass
class Attempt:
    """One write of the load: what was sent and what came back (status or transport error)."""

    name: str
    status: int | None = None
    body: Any = None
    error: str | None = None


@dataclass
class WriteLoad:
    """A thread that creates one A recordset per request in ``zone_id`` for ``duration`` seconds.

    Every attempt is recorded, accepted or not, so a test can account for each change. The loop
    is bounded twice (time and ``max_writes``) so a hung server cannot hang the test.
    """

    api_url: str
    headers: dict[str, str]
    zone_id: str
    zone_name: str
    duration: float = 15.0
    max_writes: int = 2000
    pause: float = 0.01
    attempts: list[Attempt] = field(default_factory=list)
    _thread: threading.Thread | None = None

    def start(self) -> WriteLoad:
        self._thread = threading.Thread(target=self._run, name="write-load", daemon=True)
        self._thread.start()
        return self

    def join(self) -> None:
        assert self._thread is not None
        self._thread.join(self.duration + 60)
        assert not self._thread.is_alive(), "the write load did not stop"

    def _run(self) -> None:
        deadline = time.monotonic() + self.duration
        with httpx.Client(base_url=self.api_url, headers=self.headers, timeout=20) as client:
            for i in range(self.max_writes):
                if time.monotonic() > deadline:
                    return
                attempt = Attempt(name=f"w{i}.{self.zone_name}")
                self.attempts.append(attempt)
                try:
                    response = client.post(f"/v2/zones/{self.zone_id}/recordsets", json={
                        "name": attempt.name, "type": "A", "records": [f"192.0.2.{i % 250 + 1}"]})
                    attempt.status = response.status_code
                    attempt.body = _json_or_text(response)
                    if response.status_code == 503:
                        attempt.body = {**attempt.body, "_retry_after": response.headers.get("Retry-After")}
                except httpx.HTTPError as exc:
                    attempt.error = f"{type(exc).__name__}: {exc}"
                time.sleep(self.pause)

    def codes(self) -> Counter:
        return Counter(a.status if a.status is not None else a.error for a in self.attempts)

    def accepted(self) -> list[Attempt]:
        return [a for a in self.attempts if a.status in (201, 202)]


def _json_or_text(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return {"_text": response.text[:500]}


def wait_api(client: httpx.Client, timeout: float) -> None:
    """Until ``GET /v2/zones`` answers 200 (the API and its database are both back)."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            response = client.get("/v2/zones")
            if response.status_code == 200:
                return
            last = response.status_code
        except httpx.HTTPError as exc:
            last = exc
        time.sleep(0.1)
    raise AssertionError(f"the API did not answer 200 again within {timeout}s (last: {last!r})")


def wait_terminal(client: httpx.Client, urls: list[str], timeout: float,
                  want: tuple[str, ...] = ("ACTIVE",)) -> dict[str, dict]:
    """Poll each resource until its status is in ``want``; return the last bodies of those that
    never got there (empty: all converged). Listing pages would be cheaper, but a GET per
    resource is what proves each accepted change individually."""
    pending = set(urls)
    last: dict[str, dict] = {}
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for url in sorted(pending):
            try:
                response = client.get(url)
            except httpx.HTTPError as exc:
                last[url] = {"error": repr(exc)}
                continue
            last[url] = _json_or_text(response)
            if response.status_code == 200 and last[url].get("status") in want:
                pending.discard(url)
        if pending:
            time.sleep(0.2)
    return {url: last.get(url, {}) for url in pending}


def list_recordsets(client: httpx.Client, zone_id: str) -> list[dict]:
    """Every recordset of a zone through the API, following ``links.next`` (bounded)."""
    found: list[dict] = []
    url: str | None = f"/v2/zones/{zone_id}/recordsets?limit=1000"
    for _ in range(100):
        if url is None:
            break
        body = client.get(url).json()
        found.extend(body["recordsets"])
        url = body.get("links", {}).get("next")
    return found


def db_query(url: str, sql: str, args: tuple = ()) -> list[tuple]:
    """Rows of one query on the server's database, through the blocking driver of its engine."""
    if url.startswith("postgresql"):
        import psycopg2
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        conn = psycopg2.connect(host=parsed.host, port=parsed.port, dbname=parsed.database,
                                user=parsed.query.get("user") or parsed.username, connect_timeout=5)
        sql = sql.replace("?", "%s")
    elif url.startswith("mysql"):
        import pymysql
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        conn = pymysql.connect(host=parsed.host, port=parsed.port, user=parsed.username,
                               database=parsed.database, connect_timeout=5)
        sql = sql.replace("?", "%s")
    elif url.startswith("sqlite:///"):
        import sqlite3

        conn = sqlite3.connect(url[len("sqlite:///"):], timeout=10)
    else:
        raise ValueError(f"db_query supports PostgreSQL, MariaDB and SQLite, not {url!r}")
    try:
        cur = conn.cursor()
        cur.execute(sql, args)
        return list(cur.fetchall())
    finally:
        conn.close()


def server_db_url(server: ServerProcess) -> str:
    """The database URL of a server, its SQLite default file included."""
    return server.database_url or f"sqlite:///{server.state_dir / 'state' / 'designate.sqlite'}"


def assert_zone_whole(url: str, zone_id: str, a_records: int | None = None) -> None:
    """Straight from the database: the zone is ACTIVE with one SOA and one NS recordset, every
    recordset has its records exactly once (no change applied twice) and all are ACTIVE."""
    rows = db_query(url, "SELECT rs.type, rs.name, COUNT(r.id), COUNT(DISTINCT r.data), "
                         "MIN(r.status), MAX(r.status) FROM recordsets rs "
                         "LEFT JOIN records r ON r.recordset_id = rs.id "
                         "WHERE rs.zone_id = ? GROUP BY rs.id, rs.type, rs.name", (zone_id,))
    types = [row[0] for row in rows]
    assert types.count("SOA") == 1 and types.count("NS") == 1, (zone_id, types)
    for rs_type, name, count, distinct, low, high in rows:
        assert count >= 1 and count == distinct, f"{rs_type} {name}: {count} records, {distinct} distinct"
        assert low == high == "ACTIVE", f"{rs_type} {name}: records {low}..{high}"
    if a_records is not None:
        assert types.count("A") == a_records, (zone_id, types.count("A"))
    status = db_query(url, "SELECT status, lease_owner FROM zones WHERE id = ?", (zone_id,))
    assert status == [("ACTIVE", None)], status


class WorkerProcess:
    """``serve --roles worker,mdns,nameserver`` on the config of an API-only ``ServerProcess``.

    Why its own class: the fault tests SIGKILL this process and start a successor on the same
    ports, so it has its own session (``killpg`` reaches only it) and a bounded readiness wait
    on its DNS ports. Every instance is stopped by ``stop()``; ``kill()`` is the crash.
    """

    def __init__(self, api: ServerProcess, roles: str = "worker,mdns,nameserver"):
        self.api = api
        self.roles = roles
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> WorkerProcess:
        log = open(self.api.state_dir / "worker.log", "ab")  # noqa: SIM115 - lives with the process
        try:
            self.proc = subprocess.Popen(
                [*server_command(), "serve", "--config-file", str(self.api.config_path),
                 "--roles", self.roles],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
        finally:
            log.close()
        ports = [p for role, p in (("mdns", self.api.mdns_port), ("nameserver", self.api.ns_port))
                 if role in self.roles]
        deadline = time.monotonic() + timeout
        while not all(_tcp_accepts(port) for port in ports):
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited {self.proc.returncode}: {self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"worker not listening in {timeout}s: {self.log_tail()}")
            time.sleep(0.05)
        return self

    def kill(self) -> None:
        """SIGKILL, as a crash or an OOM kill would: no lease released, nothing flushed."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, lines: int = 30) -> str:
        path = self.api.state_dir / "worker.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""


def _tcp_accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def api_only_server(options: Options | None = None) -> Iterator[ServerProcess]:
    """An ``api,producer`` server on a fresh database of the shared PostgreSQL, migrated here.

    Why not ``pools=builtin_pool``: that runs ``manage database sync`` and ``pool update`` as two
    more processes (seconds each on a busy CI machine); serve creates the same default pool by
    itself, targeting the built-in nameserver of the configuration the workers share.
    """
    database = make_database("postgresql")
    try:
        migrate.upgrade(database.url)
        with ServerProcess(database=database, roles="api,producer", options=options) as server:
            yield server
    finally:
        database.drop()
