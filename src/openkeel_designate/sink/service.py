"""The ``sink`` role: one oslo.messaging notification listener over every enabled handler's
(exchange, topic) targets, started and stopped from the asyncio runtime.

Why the broker is probed before the listener starts: oslo.messaging's ``start()`` blocks,
retrying forever, while RabbitMQ is unreachable, and its ``stop()`` then waits for that start.
Probing first keeps ``serve`` responsive (the other roles run, a warning is logged every
attempt) and lets shutdown abandon a sink that never connected.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

import oslo_messaging
from oslo_config import cfg

from openkeel_designate.central.services import Services
from openkeel_designate.sink.base import AddressHandler
from openkeel_designate.sink.endpoint import SinkEndpoint
from openkeel_designate.sink.neutron_floatingip import NeutronFloatingHandler
from openkeel_designate.sink.nova_fixed import NovaFixedHandler

LOG = logging.getLogger(__name__)
HANDLERS: dict[str, type[AddressHandler]] = {
    cls.name: cls for cls in (NovaFixedHandler, NeutronFloatingHandler)}
STOP_TIMEOUT = 15.0


def enabled_handlers(svc: Services, conf: cfg.ConfigOpts) -> list[AddressHandler]:
    """The handlers named in ``[service:sink] enabled_notification_handlers``."""
    names = conf["service:sink"].enabled_notification_handlers
    unknown = sorted(set(names) - set(HANDLERS))
    if unknown:
        raise SystemExit(f"[service:sink] enabled_notification_handlers: unknown handler(s) "
                         f"{', '.join(unknown)}; known: {', '.join(sorted(HANDLERS))}")
    return [HANDLERS[name](svc, conf) for name in dict.fromkeys(names)]


async def _in_thread(fn: Callable[[], object], name: str) -> None:
    """Run a blocking oslo.messaging call on a daemon thread of its own.

    Not ``asyncio.to_thread``: a call that never returns would hold the default executor and
    with it the interpreter's exit.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def settle(exc: BaseException | None) -> None:
        if done.done():
            return
        if exc is None:
            done.set_result(None)
        else:
            done.set_exception(exc)

    def run() -> None:
        error: BaseException | None = None
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            error = exc
        try:
            loop.call_soon_threadsafe(settle, error)
        except RuntimeError:
            pass  # the loop is gone: nobody waits any more

    threading.Thread(target=run, name=name, daemon=True).start()
    await done


class Sink:
    """Owns the transport and listener; ``start`` returns at once, connecting in the background."""

    def __init__(self, svc: Services, conf: cfg.ConfigOpts):
        self.conf = conf
        self.handlers = enabled_handlers(svc, conf)
        self._transport: oslo_messaging.Transport | None = None
        self._listener: oslo_messaging.MessageHandlingServer | None = None
        self._started = False
        self._task: asyncio.Task | None = None

    def targets(self) -> list[oslo_messaging.Target]:
        pairs = dict.fromkeys(pair for h in self.handlers for pair in h.targets())
        return [oslo_messaging.Target(exchange=exchange, topic=topic) for exchange, topic in pairs]

    async def start(self) -> None:
        if not self.handlers:
            LOG.info("sink: no notification handler enabled, nothing to consume")
            return
        self._transport = oslo_messaging.get_notification_transport(self.conf)
        endpoint = SinkEndpoint(asyncio.get_running_loop(), self.handlers)
        self._listener = oslo_messaging.get_notification_listener(
            self._transport, self.targets(), [endpoint], executor="threading",
            pool=self.conf["service:sink"].listener_pool_name, allow_requeue=True)
        self._task = asyncio.create_task(self._connect())

    async def _connect(self) -> None:
        delay = 1.0
        while not await self._broker_answers():
            LOG.warning("sink: no message broker answers at %s; retrying in %.0f s",
                        ", ".join(self._broker_hosts()), delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 30.0)
        await _in_thread(self._listener.start, "sink-start")
        self._started = True
        LOG.info("sink: consuming %s for %s", ", ".join(f"{t.exchange}/{t.topic}"
                                                        for t in self.targets()),
                 ", ".join(h.name for h in self.handlers))

    def _broker_hosts(self) -> list[str]:
        """``host:port`` of every broker in the transport URL (RabbitMQ's port by default)."""
        url = oslo_messaging.TransportURL.parse(self.conf, self._transport_url())
        return [f"{(h.hostname or 'localhost')}:{h.port or 5672}" for h in url.hosts] or [
            "localhost:5672"]

    async def _broker_answers(self) -> bool:
        """True when some broker host accepts a TCP connection (credentials are oslo's job)."""
        for entry in self._broker_hosts():
            host, _, port = entry.rpartition(":")
            try:
                _, writer = await asyncio.wait_for(asyncio.open_connection(host.strip("[]"),
                                                                           int(port)), 5)
            except (OSError, TimeoutError):
                continue
            writer.close()
            return True
        return False

    def _transport_url(self) -> str | None:
        return (self.conf.oslo_messaging_notifications.transport_url
                or self.conf.transport_url)

    async def stop(self) -> None:
        """Stop consuming and let events in flight finish (they need the loop, still running)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._listener is not None and self._started:
            try:
                await asyncio.wait_for(_in_thread(self._listener.stop, "sink-stop"), STOP_TIMEOUT)
                await asyncio.wait_for(_in_thread(self._listener.wait, "sink-wait"), STOP_TIMEOUT)
            except TimeoutError:
                LOG.warning("sink: listener did not stop within %.0f s", STOP_TIMEOUT)
        elif self._listener is not None:
            LOG.warning("sink: stopping before the broker was reached")
        if self._transport is not None:
            self._transport.cleanup()
