"""The API's transport wrapper: a response's header and body writes leave as one send."""

from __future__ import annotations

import asyncio
from typing import Any

from openkeel_designate.api.listener import OneWritePerTurn


class RecordingTransport:
    """What reached the socket, and in which order the connection was closed."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after close"
        self.sent.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 4242)}.get(name, default)


async def turn() -> None:
    await asyncio.sleep(0)


async def test_writes_of_one_turn_are_sent_together_in_order() -> None:
    raw = RecordingTransport()
    transport = OneWritePerTurn(raw)  # type: ignore[arg-type]
    transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
    transport.write(b'{"id": 1}')
    assert raw.sent == []  # nothing yet: the turn is not over
    assert transport.get_write_buffer_size() == len(b"HTTP/1.1 200 OK\r\n\r\n") + 9
    await turn()
    assert raw.sent == [b'HTTP/1.1 200 OK\r\n\r\n{"id": 1}']
    transport.write(b"next response")
    await turn()
    assert raw.sent[1:] == [b"next response"]


async def test_close_sends_what_is_pending_first() -> None:
    raw = RecordingTransport()
    transport = OneWritePerTurn(raw)  # type: ignore[arg-type]
    transport.write(b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n")
    transport.close()
    assert raw.sent == [b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n"]
    assert raw.closed
    transport.write(b"late")  # after close (the peer went away): dropped, never raised
    await turn()
    assert raw.sent == [b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n"]


async def test_everything_else_is_the_transports_own() -> None:
    raw = RecordingTransport()
    transport = OneWritePerTurn(raw)  # type: ignore[arg-type]
    assert transport.get_extra_info("peername") == ("127.0.0.1", 4242)
    assert transport.is_closing() is False
