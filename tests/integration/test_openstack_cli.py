"""The unmodified ``openstack`` CLI (python-openstackclient + python-designateclient) drives our server.

Why: DESIGN promises that existing clients work unchanged. This walks the everyday operator path
— zone create/list/show, recordset create/list/delete, zone delete — through the real CLI and
checks both its JSON output and the server's final state over HTTP.

noauth invocation (checked against the real Designate 23.0.0): ``--os-auth-type none
--os-endpoint <api>/v2``. keystoneauth's ``none`` plugin sends no project header, so the
server's noauth middleware files everything under its default project ``noauth-project``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from support.server import ServerProcess

pytestmark = pytest.mark.integration

NOAUTH_PROJECT = "noauth-project"
CLI_TIMEOUT = 120.0


def _openstack_binary() -> str | None:
    local = Path(sys.executable).with_name("openstack")
    return str(local) if local.exists() else shutil.which("openstack")


OPENSTACK = _openstack_binary()


class Cli:
    """Runs ``openstack`` against one server; OS_* variables are cleared so nothing leaks in."""

    def __init__(self, server: ServerProcess):
        self.server = server
        self.base = [OPENSTACK or "openstack", "--os-auth-type", "none",
                     "--os-endpoint", f"{server.api_url}/v2"]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.base, *args], capture_output=True, text=True, env=self.env,
                              timeout=CLI_TIMEOUT, stdin=subprocess.DEVNULL, check=False)

    def json(self, *args: str) -> Any:
        done = self.run(*args, "-f", "json")
        assert done.returncode == 0, (f"openstack {' '.join(args)} failed:\n{done.stderr}\n"
                                      f"server log:\n{self.server.log_tail()}")
        return json.loads(done.stdout) if done.stdout.strip() else None


def _wait_for(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


@pytest.mark.skipif(OPENSTACK is None, reason="python-openstackclient is not installed")
def test_zone_and_recordset_lifecycle_through_openstack_cli() -> None:
    zone = f"cli-{uuid.uuid4().hex[:8]}.example.org."
    with ServerProcess(project=NOAUTH_PROJECT) as server:
        cli = Cli(server)
        http = httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10)
        try:
            created = cli.json("zone", "create", zone, "--email", "hostmaster@example.org",
                               "--ttl", "600", "--description", "made by the CLI")
            assert created["name"] == zone
            assert created["email"] == "hostmaster@example.org"
            assert created["ttl"] == 600
            assert created["description"] == "made by the CLI"
            assert created["type"] == "PRIMARY"
            assert created["status"] == "PENDING"
            assert created["action"] == "CREATE"
            assert created["project_id"] == NOAUTH_PROJECT
            zone_id = created["id"]

            listed = cli.json("zone", "list")
            assert [z["id"] for z in listed] == [zone_id]
            assert listed[0]["name"] == zone

            _wait_for(lambda: cli.json("zone", "show", zone)["status"] == "ACTIVE", "zone ACTIVE")
            shown = cli.json("zone", "show", zone_id)
            assert shown["id"] == zone_id
            assert shown["name"] == zone
            assert shown["action"] == "NONE"
            assert shown["serial"] >= created["serial"]

            rs = cli.json("recordset", "create", zone, "www", "--type", "A",
                          "--record", "192.0.2.10", "--record", "192.0.2.11", "--ttl", "300")
            assert rs["name"] == f"www.{zone}"
            assert rs["type"] == "A"
            assert rs["ttl"] == 300
            assert rs["zone_id"] == zone_id
            assert rs["zone_name"] == zone
            assert sorted(rs["records"].split("\n")) == ["192.0.2.10", "192.0.2.11"]
            rs_id = rs["id"]

            rsets = cli.json("recordset", "list", zone)
            by_type = {r["type"]: r for r in rsets}
            assert set(by_type) == {"SOA", "NS", "A"}
            assert by_type["A"]["id"] == rs_id
            assert by_type["A"]["name"] == f"www.{zone}"
            assert by_type["SOA"]["name"] == by_type["NS"]["name"] == zone

            deleted = cli.json("recordset", "delete", zone, f"www.{zone}")
            assert deleted["id"] == rs_id
            assert deleted["action"] == "DELETE"
            _wait_for(lambda: http.get(f"/v2/zones/{zone_id}/recordsets/{rs_id}").status_code == 404,
                      "recordset 404 after delete")
            assert {r["type"] for r in cli.json("recordset", "list", zone)} == {"SOA", "NS"}

            gone = cli.json("zone", "delete", zone)
            assert gone["id"] == zone_id
            assert gone["action"] == "DELETE"
            _wait_for(lambda: http.get(f"/v2/zones/{zone_id}").status_code == 404, "zone 404 after delete")
            assert cli.json("zone", "list") == []
            missing = cli.run("zone", "show", zone_id)
            assert missing.returncode != 0
        finally:
            http.close()
