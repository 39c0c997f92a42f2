"""The API's HTTP listener: uvicorn (httptools) plus the connection limits it lacks.

uvicorn bounds only the idle time between two requests of a keep-alive connection
(``timeout_keep_alive``).  It waits forever for the first byte of a connection, for headers that
never end and for a body that stops, keeps a URL or header block of any size in memory, and
accepts any number of connections.  One tenant with a few sockets could hold the API for all.
Those limits are enforced here, per connection, before a request reaches the app or after it
was answered (``api/edge.py`` handles everything in between):

* ``[service:api] header_timeout``: from the connection's opening (or a keep-alive request's
  first byte) until its headers are complete; past it, 408 and close (a connection that sent
  nothing is just closed).
* ``[service:api] body_timeout``: from the end of the headers until the body is complete; past
  it, 408 and close (or a bare close once the response has started).
* ``[service:api] max_header_size``: request line plus headers; past it, 431 and close.
* ``[service:api] max_connections``: open connections; one more gets 503 and is closed.
* ``[service:api] keep_alive_timeout``: uvicorn's own idle keep-alive limit.

These answers are written by the listener itself, still in Designate's JSON error format with
an ``x-openstack-request-id``, and always with ``Connection: close``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

import orjson
import uvicorn
from oslo_config import cfg
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from openkeel_designate.api.edge import CLOSED_BY_SERVER
from openkeel_designate.api.errors import error_body
from openkeel_designate.domain.context import new_request_id

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    header_timeout: float
    body_timeout: float
    max_header_size: int
    max_connections: int

    @classmethod
    def from_conf(cls, api: Any) -> "Limits":
        return cls(header_timeout=api.header_timeout, body_timeout=api.body_timeout,
                   max_header_size=api.max_header_size, max_connections=api.max_connections)


def server_config(app: Any, host: str, port: int, conf: cfg.ConfigOpts) -> uvicorn.Config:
    """The uvicorn configuration of one API listen address."""
    api = conf["service:api"]
    # Forwarded headers only when the operator says a proxy writes them, as Designate's
    # [oslo_middleware] enable_proxy_headers_parsing (uvicorn would trust them from loopback).
    proxied = conf["oslo_middleware"].enable_proxy_headers_parsing
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                          lifespan="off", server_header=False, ws="none",
                          proxy_headers=proxied, forwarded_allow_ips="*" if proxied else None,
                          http=guarded_protocol(Limits.from_conf(api)),
                          timeout_keep_alive=api.keep_alive_timeout)


def guarded_protocol(limits: Limits) -> type["GuardedHttpProtocol"]:
    """uvicorn instantiates the protocol class itself: the limits travel as a class attribute."""
    return type("GuardedHttpProtocol", (GuardedHttpProtocol,), {"limits": limits})


class _RateLimitedLog:
    """One line per ``interval`` for an event a flood repeats, with the count since the last."""

    def __init__(self, interval: float = 10.0):
        self.interval = interval
        self.last = 0.0
        self.count = 0

    def warning(self, message: str) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.last >= self.interval:
            LOG.warning("%s (%d since the last report)", message, self.count)
            self.last, self.count = now, 0


_REFUSED_CONNECTIONS = _RateLimitedLog()


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines, a header size bound and a connection cap."""

    limits: Limits

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._in_headers = True  # waiting for (the rest of) a request's headers
        self._header_bytes = 0  # bytes received while in headers, this request
        self._refused = False  # a limit answered: the parser's further callbacks are ignored

    # -- connection ---------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(OneWritePerTurn(transport))  # type: ignore[arg-type]
        if self.limits.max_connections and len(self.connections) > self.limits.max_connections:
            _REFUSED_CONNECTIONS.warning(
                f"API connection refused: {self.limits.max_connections} connections open "
                "([service:api] max_connections)")
            self._refuse(503, "service_unavailable", "Too many connections, retry later.",
                         {"retry-after": "5"})
            return
        self._arm(self.limits.header_timeout, self._header_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._in_headers:
            self._header_bytes += len(data)
        super().data_received(data)
        if self._refused or self.transport.is_closing():
            return
        if self._in_headers and self._header_bytes > self.limits.max_header_size:
            self._header_too_large()

    def _unsupported_upgrade_warning(self) -> None:
        """No WebSocket here (``ws="none"``): an ``Upgrade`` header is ignored and the request
        answered as any other; uvicorn's two warnings per such request would only flood the log."""
        LOG.debug("%s: Upgrade header ignored", self._peer())

    def send_400_response(self, msg: str) -> None:
        """A request httptools cannot parse (also what follows a lying Content-Length)."""
        self._refuse(400, "bad_request", msg)

    # -- parser callbacks ---------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self._in_headers = True
        if self._deadline is None:  # the first request's deadline runs from the connection
            self._arm(self.limits.header_timeout, self._header_timeout)
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.limits.max_header_size:
            self._header_too_large()
            return
        self._in_headers = False
        self._header_bytes = 0
        self._arm(self.limits.body_timeout, self._body_timeout)
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused:
            return
        self._disarm()
        self._in_headers, self._header_bytes = True, 0  # what comes next is the next request
        super().on_message_complete()

    # -- limits ---------------------------------------------------------------------------------
    def _arm(self, delay: float, callback: Any) -> None:
        self._disarm()
        if delay and delay > 0:
            self._deadline = self.loop.call_later(delay, callback)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _header_too_large(self) -> None:
        LOG.info("%s: request headers above %d bytes, connection closed", self._peer(),
                 self.limits.max_header_size)
        self._refuse(431, "request_header_fields_too_large",
                     f"Request line and headers exceed {self.limits.max_header_size} bytes.")

    def _header_timeout(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._header_bytes == 0:  # an idle connection, not a request: no answer is due
            self.transport.close()
            return
        LOG.info("%s: request headers incomplete after %s s, connection closed", self._peer(),
                 self.limits.header_timeout)
        self._refuse(408, "request_timeout", "Request headers not received in time.")

    def _body_timeout(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        scope: dict = cycle.scope if cycle is not None else {}  # type: ignore[assignment]
        state = scope.setdefault("state", {})
        state[CLOSED_BY_SERVER] = "body timeout"
        LOG.info("%s: %s %s body incomplete after %s s, connection closed", self._peer(),
                 scope.get("method"), scope.get("path"), self.limits.body_timeout)
        if cycle is None or cycle.response_started:
            self._refused = True
            self.transport.close()
            return
        # The route may be waiting in receive(): it sees a disconnect, and writes nothing more.
        cycle.disconnected = True
        cycle.message_event.set()
        self._refuse(408, "request_timeout", "Request body not received in time.",
                     request_id=state.get("request_id"))

    def _refuse(self, status: int, type_: str, message: str,
                headers: dict[str, str] | None = None, request_id: str | None = None) -> None:
        """Answer ``status`` in Designate's JSON format with ``Connection: close``, and close."""
        self._refused = True
        self._disarm()
        req_id = request_id or new_request_id()
        body = orjson.dumps(error_body(status, type_, message, None, req_id))
        lines = [STATUS_LINE[status],
                 b"content-type: application/json\r\n",
                 b"content-length: %d\r\n" % len(body),
                 b"x-openstack-request-id: " + req_id.encode() + b"\r\n",
                 b"connection: close\r\n"]
        lines += [f"{name}: {value}\r\n".encode() for name, value in (headers or {}).items()]
        lines += [b"\r\n", body]
        if not self.transport.is_closing():
            self.transport.write(b"".join(lines))
            self.transport.close()

    def _peer(self) -> str:
        return "%s:%d" % self.client if self.client else "client"


class OneWritePerTurn:
    """A connection's transport whose writes of one turn of the event loop go out as one.

    uvicorn writes a response's status line and headers, then its body: two ``send`` calls on
    a socket, two TCP segments. On loopback and in VMs a send also costs the receiver's side of
    TCP, and the second was about 0.4 ms of the API's loop per request (py-spy, 150 zone
    POSTs: 11% of the serving process's samples in uvicorn's body write). Both writes happen in
    the same turn of the loop (nothing is awaited between them), so they are joined and sent
    at its end; a close sends what is pending first. Everything else is the transport's own.
    """

    __slots__ = ("_transport", "_pending")

    def __init__(self, transport: asyncio.Transport):
        self._transport = transport
        self._pending: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if self._pending is None:
            self._pending = [data]
            asyncio.get_running_loop().call_soon(self._flush)
        else:
            self._pending.append(data)

    def writelines(self, chunks: Any) -> None:
        for data in chunks:
            self.write(data)

    def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def get_write_buffer_size(self) -> int:
        waiting = sum(map(len, self._pending)) if self._pending else 0
        return self._transport.get_write_buffer_size() + waiting

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def write_eof(self) -> None:
        self._flush()
        self._transport.write_eof()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
