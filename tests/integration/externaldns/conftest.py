"""A real ``serve`` with the ExternalDNS webhook role on, and a v2 API client of its project."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.externaldns import Webhook, start


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
