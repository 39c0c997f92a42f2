"""A real ``serve`` with the ExternalDNS webhook role on, and a v2 API client of its project."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from support.externaldns import GoWebhookClient
from support.server import ServerProcess, free_port

PROJECT = "xdns-project"


class Webhook:
    """One server: its webhook (as ExternalDNS's Go client calls it) and its v2 API."""

    def __init__(self, server: ServerProcess, listen: int, health: int):
        self.server = server
        self.url = f"http://127.0.0.1:{listen}"
        self.health_url = f"http://127.0.0.1:{health}"
        self.go = GoWebhookClient(self.url)
        self.api = httpx.Client(base_url=server.api_url, headers=server.headers(PROJECT),
                                timeout=30)

    def zone(self, name: str) -> dict[str, Any]:
        response = self.api.post("/v2/zones", json={"name": name, "email": f"h@{name}"[:-1]})
        assert response.status_code == 202, response.text
        return response.json()

    def recordsets(self, zone_id: str, **criteria: str) -> dict[tuple[str, str], list[str]]:
        listing = self.api.get(f"/v2/zones/{zone_id}/recordsets",
                               params={"limit": 1000, **criteria}).json()["recordsets"]
        return {(rs["name"], rs["type"]): sorted(rs["records"]) for rs in listing}


def start(roles: str | None = None, database: str = "sqlite",
          **externaldns: Any) -> tuple[ServerProcess, int, int]:
    listen, health = free_port(), free_port()
    options = {"service:externaldns": {"listen": f"127.0.0.1:{listen}",
                                       "health_listen": f"127.0.0.1:{health}",
                                       "project_id": PROJECT, **externaldns}}
    server = ServerProcess(options=options, roles=roles, database=database)
    server.start()
    return server, listen, health


@pytest.fixture(scope="module")
def webhook() -> Iterator[Webhook]:
    """Every role (the default serve), the webhook on because project_id is set; a domain
    filter naming the test's zones, so a zone of the project outside it stays unmanaged."""
    server, listen, health = start(domain_filter=["xdns.example", "pending.example"],
                                   max_body_size=65536)
    try:
        yield Webhook(server, listen, health)
    finally:
        server.stop()
