"""Smoke test of the harness itself: if this fails, every other integration test is suspect.

It also pins the operator-visible promise that a server killed with SIGKILL (no cleanup at all)
comes back on the same config and state and serves again.
"""

from __future__ import annotations

import httpx
import pytest

from support.server import ServerProcess

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
