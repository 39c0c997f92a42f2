"""The unmodified ``openstack`` CLI with password authentication: it finds the DNS API in the
Keystone catalog and sends a real token, as against Designate behind keystonemiddleware."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from support.keystone import REGION

pytestmark = pytest.mark.integration


def _openstack() -> str | None:
    local = Path(sys.executable).with_name("openstack")
    return str(local) if local.exists() else shutil.which("openstack")


@pytest.mark.skipif(_openstack() is None, reason="python-openstackclient is not installed")
def test_openstack_cli_with_a_keystone_token(server, keystone, alice):
    keystone.register_endpoint("dns", "designate", server.api_url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(OS_AUTH_URL=f"{keystone.url}/v3", OS_IDENTITY_API_VERSION="3",
               OS_USERNAME="alice", OS_PASSWORD="pass", OS_PROJECT_NAME="dns-a",
               OS_USER_DOMAIN_NAME="Default", OS_PROJECT_DOMAIN_NAME="Default",
               OS_REGION_NAME=REGION, OS_INTERFACE="public")

    def cli(*args: str) -> object:
        done = subprocess.run([_openstack() or "openstack", *args, "-f", "json"],
                              capture_output=True, text=True, env=env, timeout=120,
                              stdin=subprocess.DEVNULL, check=False)
        assert done.returncode == 0, f"openstack {' '.join(args)}:\n{done.stderr}"
        return json.loads(done.stdout)

    name = f"cli-{uuid.uuid4().hex[:8]}.example.org."
    created = cli("zone", "create", "--email", "hostmaster@example.org", name)
    assert created["project_id"] == alice.project_id
    assert name in [z["name"] for z in cli("zone", "list")]
    shown = httpx.get(f"{server.api_url}/v2/zones/{created['id']}", headers=alice.headers())
    assert shown.status_code == 200
