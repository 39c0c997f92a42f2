"""Which HTTP calls the pdns4 driver makes, recorded by an httpx mock (no PowerDNS needed)."""

from __future__ import annotations

import httpx
import pytest

from openkeel_designate.backends.base import (
    PermanentBackendError,
    Target,
    TransientBackendError,
    ZoneRef,
)
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


class ServedBackend(Pdns4Backend):
    """The real driver facing a PowerDNS that holds the zone at ``serial`` with PRESIGNED
    metadata ``presigned`` (None: the metadata endpoint answers 404, no DNSSEC backend)."""

    def __init__(self, serial: int, presigned: list[str] | None):
        super().__init__(Target(id="t1", type="pdns4", masters=(("127.0.0.1", 5354),),
                                options={"api_endpoint": "http://127.0.0.1:8081"}))
        self.serial, self.presigned = serial, presigned
        self.calls: list[str] = []

    def _client(self) -> httpx.AsyncClient:
        def answer(request: httpx.Request) -> httpx.Response:
            self.calls.append(request.url.path)
            if request.url.path.endswith("/metadata/PRESIGNED"):
                if self.presigned is None:
                    return httpx.Response(404, text="Not Found")
                return httpx.Response(200, json={"kind": "PRESIGNED", "metadata": self.presigned})
            return httpx.Response(200, json={"name": "calls.example.", "serial": self.serial})
        return httpx.AsyncClient(base_url=self.base_url, transport=httpx.MockTransport(answer))


SIGNED = ZoneRef("z1", "calls.example.", serial=10, signed=True)


async def test_check_served_asks_nothing_of_an_unsigned_zone() -> None:
    driver = ServedBackend(serial=0, presigned=None)
    await driver.check_served(ZoneRef("z1", "calls.example.", serial=10))
    assert driver.calls == []


async def test_check_served_passes_a_presigned_zone_at_the_serial() -> None:
    driver = ServedBackend(serial=11, presigned=["1"])
    await driver.check_served(SIGNED)
    assert driver.calls == [ZONE_PATH, ZONE_PATH + "/metadata/PRESIGNED"]


async def test_check_served_waits_for_the_transfer() -> None:
    with pytest.raises(TransientBackendError, match="not yet 10"):
        await ServedBackend(serial=9, presigned=["1"]).check_served(SIGNED)


@pytest.mark.parametrize("presigned", [None, []])
async def test_check_served_refuses_a_zone_kept_unsigned(presigned: list[str] | None) -> None:
    with pytest.raises(PermanentBackendError, match="gsqlite3-dnssec=yes"):
        await ServedBackend(serial=10, presigned=presigned).check_served(SIGNED)
