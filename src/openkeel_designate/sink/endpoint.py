"""The bridge from oslo.messaging's worker threads to the asyncio loop.

oslo.messaging runs endpoints in threads (``threading`` executor); central is async and owns
the database pool on the loop.  Each event is therefore submitted to the loop and the thread
waits for the outcome, so the message is acknowledged only once its records are committed.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from typing import Any

import oslo_messaging

from openkeel_designate.domain import errors
from openkeel_designate.sink.base import AddressHandler

LOG = logging.getLogger(__name__)
REQUEUE_PAUSE = 1.0  # seconds a thread waits before handing back an event the DB could not take


class SinkEndpoint:
    """oslo.messaging notification endpoint: ``info`` is what Nova and Neutron publish at."""

    def __init__(self, loop: asyncio.AbstractEventLoop, handlers: Sequence[AddressHandler],
                 timeout: float = 60.0):
        self.loop = loop
        self.handlers = list(handlers)
        self.timeout = timeout
        declared = sorted({t for h in self.handlers for t in h.event_types})
        # Undeclared events never reach ``info`` (they are still acknowledged).
        self.filter_rule = oslo_messaging.NotificationFilter(
            event_type="^(" + "|".join(re.escape(t) for t in declared) + ")$")

    def info(self, ctxt: dict[str, Any], publisher_id: str, event_type: str,
             payload: dict[str, Any], metadata: dict[str, Any]) -> Any:
        future = asyncio.run_coroutine_threadsafe(self.dispatch(ctxt or {}, event_type, payload),
                                                  self.loop)
        try:
            future.result(self.timeout)
        except errors.ServiceUnavailable:
            # The database is away: give the event back rather than lose it.
            LOG.warning("sink: database unavailable, requeueing %s", event_type)
            time.sleep(REQUEUE_PAUSE)
            return oslo_messaging.NotificationResult.REQUEUE
        except Exception:  # a bad event must not stop the listener
            LOG.exception("sink: %s from %s failed", event_type, publisher_id)
        return oslo_messaging.NotificationResult.HANDLED

    async def dispatch(self, ctxt: dict[str, Any], event_type: str,
                       payload: dict[str, Any]) -> None:
        """Every handler that declares the event, in turn (as Designate's sink does)."""
        for handler in self.handlers:
            if event_type in handler.event_types:
                LOG.debug("sink: %s → %s", event_type, handler.name)
                await handler.process(ctxt, event_type, payload)
