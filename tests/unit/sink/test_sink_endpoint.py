"""The thread → event loop bridge: outcome of ``info`` as oslo.messaging's thread sees it."""

from __future__ import annotations

import asyncio
from typing import Any

import oslo_messaging
import pytest

from openkeel_designate.domain import errors
from openkeel_designate.sink import endpoint as endpoint_module
from openkeel_designate.sink.endpoint import SinkEndpoint


class FakeHandler:
    name = "fake"
    event_types = ("thing.create.end",)

    def __init__(self, failure: Exception | None = None) -> None:
        self.failure = failure
        self.seen: list[tuple[str, Any]] = []
        self.loop: asyncio.AbstractEventLoop | None = None

    async def process(self, ctxt: dict, event_type: str, payload: Any) -> None:
        self.loop = asyncio.get_running_loop()
        self.seen.append((event_type, payload))
        if self.failure is not None:
            raise self.failure


async def call_info(endpoint: SinkEndpoint, event_type: str = "thing.create.end") -> Any:
    """As oslo.messaging does: from another thread, blocking until the endpoint returns."""
    return await asyncio.to_thread(endpoint.info, {}, "compute.host", event_type, {"x": 1}, {})


async def test_event_runs_on_the_loop_then_is_acknowledged() -> None:
    handler = FakeHandler()
    endpoint = SinkEndpoint(asyncio.get_running_loop(), [handler])
    assert await call_info(endpoint) == oslo_messaging.NotificationResult.HANDLED
    assert handler.seen == [("thing.create.end", {"x": 1})]
    assert handler.loop is asyncio.get_running_loop()


async def test_a_failing_event_is_acknowledged_not_retried() -> None:
    endpoint = SinkEndpoint(asyncio.get_running_loop(), [FakeHandler(ValueError("bad payload"))])
    assert await call_info(endpoint) == oslo_messaging.NotificationResult.HANDLED


async def test_database_outage_requeues(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(endpoint_module, "REQUEUE_PAUSE", 0)
    endpoint = SinkEndpoint(asyncio.get_running_loop(),
                            [FakeHandler(errors.ServiceUnavailable("db away"))])
    assert await call_info(endpoint) == oslo_messaging.NotificationResult.REQUEUE


async def test_filter_admits_declared_events_only() -> None:
    endpoint = SinkEndpoint(asyncio.get_running_loop(), [FakeHandler()])
    rule = endpoint.filter_rule
    assert rule.match({}, "p", "thing.create.end", {}, {})
    assert not rule.match({}, "p", "thing.create.endless", {}, {})
    assert not rule.match({}, "p", "other.event", {}, {})
