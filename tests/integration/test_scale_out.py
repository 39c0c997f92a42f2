"""Roles in separate processes on one PostgreSQL: the API process only writes the database; a
worker process elsewhere picks the change up (LISTEN/NOTIFY wake-up, database claim) and the
zone is served and ACTIVE, as in a multi-host deployment.
"""

from __future__ import annotations

import subprocess
import time

import dns.message
import dns.query
import httpx
import pytest

from support.server import ServerProcess, builtin_pool, server_command

pytestmark = pytest.mark.integration


def test_api_and_worker_in_separate_processes() -> None:
    with ServerProcess(database="postgresql", pools=builtin_pool, roles="api,producer") as api:
        worker_log = open(api.state_dir / "worker.log", "ab")
        worker = subprocess.Popen(
            [*server_command(), "serve", "--config-file", str(api.config_path),
             "--roles", "worker,mdns,nameserver"],
            stdout=worker_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            client = httpx.Client(base_url=api.api_url, headers=api.headers(), timeout=10)
            time.sleep(1.5)  # let the worker process bind its DNS ports
            zone = client.post("/v2/zones", json={"name": "split.example.",
                                                  "email": "h@split.example"}).json()
            rs = client.post(f"/v2/zones/{zone['id']}/recordsets", json={
                "name": "www.split.example.", "type": "A", "records": ["192.0.2.44"]}).json()
            deadline = time.monotonic() + 20
            url = f"/v2/zones/{zone['id']}/recordsets/{rs['id']}"
            while client.get(url).json()["status"] != "ACTIVE":
                assert time.monotonic() < deadline, "the worker process never finished the push"
                time.sleep(0.05)
            assert client.get(f"/v2/zones/{zone['id']}").json()["status"] == "ACTIVE"
            answer = dns.query.udp(dns.message.make_query("www.split.example.", "A"),
                                   "127.0.0.1", port=api.ns_port, timeout=2)
            assert answer.answer[0][0].address == "192.0.2.44"
        finally:
            worker.terminate()
            worker.wait(timeout=15)
            worker_log.close()
