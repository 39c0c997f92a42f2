"""The unmodified ``openstack`` CLI drives the admin and multi-project features of our server.

Why: operators script TLDs, TSIG keys, blacklists, quotas, imports/exports, transfers and shares
with python-designateclient; each command parses our JSON with its own expectations, so a field
renamed or a status code off by one breaks them where the HTTP tests would not notice.

noauth gives the CLI no way to pick a project (keystoneauth's ``none`` plugin sends no project
header), so every call runs in the server's default ``noauth-project`` with the default ``admin``
role. A second project is reached the way an operator would: designateclient's per-command
``--sudo-project-id`` (header ``X-Auth-Sudo-Project-ID``); quotas of another project use
``--project-id``, which designateclient turns into ``X-Auth-All-Projects``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.server import ServerProcess

NOAUTH_PROJECT = "noauth-project"
OTHER_PROJECT = "cli-other-project"
CLI_TIMEOUT = 120.0


def _openstack_binary() -> str | None:
    local = Path(sys.executable).with_name("openstack")
    return str(local) if local.exists() else shutil.which("openstack")


OPENSTACK = _openstack_binary()

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(OPENSTACK is None, reason="python-openstackclient is not installed")]


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

    def ok(self, *args: str) -> str:
        """A command that prints nothing on success (deletes, reset)."""
        done = self.run(*args)
        assert done.returncode == 0, (f"openstack {' '.join(args)} failed:\n{done.stderr}\n"
                                      f"server log:\n{self.server.log_tail()}")
        return done.stdout

    def json(self, *args: str) -> Any:
        out = self.ok(*args, "-f", "json")
        return json.loads(out) if out.strip() else None

    def fails(self, *args: str) -> str:
        """A command expected to be refused; its stderr, for the message check."""
        done = self.run(*args)
        assert done.returncode != 0, f"openstack {' '.join(args)} unexpectedly succeeded:\n{done.stdout}"
        return done.stderr


def wait_for(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll ``check`` until it returns something truthy (which is returned)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)


def wait_finished(cli: Cli, task: str, task_id: str) -> dict[str, Any]:
    """``zone import|export show`` until the task has left PENDING."""
    def finished() -> dict[str, Any] | None:
        shown = cli.json("zone", task, "show", task_id)
        return shown if shown["status"] != "PENDING" else None
    return wait_for(finished, f"{task} {task_id} finished")


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with ServerProcess(project=NOAUTH_PROJECT) as srv:
        yield srv


@pytest.fixture(scope="module")
def cli(server: ServerProcess) -> Cli:
    return Cli(server)


@pytest.fixture
def http(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.api_url, headers=server.headers(), timeout=10) as client:
        yield client


def as_project(project: str) -> dict[str, str]:
    return {"X-Auth-Project-ID": project}


def make_zone(cli: Cli, http: httpx.Client, prefix: str) -> dict[str, Any]:
    """An ACTIVE zone of ``noauth-project`` under a name no other test uses."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}.example.org."
    zone = cli.json("zone", "create", name, "--email", "hostmaster@example.org")
    wait_for(lambda: http.get(f"/v2/zones/{zone['id']}").json()["status"] == "ACTIVE",
             f"{name} ACTIVE")
    return zone


def test_tld_lifecycle(cli: Cli, http: httpx.Client) -> None:
    created = cli.json("tld", "create", "--name", "clitld", "--description", "for the CLI")
    assert created["name"] == "clitld"
    assert created["description"] == "for the CLI"
    tld_id = created["id"]

    assert [t["id"] for t in cli.json("tld", "list")] == [tld_id]
    assert cli.json("tld", "list", "--name", "clitld")[0]["name"] == "clitld"
    assert cli.json("tld", "show", tld_id)["name"] == "clitld"
    assert cli.json("tld", "show", "clitld")["id"] == tld_id  # by name, resolved by the client

    renamed = cli.json("tld", "set", tld_id, "--name", "clitld2", "--no-description")
    assert renamed["name"] == "clitld2"
    assert renamed["description"] is None
    assert http.get(f"/v2/tlds/{tld_id}").json()["name"] == "clitld2"

    # once a TLD exists, zones outside it are refused: the rule the TLD exists for
    refused = cli.fails("zone", "create", "outside.example.", "--email", "h@example.org")
    assert "invalid_zone_name" in refused or "Invalid TLD" in refused or "TLD" in refused

    cli.ok("tld", "delete", tld_id)
    assert http.get(f"/v2/tlds/{tld_id}").status_code == 404
    assert cli.json("tld", "list") == []


def test_tsigkey_lifecycle(cli: Cli, http: httpx.Client) -> None:
    pool_id = http.get("/v2/pools").json()["pools"][0]["id"]
    created = cli.json("tsigkey", "create", "--name", "cli-key", "--algorithm", "hmac-sha256",
                       "--secret", "c2VjcmV0LXNlY3JldA==", "--scope", "POOL",
                       "--resource-id", pool_id)
    assert created["name"] == "cli-key"
    assert created["algorithm"] == "hmac-sha256"
    assert created["secret"] == "c2VjcmV0LXNlY3JldA=="
    assert created["scope"] == "POOL"
    assert created["resource_id"] == pool_id
    key_id = created["id"]

    assert [k["id"] for k in cli.json("tsigkey", "list")] == [key_id]
    assert [k["id"] for k in cli.json("tsigkey", "list", "--name", "cli-key")] == [key_id]
    assert cli.json("tsigkey", "list", "--algorithm", "hmac-md5") == []
    assert cli.json("tsigkey", "show", key_id)["secret"] == "c2VjcmV0LXNlY3JldA=="

    updated = cli.json("tsigkey", "set", key_id, "--name", "cli-key-2", "--algorithm",
                       "hmac-sha512", "--secret", "bmV3LXNlY3JldA==")
    assert updated["name"] == "cli-key-2"
    assert updated["algorithm"] == "hmac-sha512"
    assert updated["secret"] == "bmV3LXNlY3JldA=="
    stored = http.get(f"/v2/tsigkeys/{key_id}").json()
    assert (stored["name"], stored["algorithm"]) == ("cli-key-2", "hmac-sha512")

    cli.ok("tsigkey", "delete", key_id)
    assert http.get(f"/v2/tsigkeys/{key_id}").status_code == 404


def test_blacklist_lifecycle(cli: Cli, http: httpx.Client) -> None:
    created = cli.json("zone", "blacklist", "create", "--pattern", "^blocked\\.example\\.org\\.$",
                       "--description", "no")
    assert created["pattern"] == "^blocked\\.example\\.org\\.$"
    assert created["description"] == "no"
    bl_id = created["id"]

    assert bl_id in [b["id"] for b in cli.json("zone", "blacklist", "list")]
    assert cli.json("zone", "blacklist", "show", bl_id)["pattern"] == created["pattern"]

    updated = cli.json("zone", "blacklist", "set", bl_id, "--pattern", "^blocked\\.example\\.net\\.$",
                       "--no-description")
    assert updated["pattern"] == "^blocked\\.example\\.net\\.$"
    assert updated["description"] is None
    assert http.get(f"/v2/blacklists/{bl_id}").json()["pattern"] == "^blocked\\.example\\.net\\.$"

    # the pattern applies to callers without the blacklist override (not admin)
    member = {"X-Auth-Project-ID": "bl-member", "X-Roles": "member"}
    refused = http.post("/v2/zones", json={"name": "blocked.example.net.", "email": "h@example.org"},
                        headers=member)
    assert refused.status_code == 400
    assert refused.json()["type"] == "invalid_zone_name"

    cli.ok("zone", "blacklist", "delete", bl_id)
    assert http.get(f"/v2/blacklists/{bl_id}").status_code == 404
    assert bl_id not in [b["id"] for b in cli.json("zone", "blacklist", "list")]


def test_quotas_list_set_reset(cli: Cli, http: httpx.Client) -> None:
    defaults = {"zones": 10, "zone_recordsets": 500, "zone_records": 500,
                "recordset_records": 20, "api_export_size": 1000}
    assert cli.json("dns", "quota", "list") == defaults
    assert cli.json("dns", "quota", "list", "--project-id", OTHER_PROJECT) == defaults

    updated = cli.json("dns", "quota", "set", "--project-id", OTHER_PROJECT, "--zones", "3",
                       "--recordset-records", "7")
    assert updated == {**defaults, "zones": 3, "recordset_records": 7}
    assert cli.json("dns", "quota", "list", "--project-id", OTHER_PROJECT)["zones"] == 3
    over_http = http.get(f"/v2/quotas/{OTHER_PROJECT}", headers={"X-Auth-All-Projects": "True"})
    assert over_http.json() == {**defaults, "zones": 3, "recordset_records": 7}
    assert cli.json("dns", "quota", "list") == defaults  # our own project is untouched

    cli.ok("dns", "quota", "reset", "--project-id", OTHER_PROJECT)
    assert cli.json("dns", "quota", "list", "--project-id", OTHER_PROJECT) == defaults
    assert http.get(f"/v2/quotas/{OTHER_PROJECT}",
                    headers={"X-Auth-All-Projects": "True"}).json() == defaults


def test_zone_import_lifecycle(cli: Cli, http: httpx.Client, tmp_path: Path) -> None:
    name = f"imported-{uuid.uuid4().hex[:8]}.example.org."
    zonefile = tmp_path / "zone.txt"
    zonefile.write_text(
        f"$ORIGIN {name}\n$TTL 3600\n"
        f"{name} IN SOA ns1.example.net. hostmaster.{name} 1 3600 600 86400 3600\n"
        f"{name} IN NS ns1.example.net.\n"
        f"www.{name} 300 IN A 192.0.2.20\n"
        f"mail.{name} IN AAAA 2001:db8::20\n")
    created = cli.json("zone", "import", "create", str(zonefile))
    assert created["status"] == "PENDING"
    assert created["project_id"] == NOAUTH_PROJECT
    import_id = created["id"]

    done = wait_finished(cli, "import", import_id)
    assert done["status"] == "COMPLETE", done
    zone_id = done["zone_id"]
    assert zone_id
    assert import_id in [i["id"] for i in cli.json("zone", "import", "list")]

    zone = http.get(f"/v2/zones/{zone_id}").json()
    assert zone["name"] == name
    rsets = http.get(f"/v2/zones/{zone_id}/recordsets").json()["recordsets"]
    by_name = {(r["name"], r["type"]): r for r in rsets}
    assert by_name[(f"www.{name}", "A")]["records"] == ["192.0.2.20"]
    assert by_name[(f"www.{name}", "A")]["ttl"] == 300
    assert by_name[(f"mail.{name}", "AAAA")]["records"] == ["2001:db8::20"]

    cli.ok("zone", "import", "delete", import_id)
    assert http.get(f"/v2/zones/tasks/imports/{import_id}").status_code == 404
    assert http.get(f"/v2/zones/{zone_id}").status_code == 200  # the zone stays


def test_zone_export_lifecycle(cli: Cli, http: httpx.Client) -> None:
    zone = make_zone(cli, http, "exported")
    cli.json("recordset", "create", zone["id"], "www", "--type", "A", "--record", "192.0.2.30")

    created = cli.json("zone", "export", "create", zone["id"])
    assert created["zone_id"] == zone["id"]
    export_id = created["id"]
    done = wait_finished(cli, "export", export_id)
    assert done["status"] == "COMPLETE", done
    assert done["location"].startswith("designate://")

    listed = cli.json("zone", "export", "list")
    assert export_id in [e["id"] for e in listed]
    text = cli.json("zone", "export", "showfile", export_id)["data"]
    assert f"$ORIGIN {zone['name']}" in text
    assert "192.0.2.30" in text
    assert "SOA" in text

    cli.ok("zone", "export", "delete", export_id)
    assert http.get(f"/v2/zones/tasks/exports/{export_id}").status_code == 404
    assert export_id not in [e["id"] for e in cli.json("zone", "export", "list")]


def test_transfer_between_projects(cli: Cli, http: httpx.Client) -> None:
    zone = make_zone(cli, http, "moving")
    request = cli.json("zone", "transfer", "request", "create", zone["id"],
                       "--target-project-id", OTHER_PROJECT, "--description", "to the other")
    assert request["zone_id"] == zone["id"]
    assert request["zone_name"] == zone["name"]
    assert request["target_project_id"] == OTHER_PROJECT
    assert request["status"] == "ACTIVE"
    assert request["description"] == "to the other"
    assert len(request["key"]) == 8
    req_id = request["id"]

    assert req_id in [r["id"] for r in cli.json("zone", "transfer", "request", "list")]
    assert cli.json("zone", "transfer", "request", "show", req_id)["key"] == request["key"]
    updated = cli.json("zone", "transfer", "request", "set", req_id, "--description", "changed")
    assert updated["description"] == "changed"
    assert http.get(f"/v2/zones/tasks/transfer_requests/{req_id}").json()["description"] == "changed"

    # the target sees the request (without the key details) before accepting
    seen = http.get(f"/v2/zones/tasks/transfer_requests/{req_id}", headers=as_project(OTHER_PROJECT))
    assert seen.status_code == 200

    accept = cli.json("zone", "transfer", "accept", "request", "--transfer-id", req_id,
                      "--key", request["key"], "--sudo-project-id", OTHER_PROJECT)
    assert accept["zone_transfer_request_id"] == req_id
    assert accept["status"] == "COMPLETE"
    assert accept["zone_id"] == zone["id"]
    assert accept["project_id"] == OTHER_PROJECT
    accept_id = accept["id"]

    shown = cli.json("zone", "transfer", "accept", "show", accept_id,
                     "--sudo-project-id", OTHER_PROJECT)
    assert shown["id"] == accept_id
    assert shown["status"] == "COMPLETE"
    listed = cli.json("zone", "transfer", "accept", "list", "--sudo-project-id", OTHER_PROJECT)
    assert accept_id in [a["id"] for a in listed]

    moved = http.get(f"/v2/zones/{zone['id']}", headers=as_project(OTHER_PROJECT)).json()
    assert moved["project_id"] == OTHER_PROJECT
    assert http.get(f"/v2/zones/{zone['id']}", headers=as_project(NOAUTH_PROJECT)).status_code == 404
    assert http.get(f"/v2/zones/tasks/transfer_requests/{req_id}").json()["status"] == "COMPLETE"
    assert zone["id"] not in [z["id"] for z in cli.json("zone", "list")]

    # a second request, never accepted, is deleted by its owner
    zone2 = make_zone(cli, http, "staying")
    request2 = cli.json("zone", "transfer", "request", "create", zone2["id"])
    cli.ok("zone", "transfer", "request", "delete", request2["id"])
    assert http.get(f"/v2/zones/tasks/transfer_requests/{request2['id']}").status_code == 404
    wrong = cli.fails("zone", "transfer", "accept", "request", "--transfer-id", request2["id"],
                      "--key", request2["key"], "--sudo-project-id", OTHER_PROJECT)
    assert "not_found" in wrong or "Could not find" in wrong


def test_zone_shares(cli: Cli, http: httpx.Client) -> None:
    zone = make_zone(cli, http, "shared")
    target = f"share-target-{uuid.uuid4().hex[:6]}"
    share = cli.json("zone", "share", "create", zone["name"], target)
    assert share["zone_id"] == zone["id"]
    assert share["target_project_id"] == target
    assert share["project_id"] == NOAUTH_PROJECT
    share_id = share["id"]

    listed = cli.json("zone", "share", "list", zone["id"])
    assert [s["id"] for s in listed] == [share_id]
    assert cli.json("zone", "share", "list", zone["id"], "--target-project-id", "nobody") == []
    shown = cli.json("zone", "share", "show", zone["name"], share_id)
    assert shown["target_project_id"] == target

    # the target project now sees the zone and may add recordsets to it
    seen = http.get(f"/v2/zones/{zone['id']}", headers=as_project(target))
    assert seen.status_code == 200
    assert seen.json()["shared"] is True

    cli.ok("zone", "share", "delete", zone["id"], share_id)
    assert http.get(f"/v2/zones/{zone['id']}/shares/{share_id}").status_code == 404
    assert cli.json("zone", "share", "list", zone["id"]) == []
    assert http.get(f"/v2/zones/{zone['id']}", headers=as_project(target)).status_code == 404
