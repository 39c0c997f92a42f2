"""The pool's connections: checked for life after they sat idle, and a few kept at hand.

Two things about the connections of SQLAlchemy's pool that the hot paths rely on:

* ``ping_when_idle``: a connection that sat idle in the pool is checked before it is handed
  out; one handed back moments ago is not.
* ``KeptConnections``: the point reads, single writes and plain transactions run on the driver
  connection itself (``asyncpg_statements``, ``plain_session``), so all they need of the pool
  is a connection. Taking one out and handing it back cost nearly as much as a statement run on
  it: on PostgreSQL 60-70 µs of CPU and as much wall clock each time (a greenlet switch to the
  pool's synchronous code, its events, the reset on return), against 75-80 µs of CPU for
  asyncpg's round trip of ``SELECT 1`` on this 2-core host (bench/README.md, "Issue 13,
  session of 2026-12-07 (06:16-)"). A recordset POST takes two, a GET one, a worker's claim
  several. So a few connections stay checked out between uses, in a last-in first-out list: a
  stream of requests reuses the one it just gave back for a list pop and append.

A kept connection is still the pool's: it counts in its size, and goes back to it when
``keep`` are idle already, when it sat idle for ``PING_AFTER_IDLE_SECONDS`` (its next
checkout from the pool then pings it, as if it had idled there), when it is thrown away, and
when the database is disposed. A connection found lost hands the other idle ones back too,
thrown away: they went with the same server.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine

# A pooled connection unused for longer than this is checked before it is handed out.
PING_AFTER_IDLE_SECONDS = 1.0
# ``ConnectionRecord.info`` key: when the connection last went idle (monotonic seconds).
_IDLE_SINCE = "returned_at"


def ping_when_idle(engine: AsyncEngine) -> None:
    """SQLAlchemy's ``pool_pre_ping``, but only for connections that sat idle.

    A ping on every checkout cost asyncpg three round trips (BEGIN, an empty statement,
    ROLLBACK) per session, several per request and per push (bench/README.md, "burst"). A
    connection handed back moments ago is as alive as a ping would say; one that sat in the
    pool for a second may belong to a database that restarted meanwhile. A failed ping makes
    the pool throw the connection away and open another (``DisconnectionError``); a connection
    that dies in use fails its statement, which answers 503 and invalidates the pool.
    """
    pool_events = engine.sync_engine.pool

    @event.listens_for(pool_events, "checkin")
    def returned(_dbapi_connection, record) -> None:  # noqa: ANN001 - pool objects
        record.info.setdefault(_IDLE_SINCE, time.monotonic())

    @event.listens_for(pool_events, "checkout")
    def handed_out(dbapi_connection, record, _proxy) -> None:  # noqa: ANN001 - pool objects
        idle_since = record.info.pop(_IDLE_SINCE, None)
        if idle_since is None or time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
            return  # new (just opened) or warm
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:  # noqa: BLE001 - any failure means "do not use it"
            raise DisconnectionError(f"idle connection failed its ping: {exc!r}") from exc
        if alive is False:
            raise DisconnectionError("idle connection failed its ping")


class KeptConnections:
    """Up to ``keep`` pooled connections held between uses (the module says why)."""

    def __init__(self, engine: AsyncEngine, keep: int = 8):
        self.engine = engine
        self.keep = keep
        self._idle: list[tuple[Any, float]] = []  # (proxied connection, idle since)
        self._closed = False

    @property
    def idle(self) -> int:
        """Connections kept and not in use (checked out, as far as the pool can tell)."""
        return len(self._idle)

    async def take(self) -> Any:
        """A pooled connection (SQLAlchemy's ``PoolProxiedConnection``): the last one kept,
        else one from the pool. The caller gives it back (``give_back``) when done."""
        now = time.monotonic()
        while self._idle:
            proxied, since = self._idle.pop()
            if now - since < PING_AFTER_IDLE_SECONDS:
                return proxied
            _to_pool(proxied, since)  # the pool pings it before it hands it out again
        return await self.engine.raw_connection()

    def give_back(self, proxied: Any) -> None:
        """Keep ``proxied`` for the next ``take``, or check it in when enough are kept or the
        database is being disposed (``close``: one in use then, given back after, would
        otherwise stay checked out until the garbage collector terminated it). One the
        caller invalidated is checked in, and so are the idle kept ones, thrown away."""
        if not proxied.is_valid:
            proxied.close()
            lost, self._idle = self._idle, []
            for other, _ in lost:
                other.invalidate()
                other.close()
        elif len(self._idle) < self.keep and not self._closed:
            self._idle.append((proxied, time.monotonic()))
        else:
            proxied.close()

    def close(self) -> None:
        """Hand every idle kept connection back to the pool (before the engine is disposed),
        and keep none from now on."""
        self._closed = True
        idle, self._idle = self._idle, []
        for proxied, since in idle:
            _to_pool(proxied, since)


def _to_pool(proxied: Any, idle_since: float) -> None:
    """Check a kept connection in, idle since ``idle_since`` as far as ``ping_when_idle`` is
    concerned (the pool's checkin keeps a time already set)."""
    proxied.info[_IDLE_SINCE] = idle_since
    proxied.close()
