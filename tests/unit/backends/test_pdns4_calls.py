"""Which HTTP calls the pdns4 driver makes, recorded by an httpx mock (no PowerDNS needed)."""

from __future__ import annotations

import httpx
import pytest

from openkeel_designate.backends.base import Target, ZoneRef
from openkeel_designate.backends.pdns4 import Pdns4Backend

ZONE = ZoneRef("z1", "calls.example.")
ZONE_PATH = "/api/v1/servers/localhost/zones/calls.example."


class RecordingBackend(Pdns4Backend):
    """The real driver whose HTTP client answers from a mock and records every request."""

    def __init__(self, target: Target):
        super().__init__(target)
        self.calls: list[tuple[str, str]] = []

    def _client(self) -> httpx.AsyncClient:
        def answer(request: httpx.Request) -> httpx.Response:
            self.calls.append((request.method, request.url.path))
            if request.method == "GET":
                return httpx.Response(404, json={"error": "Not Found"})
            return httpx.Response(201 if request.method == "POST" else 200, json={})
        return httpx.AsyncClient(base_url=self.base_url, transport=httpx.MockTransport(answer))


def backend(**options: object) -> RecordingBackend:
    return RecordingBackend(Target(id="t1", type="pdns4", masters=(("127.0.0.1", 5354),),
                                   options={"api_endpoint": "http://127.0.0.1:8081", **options}))


async def test_create_and_update_retrieve_at_once_by_default() -> None:
    driver = backend()
    await driver.create_zone(ZONE)
    await driver.update_zone(ZONE)
    assert driver.calls == [("GET", ZONE_PATH), ("POST", "/api/v1/servers/localhost/zones"),
                            ("PUT", ZONE_PATH + "/axfr-retrieve"),
                            ("PUT", ZONE_PATH + "/axfr-retrieve")]


@pytest.mark.parametrize("value", [False, "false", "no", "0"])
async def test_opt_out_makes_exactly_designates_calls(value: object) -> None:
    driver = backend(axfr_retrieve=value)
    await driver.create_zone(ZONE)
    await driver.update_zone(ZONE)
    assert driver.calls == [("GET", ZONE_PATH), ("POST", "/api/v1/servers/localhost/zones")]


@pytest.mark.parametrize("value", [True, "true", "yes", "1"])
def test_opt_in_values_keep_the_default(value: object) -> None:
    assert backend(axfr_retrieve=value).axfr_retrieve
