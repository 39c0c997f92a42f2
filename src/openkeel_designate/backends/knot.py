"""Backend for target type ``knot``: Knot DNS, configured at run time through ``knotc``.

Designate has no Knot driver; this one follows the shape of the bind9 driver.  Each create or
delete is one configuration transaction (``conf-begin`` … ``conf-commit``, ``conf-abort`` on any
failure), so knotd never sees half a zone.  The zone is a secondary whose ``master`` is a remote
pointing at our mdns; Knot accepts the worker's NOTIFY only through an ACL with ``action:
notify``, which the zone gets too.  Zones get ``dnssec-signing: off``: a zone signed by mdns
is served with the signatures it was transferred with, never re-signed by Knot.

Knot allows one open configuration transaction per server, whoever opened it: transactions of
this process are serialised by a lock per control socket, and "too many transactions" (another
process, or an operator, is editing) is a transient error the worker retries.

Target options:
  ``knotc_bin_path`` (``knotc``), ``socket`` (control socket, ``/run/knot/knot.sock``),
  ``knotc_timeout`` (seconds, default 10),
  ``remote``: id of the remote the zones pull from; created with the target's masters when the
  server does not have it (default ``designate-<hash of the masters>``),
  ``acl``: id of the ACL allowing NOTIFY; created from the masters' addresses when missing
  (default ``designate-notify-<hash>``; name an existing one when workers run elsewhere than
  mdns).
knotc runs as a plain child process (no shell, no sudo): the user needs write access to the
control socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import weakref

from openkeel_designate.backends.base import (
    Backend,
    BackendError,
    PermanentBackendError,
    Target,
    TransientBackendError,
    ZoneRef,
)

DEFAULT_SOCKET = "/run/knot/knot.sock"
DEFAULT_TIMEOUT = 10.0
# knotc's words for "try again later": the server is unreachable or busy with a transaction.
_TRANSIENT = ("failed to connect", "connection refused", "timed out",
              "too many transactions", "operation not permitted", "resource temporarily")

_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = (
    weakref.WeakKeyDictionary())


class KnotcError(Exception):
    """knotc exited non-zero; ``output`` is what it printed."""

    def __init__(self, args: tuple[str, ...], output: str):
        super().__init__(f"knotc {' '.join(args)}: {output.strip() or 'failed'}")
        self.output = output


def _lock_for(socket: str) -> asyncio.Lock:
    locks = _LOCKS.setdefault(asyncio.get_running_loop(), {})
    return locks.setdefault(socket, asyncio.Lock())


class KnotBackend(Backend):
    """Secondary zones on Knot DNS through its control socket."""

    def __init__(self, target: Target):
        super().__init__(target)
        options = target.options
        self.knotc = str(options.get("knotc_bin_path") or "knotc")
        self.socket = str(options.get("socket") or DEFAULT_SOCKET)
        self.timeout = float(options.get("knotc_timeout") or DEFAULT_TIMEOUT)
        digest = hashlib.sha1(repr(sorted(target.masters)).encode()).hexdigest()[:10]
        self.remote = str(options.get("remote") or f"designate-{digest}")
        self.acl = str(options.get("acl") or f"designate-notify-{digest}")

    async def create_zone(self, zone: ZoneRef) -> None:
        async with self._transaction():
            await self._ensure(f"remote[{self.remote}]",
                               address=[f"{h}@{p}" for h, p in self.target.masters])
            await self._ensure(f"acl[{self.acl}]",
                               address=sorted({h for h, _ in self.target.masters}),
                               action=["notify"])
            item = f"zone[{zone.name}]"
            if not await self._conf_get(item):
                await self._knotc("conf-set", item)
            # dnssec-signing off: the zone arrives signed by mdns (or unsigned on purpose);
            # Knot must serve it as transferred, even under a template that signs.
            for key, value in (("master", self.remote), ("acl", self.acl),
                               ("dnssec-signing", "off")):
                await self._knotc_tolerating("not exists", "conf-unset", f"{item}.{key}")
                await self._knotc("conf-set", f"{item}.{key}", value)

    async def update_zone(self, zone: ZoneRef) -> None:
        """The NOTIFY does the work; only a zone the server lost is created again."""
        try:
            await self._knotc("conf-read", f"zone[{zone.name}]")
        except KnotcError as exc:
            if "invalid identifier" not in exc.output:
                raise self._classify(exc) from exc
            await self.create_zone(zone)

    async def delete_zone(self, zone: ZoneRef, hard_delete: bool = False) -> None:
        """Hard delete purges zone file, journal and timers first: Knot cannot purge the
        zone file of a zone it no longer has in its configuration."""
        try:
            if hard_delete:
                await self._knotc_tolerating("no such zone", "-f", "zone-purge", zone.name)
            async with self._transaction():
                await self._knotc_tolerating("invalid identifier", "conf-unset",
                                             f"zone[{zone.name}]")
        except KnotcError as exc:
            raise self._classify(exc) from exc

    # --- transactions ---------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _transaction(self):
        """conf-begin … conf-commit, aborted on any failure; knotc errors become backend errors."""
        async with _lock_for(self.socket):
            try:
                await self._knotc("conf-begin")
            except KnotcError as exc:
                raise self._classify(exc) from exc
            try:
                yield
                await self._knotc("conf-commit")
            except BaseException as exc:
                with contextlib.suppress(KnotcError, BackendError):
                    await self._knotc("conf-abort")
                if isinstance(exc, KnotcError):
                    raise self._classify(exc) from exc
                raise

    async def _ensure(self, item: str, **values: list[str]) -> None:
        """Create ``item`` with these values unless the server already has it (an operator's
        own remote or ACL is used as it is)."""
        if await self._conf_get(item):
            return
        await self._knotc("conf-set", item)
        for key, value in values.items():
            await self._knotc("conf-set", f"{item}.{key}", *value)

    async def _conf_get(self, item: str) -> bool:
        """True when the item exists (and has a value) in the open transaction."""
        try:
            return bool((await self._knotc("conf-get", item)).strip())
        except KnotcError as exc:
            if "invalid identifier" in exc.output or "not exists" in exc.output:
                return False
            raise

    # --- running knotc --------------------------------------------------------------------
    async def _knotc_tolerating(self, harmless: str, *args: str) -> None:
        try:
            await self._knotc(*args)
        except KnotcError as exc:
            if harmless not in exc.output:
                raise

    async def _knotc(self, *args: str) -> str:
        command = [self.knotc, "-s", self.socket, "-t", str(max(1, int(self.timeout))), *args]
        try:
            proc = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT)
        except OSError as exc:
            raise PermanentBackendError(f"cannot run {self.knotc}: {exc}") from exc
        try:
            output, _ = await asyncio.wait_for(proc.communicate(), self.timeout + 5)
        except asyncio.TimeoutError as exc:
            raise TransientBackendError(f"knotc {args[0]} timed out") from exc
        finally:
            if proc.returncode is None:  # timed out or cancelled: leave no knotc behind
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        text = output.decode(errors="replace")
        if proc.returncode != 0:
            raise KnotcError(args, text)
        return text

    @staticmethod
    def _classify(exc: KnotcError) -> TransientBackendError | PermanentBackendError:
        lowered = exc.output.lower()
        if any(word in lowered for word in _TRANSIENT):
            return TransientBackendError(str(exc))
        return PermanentBackendError(str(exc))


BACKEND = KnotBackend
