"""``dns.*`` notifications, emitted like Designate's central: after an operation succeeds, with
the resulting object as payload, through oslo.messaging (so Ceilometer and other consumers of
``notifications.info`` see the same events).

Nothing leaves the process unless ``[oslo_messaging_notifications] driver`` is set, exactly as
with Designate.  oslo.messaging is blocking, so messages go through one background thread in
order; a broker outage costs the events, never the API call.
"""

from __future__ import annotations

import asyncio
import configparser
import dataclasses
import functools
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, TypeVar

from oslo_config import cfg

from openkeel_designate.central.views import RecordSetView, ZoneView
from openkeel_designate.storage import rows

LOG = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


class Notifier:
    """Sends notifications with oslo.messaging when a driver is configured.

    Each service publishes under its own name, as Designate's do: ``central.<host>`` for the
    results of operations, ``producer.<host>`` for the periodic ``exists`` audit and
    ``api.<host>`` for API faults.
    """

    def __init__(self, conf: cfg.ConfigOpts):
        self._notifier = None
        self._prepared: dict[str, Any] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._host = conf.host
        if not _driver_configured(conf):
            return  # oslo.messaging (and eventlet under it) is only loaded when it is used
        import oslo_messaging

        transport = oslo_messaging.get_notification_transport(conf)
        drivers = [d for d in conf.oslo_messaging_notifications.driver if d != "noop"]
        notifier = oslo_messaging.Notifier(transport, publisher_id=f"central.{self._host}")
        if drivers and notifier.is_enabled():
            self._notifier = notifier
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notify")

    @property
    def enabled(self) -> bool:
        return self._notifier is not None

    def emit(self, result: Any, *event_types: str, publisher: str = "central") -> None:
        """Send ``event_types`` with ``result`` (a view or a row) as payload, priority INFO."""
        if self._notifier is None or result is None:
            return
        body = payload(result)
        for event_type in event_types:
            self.info(event_type, body, publisher)

    def info(self, event_type: str, body: dict[str, Any], publisher: str = "central") -> None:
        self._submit("info", event_type, body, publisher)

    def error(self, event_type: str, body: dict[str, Any], publisher: str = "central") -> None:
        self._submit("error", event_type, body, publisher)

    def _submit(self, priority: str, event_type: str, body: dict[str, Any],
                publisher: str) -> None:
        if self._notifier is None:
            return
        self._executor.submit(self._send, priority, event_type, body, publisher)

    def _send(self, priority: str, event_type: str, body: dict[str, Any],
              publisher: str) -> None:
        try:
            notifier = self._prepared.get(publisher)
            if notifier is None:
                notifier = self._notifier.prepare(publisher_id=f"{publisher}.{self._host}")
                self._prepared[publisher] = notifier
            getattr(notifier, priority)({}, event_type, body)
        except Exception:  # the broker is down: lose the event, keep serving
            LOG.exception("could not emit %s", event_type)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True)


def _driver_configured(conf: cfg.ConfigOpts) -> bool:
    """Whether a notification driver is set, without importing oslo.messaging to find out.

    Its options are registered only once oslo.messaging is imported, so before that the
    configuration files are read directly.
    """
    try:
        return any(d != "noop" for d in conf.oslo_messaging_notifications.driver)
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
        pass
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read(conf.config_file or [])
    for section, key in (("oslo_messaging_notifications", "driver"),
                         ("DEFAULT", "notification_driver")):
        value = parser.get(section, key, fallback="").strip()
        if value and value != "noop":
            return True
    return False


def emit(svc: Any, result: Any, *event_types: str) -> None:
    """Send ``event_types`` with ``result`` as payload (no-op without a configured driver)."""
    notifier = getattr(svc, "notifier", None)
    if notifier is not None:
        notifier.emit(result, *event_types)


def notifies(*event_types: str) -> Callable[[F], F]:
    """Emit ``event_types`` with the operation's result once it has succeeded."""
    def decorate(operation: F) -> F:
        @functools.wraps(operation)
        async def wrapper(svc, *args, **kwargs):
            result = await operation(svc, *args, **kwargs)
            emit(svc, result, *event_types)
            return result
        return wrapper  # type: ignore[return-value]
    return decorate


def payload(result: Any) -> dict[str, Any]:
    """The object as Designate sends it: its fields, timestamps as text."""
    if isinstance(result, ZoneView):
        body = _columns(result.zone)
        body.update(project_id=result.zone.tenant_id, attributes=result.attributes,
                    masters=[f"{h}:{p}" for h, p in result.masters], shared=result.shared)
        return body
    if isinstance(result, RecordSetView):
        body = _columns(result.recordset)
        body.update(project_id=result.recordset.tenant_id, zone_name=result.zone_name,
                    records=sorted(r.data for r in result.records), status=result.status,
                    action=result.action)
        return body
    if hasattr(result, "__table__"):
        return _columns(result)
    for attribute in ("zone", "recordset", "pool", "request", "accept", "share", "task", "row"):
        inner = getattr(result, attribute, None)
        if inner is not None and (hasattr(inner, "__table__") or rows.is_snapshot(inner)):
            return _columns(inner)
    if dataclasses.is_dataclass(result) and not isinstance(result, type):  # a frozen view
        return {f.name: _text(getattr(result, f.name)) for f in dataclasses.fields(result)}
    return {"value": str(result)}


_INTERNAL = {"lease_owner", "lease_expires_at", "attempts", "next_attempt_at", "change_seq",
             "payload", "error_reason"}


def _columns(row: Any) -> dict[str, Any]:
    """The stored fields of a row, or of its frozen copy (``storage.rows.snapshot``)."""
    if dataclasses.is_dataclass(row):
        values = {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}
    else:
        values = rows.columns(row)
    return {key: _text(value) for key, value in values.items() if key not in _INTERNAL}


def _text(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


async def drain(notifier: Notifier) -> None:
    """Let queued notifications leave before shutdown."""
    await asyncio.to_thread(notifier.close)
