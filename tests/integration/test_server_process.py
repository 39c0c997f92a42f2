"""Smoke test of the harness itself: if this fails, every other integration test is suspect.

It also pins the operator-visible promise that a server killed with SIGKILL (no cleanup at all)
comes back on the same config and state and serves again.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import httpx
import pytest

from support.databases import database_exists, empty_database_url
from support import server as server_module
from support.server import ServerProcess, builtin_pool

pytestmark = pytest.mark.integration


def _versions(server: ServerProcess) -> httpx.Response:
    return httpx.get(server.api_url + "/", headers=server.headers(), timeout=10)


def test_start_kill_restart() -> None:
    with ServerProcess() as server:
        first_pid = server.pid
        assert server.is_running()
        resp = _versions(server)
        assert resp.status_code == 200
        assert "versions" in resp.json()

        server.kill()
        assert not server.is_running()
        with pytest.raises(httpx.TransportError):
            _versions(server)

        server.restart()
        assert server.is_running()
        assert server.pid != first_pid
        resp = _versions(server)
        assert resp.status_code == 200
        assert "versions" in resp.json()
    assert not server.is_running()


class _Foreign(BaseHTTPRequestHandler):
    """Another test's server: answers any GET."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


def test_a_port_another_server_took_first_is_not_taken_for_this_ones(monkeypatch) -> None:
    """Each pytest worker picks free ports on its own, so two can pick the same one. The server
    that loses the bind must be started again on new ports, not taken as ready because the
    winner answers on the port (a test then talked to the other test's server)."""
    foreign = HTTPServer(("127.0.0.1", 0), _Foreign)
    taken = foreign.server_address[1]
    threading.Thread(target=foreign.serve_forever, daemon=True).start()
    picks = [taken]
    free_port = server_module.free_port
    monkeypatch.setattr(server_module, "free_port",
                        lambda dns=False: picks.pop() if picks and not dns else free_port(dns))
    try:
        with ServerProcess() as server:
            assert server.api_port != taken
            assert "versions" in _versions(server).json()
    finally:
        foreign.shutdown()
        foreign.server_close()


def test_startup_heap_is_frozen() -> None:
    """``serve`` freezes what start-up built (``runtime.freeze_startup_heap``), so that full
    garbage collections no longer walk it; the detailed /healthcheck shows the frozen count."""
    with ServerProcess() as server:
        headers = {**server.headers(roles="admin"), "Accept": "application/json"}
        gc_state = httpx.get(server.api_url + "/healthcheck", headers=headers, timeout=10).json()["gc"]
        # modules, classes, routes and mappers alone are well over 50,000 container objects
        assert gc_state["frozen"] > 50_000
        assert _versions(server).status_code == 200


@pytest.mark.parametrize("kind", ["postgresql", "mysql"])
def test_pools_file_and_throwaway_database(kind: str) -> None:
    """pools.yaml goes through ``manage database sync`` + ``pool update``; the database is dropped at stop."""
    server = ServerProcess(database=kind, pools=builtin_pool)
    with server:
        assert server.database is not None
        database = server.database
        assert database.url.startswith("postgresql://" if kind == "postgresql" else "mysql+pymysql://")
        assert "manage --config-file" in server.log_path.read_text()
        with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as http:
            resp = http.post("/v2/zones", json={"name": f"harness-{kind}.example.org.", "email": "h@example.org"})
            assert resp.status_code == 202
            zone_path = f"/v2/zones/{resp.json()['id']}"
            deadline = time.monotonic() + 30
            while http.get(zone_path).json()["status"] != "ACTIVE":
                assert time.monotonic() < deadline, "zone did not become ACTIVE on the pools.yaml pool"
                time.sleep(0.05)
    assert not database_exists(database)


def test_a_throwaway_sqlite_database_leaves_no_folder() -> None:
    """The SQLite file of a test's database goes with its folder when the test is done."""
    with empty_database_url("sqlite", prefix="okd-leftover-") as url:
        path = Path(url.removeprefix("sqlite:///"))
        sqlite3.connect(path).close()
        assert path.exists()
    assert not path.parent.exists()
