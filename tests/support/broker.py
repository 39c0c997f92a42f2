"""The machine's RabbitMQ as the notification tests use it: read what oslo.messaging published,
and remove the queues a test made."""

from __future__ import annotations

import json
import time

import kombu

#: oslo.messaging's spelling of the broker (``[DEFAULT] transport_url``).
TRANSPORT_URL = "rabbit://guest:guest@127.0.0.1:5672/"
#: kombu's spelling of the same broker.
BROKER = "amqp://guest:guest@127.0.0.1:5672//"


def drain(queue_name: str, wanted: int, timeout: float = 10.0) -> list[dict]:
    """Up to ``wanted`` notifications from ``queue_name`` (oslo.messaging's envelope opened)."""
    events = []
    deadline = time.monotonic() + timeout
    with kombu.Connection(BROKER) as connection:
        queue = connection.SimpleQueue(kombu.Queue(queue_name, no_declare=True))
        try:
            while len(events) < wanted and time.monotonic() < deadline:
                try:
                    message = queue.get(block=True, timeout=0.5)
                except queue.Empty:
                    continue
                body = message.payload
                if isinstance(body, (str, bytes)):
                    body = json.loads(body)
                events.append(json.loads(body["oslo.message"]) if "oslo.message" in body else body)
                message.ack()
        finally:
            queue.close()
    return events


def queue_exists(queue_name: str) -> bool:
    with kombu.Connection(BROKER) as connection:
        try:
            connection.default_channel.queue_declare(queue_name, passive=True)
        except connection.channel_errors:
            return False
        return True


def delete_queues(topic: str) -> None:
    """The ``<topic>.info`` and ``<topic>.error`` queues oslo.messaging declared, if any."""
    with kombu.Connection(BROKER) as connection:
        for priority in ("info", "error"):
            try:
                connection.channel().queue_delete(f"{topic}.{priority}")
            except connection.channel_errors:
                pass
