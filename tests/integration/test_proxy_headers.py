"""X-Forwarded-For is believed only with ``[oslo_middleware] enable_proxy_headers_parsing``.

Designate's default is off: a client reaching the API directly must not be able to write another
address into the request log (and the request context) by sending the header itself.
"""

from __future__ import annotations

import time

import httpx
import pytest

from support.server import ServerProcess

pytestmark = pytest.mark.integration

FORGED = "203.0.113.9"


def logged_client(server: ServerProcess, marker: str) -> str:
    """The client address of the request log line of ``GET /v2/zones?name=<marker>``."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for line in server.log_path.read_text(errors="replace").splitlines():
            if marker in line and '"GET /v2/zones' in line:
                return line.split("] ", 1)[1].split(" ", 1)[0]
        time.sleep(0.1)
    raise AssertionError(f"no request log line for {marker}:\n{server.log_tail()}")


@pytest.mark.parametrize("enabled", [False, True])
def test_forwarded_for_only_when_enabled(enabled: bool) -> None:
    options = {"oslo_middleware": {"enable_proxy_headers_parsing": enabled}}
    with ServerProcess(options=options) as server:
        marker = f"proxied-{enabled}.example.".lower()
        response = httpx.get(f"{server.api_url}/v2/zones", params={"name": marker},
                             headers={**server.headers(), "X-Forwarded-For": FORGED}, timeout=10)
        assert response.status_code == 200
        assert logged_client(server, marker) == (FORGED if enabled else "127.0.0.1")
