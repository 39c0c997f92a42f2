"""A pool nameserver that is down: the zone goes ERROR with the reason kept, then becomes ACTIVE
by itself once the nameserver is back — no operator action, no 455 s wait.
"""

from __future__ import annotations

import subprocess
import time

import httpx
import pytest

from support.server import ServerProcess, server_command

pytestmark = pytest.mark.integration


def wait_for(client: httpx.Client, url: str, status: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body["status"] == status:
            return body
        time.sleep(0.1)
    raise AssertionError(f"{url} never reached {status}: {body}")


def test_error_with_reason_then_automatic_recovery() -> None:
    options = {"service:worker": {"poll_timeout": 2}}
    with ServerProcess(options=options, roles="api,worker,mdns,producer") as server:
        client = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10)
        zone = client.post("/v2/zones", json={"name": "outage.example.",
                                              "email": "h@outage.example"}).json()
        wait_for(client, f"/v2/zones/{zone['id']}", "ERROR", 20)
        report = subprocess.run(
            [*server_command(), "manage", "--config-file", str(server.config_path), "zone",
             "errors"], capture_output=True, text=True, timeout=60)
        assert "outage.example." in report.stdout
        assert f"127.0.0.1:{server.ns_port}" in report.stdout, report.stdout

        nameserver = subprocess.Popen(
            [*server_command(), "serve", "--config-file", str(server.config_path),
             "--roles", "nameserver"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            active = wait_for(client, f"/v2/zones/{zone['id']}", "ACTIVE", 40)
            assert active["action"] == "NONE"
        finally:
            nameserver.terminate()
            nameserver.wait(timeout=15)
