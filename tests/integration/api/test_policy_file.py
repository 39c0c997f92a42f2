"""policy.yaml overrides Designate's defaults, as operators expect."""

from __future__ import annotations

import httpx
import pytest

from openkeel_designate.api.app import create_app
from openkeel_designate.central.policy import Policy
from openkeel_designate.central.services import Services

from conftest import project
from support.api_errors import assert_forbidden

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def test_policy_yaml_overrides_a_default_rule(services, tmp_path):
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text('"create_zone": "role:admin"\n"find_pools": "role:reader"\n')
    services.conf.set_override("policy_file", str(policy_file), group="oslo_policy")
    custom = Services(conf=services.conf, db=services.db, policy=Policy(services.conf))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(custom)),
                                 base_url="http://api.test") as client:
        member = await client.post("/v2/zones", json={"name": "p.example.", "email": "h@p.example"},
                                   headers=project("proj-p"))
        assert_forbidden(member)
        admin = await client.post("/v2/zones", json={"name": "p.example.", "email": "h@p.example"},
                                  headers=project("proj-p", "admin"))
        assert admin.status_code == 202
        pools = await client.get("/v2/pools", headers=project("proj-p", "reader"))
        assert pools.status_code == 200
