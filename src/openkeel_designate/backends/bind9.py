"""Backend for target type ``bind9``: BIND 9 driven by ``rndc`` (addzone / modzone / delzone).

The zone becomes a secondary (``type slave``) of our mdns; BIND pulls it by AXFR on creation and
after each NOTIFY.  The commands and their text are Designate's, so BIND servers already set up
for Designate (``allow-new-zones yes``, an rndc key) work unchanged.

rndc runs as a plain child process (``asyncio.create_subprocess_exec``, argument list, no shell),
not through rootwrap/sudo as Designate does: this process needs only to read the rndc key file,
so give its user read access to that file (or a copy) instead of root rights.

Target options: ``rndc_host`` (127.0.0.1), ``rndc_port`` (953), ``rndc_bin_path`` (``rndc``),
``rndc_config_file`` (``-c``), ``rndc_key_file`` (``-k``), ``view``, ``clean_zonefile`` (false:
``delzone -clean`` only on hard delete), ``rndc_timeout`` (seconds; 0 or unset: none).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

from openkeel_designate.backends.base import (
    Backend,
    PermanentBackendError,
    Target,
    TransientBackendError,
    ZoneRef,
)

LOG = logging.getLogger(__name__)

# rndc's words for "the server could not be reached": worth retrying, unlike a refused command.
_UNREACHABLE = ("connect failed", "connection refused", "timed out", "timeout",
                "shutting down", "network unreachable", "host unreachable")


class RndcError(Exception):
    """rndc exited non-zero; ``output`` is what it printed."""

    def __init__(self, command: str, output: str):
        super().__init__(f"rndc {command}: {output.strip() or 'failed'}")
        self.output = output


def _flag(value: object) -> bool:
    """Options come from YAML or the database as bools or strings."""
    return str(value).strip().lower() in ("1", "true", "yes", "on")


class Bind9Backend(Backend):
    """Secondary zones on BIND 9 through its rndc control channel."""

    def __init__(self, target: Target):
        super().__init__(target)
        options = target.options
        self.view = str(options.get("view") or "")
        self.clean_zonefile = _flag(options.get("clean_zonefile", False))
        self.timeout = float(options.get("rndc_timeout") or 0) or None
        self.base_command = [
            str(options.get("rndc_bin_path") or "rndc"),
            "-s", str(options.get("rndc_host") or "127.0.0.1"),
            "-p", str(options.get("rndc_port") or 953),
        ]
        if options.get("rndc_config_file"):
            self.base_command += ["-c", str(options["rndc_config_file"])]
        if options.get("rndc_key_file"):
            self.base_command += ["-k", str(options["rndc_key_file"])]

    async def create_zone(self, zone: ZoneRef) -> None:
        try:
            await self._rndc("addzone", self._zone_spec(zone))
        except RndcError as exc:
            if "already exists" not in exc.output:
                raise self._classify(exc) from exc

    async def update_zone(self, zone: ZoneRef) -> None:
        """Re-create a zone the server lost; otherwise refresh its masters (best effort)."""
        try:
            await self._rndc("showzone", self._zone_and_view(zone))
        except RndcError as exc:
            if "not found" in exc.output:
                await self.create_zone(zone)
                return
            raise self._classify(exc) from exc
        try:
            await self._rndc("modzone", self._zone_spec(zone))
        except RndcError as exc:
            LOG.warning("modzone %s ignored: %s", zone.name, exc)

    async def delete_zone(self, zone: ZoneRef, hard_delete: bool = False) -> None:
        clean = ["-clean"] if hard_delete or self.clean_zonefile else []
        try:
            await self._rndc("delzone", *clean, self._zone_and_view(zone))
        except RndcError as exc:
            if "not found" not in exc.output:
                raise self._classify(exc) from exc

    # --- command text ---------------------------------------------------------------------
    def _zone_and_view(self, zone: ZoneRef) -> str:
        name = zone.name.rstrip(".")
        return f"{name} in {self.view}" if self.view else name

    def _zone_spec(self, zone: ZoneRef) -> str:
        """The addzone/modzone argument; masters shuffled to spread transfers, as Designate."""
        masters = [f"{host} port {port}" for host, port in self.target.masters]
        random.shuffle(masters)
        return (f"{self._zone_and_view(zone)} {{ type slave; masters {{ {'; '.join(masters)};}}; "
                f'file "slave.{zone.name}{zone.id}"; }};')

    # --- running rndc ---------------------------------------------------------------------
    async def _rndc(self, *args: str) -> str:
        command = [*self.base_command, *args]
        try:
            proc = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT)
        except OSError as exc:
            raise PermanentBackendError(f"cannot run {command[0]}: {exc}") from exc
        try:
            output, _ = await asyncio.wait_for(proc.communicate(), self.timeout)
        except asyncio.TimeoutError as exc:
            raise TransientBackendError(f"rndc {args[0]} timed out after {self.timeout} s") from exc
        finally:
            if proc.returncode is None:  # timed out or cancelled: leave no rndc behind
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        text = output.decode(errors="replace")
        if proc.returncode != 0:
            raise RndcError(args[0], text)
        return text

    @staticmethod
    def _classify(exc: RndcError) -> TransientBackendError | PermanentBackendError:
        lowered = exc.output.lower()
        if any(word in lowered for word in _UNREACHABLE):
            return TransientBackendError(str(exc))
        return PermanentBackendError(str(exc))


BACKEND = Bind9Backend
