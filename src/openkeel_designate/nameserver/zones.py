"""The zones the built-in nameserver serves: in memory for answering, on disk to survive restarts.

A zone is replaced as a whole (a finished transfer swaps the object), so a query never sees half a
transfer.  Each zone is also written to ``<data_dir>/<zone name>zone`` (e.g. ``example.org.zone``)
through a temporary file and an atomic rename; a later version that changed a few names (an
IXFR's) is appended to the file's journal instead (``<file>.jnl``, ``journal``), until the
journal outgrows the file.  Names with other characters are spelled in hex, and names too long
for a file name (a zone name may take 253 characters, a file name 255 bytes with the ``.tmp`` or
``.jnl`` suffix included) by a SHA-256 digest: the file's ``$ORIGIN`` names the zone.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import dns.name
import dns.node
import dns.rdatatype
import dns.rdtypes.ANY.SOA
import dns.zone

from openkeel_designate import slices
from openkeel_designate.nameserver import journal
from openkeel_designate.nameserver.dnssec import Chain, chain_of, hidden_names, is_signed

log = logging.getLogger(__name__)

_SAFE_FILE_NAME = re.compile(r"[a-z0-9_-][a-z0-9_.-]*\.")
_MAX_FILE_NAME = 255  # bytes, on Linux file systems
_TEMPORARY = ".tmp"


@dataclass(frozen=True, slots=True)
class ServedZone:
    """A zone plus every name that exists in it, empty non-terminals included (for NODATA vs
    NXDOMAIN and wildcard closest-encloser decisions), and for a signed zone its denial chain
    (NSEC/NSEC3 index) and the NSEC3 owners, which are not names of the zone for lookups."""

    zone: dns.zone.Zone
    names: frozenset[dns.name.Name]
    chain: Chain | None = None
    hidden: frozenset[dns.name.Name] = frozenset()

    @classmethod
    def of(cls, zone: dns.zone.Zone) -> ServedZone:
        """Built at once (start-up: nothing to share the loop with yet)."""
        return slices.run(cls.building(zone))

    @classmethod
    async def build(cls, zone: dns.zone.Zone) -> ServedZone:
        """Built in slices of the event loop, which keeps answering meanwhile (for 100,000
        names the indexes take about a second of CPU)."""
        return await slices.drive(cls.building(zone))

    @classmethod
    def building(cls, zone: dns.zone.Zone) -> slices.Work[ServedZone]:
        origin = zone.origin
        chain = yield from chain_of(zone)
        hidden = yield from hidden_names(zone, chain)
        names: set[dns.name.Name] = set()
        for name in zone.nodes:
            yield
            if name in hidden:
                continue
            while name not in names and name.is_subdomain(origin):
                names.add(name)
                if name == origin:
                    break
                name = name.parent()
        return cls(zone, frozenset(names), chain, hidden)

    @classmethod
    def extended(cls, before: ServedZone, zone: dns.zone.Zone,
                 changed: list[dns.name.Name]) -> ServedZone:
        """``zone`` served, when no name of ``before`` is gone from it and neither is signed:
        its names are ``before``'s plus the changed ones and their parents, the same set the
        walk of ``building`` makes, without walking every name (for 10,000 names the walk was
        a fifth of a change's CPU). The set is copied with its stored hashes; only the changed
        names are hashed (``dns.name.Name`` hashes its labels on every lookup)."""
        origin = zone.origin
        names = set(before.names)
        for name in changed:
            while name not in names and name.is_subdomain(origin):
                names.add(name)
                if name == origin:
                    break
                name = name.parent()
        return cls(zone, frozenset(names))

    def node(self, name: dns.name.Name) -> dns.node.Node | None:
        """The node owning ``name`` for answering (NSEC3 owners excluded)."""
        if name in self.hidden:
            return None
        return self.zone.get_node(name)

    @property
    def origin(self) -> dns.name.Name:
        return self.zone.origin

    @property
    def soa(self) -> dns.rdtypes.ANY.SOA.SOA:
        return self.zone.get_rdataset(self.origin, dns.rdatatype.SOA)[0]

    @property
    def serial(self) -> int:
        return self.soa.serial


class ZoneStore:
    """Name → served zone, with optional persistence under ``data_dir``."""

    def __init__(self, data_dir: str | None):
        self.data_dir = Path(data_dir) if data_dir else None
        self._zones: dict[dns.name.Name, ServedZone] = {}
        # Called with the zone's name (text, absolute) each time what is served of a zone
        # changes: a new version swapped in, or the zone dropped. In one process with the
        # worker, its SOA poll of this server goes at once instead of at its next back-off.
        self.changed_listeners: list[Callable[[str], None]] = []
        # zone → bytes of its file and of its journal, for zones whose file and journal hold
        # exactly the version served (only those may be journalled further)
        self._on_disk: dict[dns.name.Name, _OnDisk] = {}

    def __contains__(self, name: dns.name.Name) -> bool:
        return name in self._zones

    def names(self) -> list[dns.name.Name]:
        return list(self._zones)

    def get(self, name: dns.name.Name) -> ServedZone | None:
        return self._zones.get(name)

    def find(self, qname: dns.name.Name) -> ServedZone | None:
        """The zone that is the closest enclosing zone of ``qname``."""
        name = qname
        while True:
            served = self._zones.get(name)
            if served is not None or name == dns.name.root:
                return served
            name = name.parent()

    async def put(self, zone: dns.zone.Zone) -> ServedZone:
        """Serve ``zone`` from now on, then persist it.

        Its indexes are built (in slices) before the one assignment that swaps it in, so a
        query sees the old version or the new one, whole.  ``zone`` must be a new object, never
        the one being served, changed in place (``dnswire.inbound`` builds a new one)."""
        before = self._zones.get(zone.origin)
        # What changed since the version served, when it is a small part of the zone (an
        # IXFR's version shares the rest): then neither the index nor the file is redone whole.
        found = None if before is None else await slices.drive(
            journal.changes(before.zone, zone))
        if found is not None and not found.gone and before is not None \
                and before.chain is None and not is_signed(zone):
            served = ServedZone.extended(before, zone, [name for name, _ in found.nodes])
        else:
            served = await ServedZone.build(zone)
        self._zones[zone.origin] = served
        self._changed(zone.origin)
        if self.data_dir is not None:
            await self._persist(zone, found)
        return served

    async def _persist(self, zone: dns.zone.Zone, found: journal.Changes | None) -> None:
        """The new version on disk: ``found`` (its changes from the version the file and
        journal hold) appended to the journal while the journal is small, else the file
        written whole."""
        origin = zone.origin
        on_disk = self._on_disk.pop(origin, None)
        if found is not None and on_disk is not None and on_disk.journal <= max(
                journal.MIN_FOLD_BYTES, on_disk.file // 2):
            text = journal.entry(zone, found)
            if not on_disk.journal:  # the first entry after the file: the journal starts
                text = journal.header(on_disk.base) + text
            await asyncio.to_thread(self._append, origin, text)
            self._on_disk[origin] = replace(on_disk, journal=on_disk.journal + len(text))
            return
        text = await slices.drive(_zone_text(zone))
        await asyncio.to_thread(self._write, origin, text)
        self._on_disk[origin] = _OnDisk(sum(map(len, text)), 0, journal.serial(zone))

    async def drop(self, name: dns.name.Name) -> bool:
        """Stop serving ``name`` and forget it on disk; whether it was served."""
        existed = self._zones.pop(name, None) is not None
        self._on_disk.pop(name, None)
        if existed:
            self._changed(name)
        if self.data_dir is not None:
            path = self._path(name)
            for gone in (path, _journal_path(path)):
                with contextlib.suppress(FileNotFoundError):
                    await asyncio.to_thread(os.unlink, gone)
        return existed

    def _changed(self, name: dns.name.Name) -> None:
        text = name.to_text()
        for listener in self.changed_listeners:
            try:
                listener(text)
            except Exception:  # a listener's failure never fails serving the zone
                log.exception("listener of zone changes failed for %s", text)

    def load(self) -> list[dns.name.Name]:
        """Read every persisted zone (at start); unreadable files are logged and skipped."""
        if self.data_dir is None or not self.data_dir.is_dir():
            return []
        loaded = []
        for path in sorted(self.data_dir.glob("*zone")):
            try:
                zone = dns.zone.from_file(str(path), origin=None, relativize=False)
            except Exception as exc:
                log.warning("cannot load persisted zone %s: %s", path, exc)
                continue
            base = journal.serial(zone)
            whole = self._replay(zone, path)
            self._zones[zone.origin] = ServedZone.of(zone)
            if whole:  # else the next version is written whole (and the journal restarted)
                self._on_disk[zone.origin] = _OnDisk(
                    path.stat().st_size, _size(_journal_path(path)), base)
            loaded.append(zone.origin)
        return loaded

    @staticmethod
    def _replay(zone: dns.zone.Zone, path: Path) -> bool:
        """The zone's journal applied to its file's version; whether it applied whole."""
        try:
            text = _journal_path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return True
        try:
            whole, applied = journal.replay(zone, text)
        except Exception as exc:  # a damaged entry: the zone as of the entry before it (each
            # entry is parsed whole before it is applied), re-checked with a master at start
            log.warning("journal of %s not applied whole: %s", path, exc)
            return False
        if not whole:
            log.warning("journal of %s applied up to entry %d only", path, applied)
        return whole

    def _path(self, name: dns.name.Name) -> Path:
        assert self.data_dir is not None
        text = name.to_text().lower()
        if not _SAFE_FILE_NAME.fullmatch(text):
            text = "_" + name.to_wire().hex() + "."
        if len(text) + len("zone" + _TEMPORARY) > _MAX_FILE_NAME:
            text = "_" + hashlib.sha256(name.canonicalize().to_wire()).hexdigest() + "."
        return self.data_dir / f"{text}zone"

    def _write(self, origin: dns.name.Name, text: list[str]) -> None:
        """In a thread: only I/O here (rendering the text in a thread would hold the GIL
        against the loop for as long as it computes)."""
        assert self.data_dir is not None
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self._path(origin)
        temporary = path.with_name(path.name + _TEMPORARY)
        with open(temporary, "w", encoding="utf-8") as output:
            output.writelines(text)
        os.replace(temporary, path)
        # The journal followed the file replaced (a crash before this leaves one whose base is
        # another serial: not applied, and the next version written whole).
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_journal_path(path))

    def _append(self, origin: dns.name.Name, text: str) -> None:
        """In a thread: one entry at the end of the zone's journal."""
        with open(_journal_path(self._path(origin)), "a", encoding="utf-8") as output:
            output.write(text)


@dataclass(frozen=True)
class _OnDisk:
    file: int  # bytes of the zone file
    journal: int  # bytes of its journal (0: none yet)
    base: int  # the serial of the zone file


def _journal_path(path: Path) -> Path:
    return path.with_name(path.name + journal.SUFFIX)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _zone_text(zone: dns.zone.Zone) -> slices.Work[list[str]]:
    """The zone as master-file lines (absolute names, ``$ORIGIN`` first), one node a step."""
    lines = [f"$ORIGIN {zone.origin.to_text()}\n"]
    for name, node in zone.nodes.items():
        yield
        lines.append(node.to_text(name, origin=zone.origin, relativize=False) + "\n")
    return lines
