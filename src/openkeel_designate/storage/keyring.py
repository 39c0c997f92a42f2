"""mdns's TSIG keyring backed by the ``tsigkeys`` table (and catalog-zone keys of pools.yaml).

The table is small and changes rarely, so it is read whole: at most every ``max_age`` seconds
while queries arrive (checked on the request path, so an idle mdns reads nothing), and at once
(rate-limited) when a message names a key not in memory — a key created through the API is usable
immediately, and a flood of unknown key names costs at most one read per ``min_interval``.
"""

from __future__ import annotations

import asyncio
import logging
import time

import dns.name
from sqlalchemy import select

from openkeel_designate.dnswire.tsig import KeyEntry, make_entry
from openkeel_designate.domain import errors
from openkeel_designate.storage import catalogzones
from openkeel_designate.storage.database import Database
from openkeel_designate.storage.models import PoolCatalogZone, TsigKey

log = logging.getLogger(__name__)


class SqlKeyring:
    def __init__(self, db: Database, *, max_age: float = 5.0, min_interval: float = 0.25):
        self.db = db
        self.max_age = max_age
        self.min_interval = min_interval
        self._entries: dict[dns.name.Name, KeyEntry] = {}
        self._loaded_at = float("-inf")
        self._lock = asyncio.Lock()

    def lookup(self, name: dns.name.Name) -> KeyEntry | None:
        return self._entries.get(name)

    async def refresh(self, force: bool = False) -> None:
        age = time.monotonic() - self._loaded_at
        if age < (self.min_interval if force else self.max_age):
            return
        async with self._lock:
            if time.monotonic() - self._loaded_at < self.min_interval:
                return
            try:
                self._entries = await self._load()
            except errors.ServiceUnavailable as exc:
                log.warning("reading TSIG keys failed (%s); keeping %d known keys", exc,
                            len(self._entries))
            except Exception:
                log.exception("reading TSIG keys failed; keeping %d known keys",
                              len(self._entries))
            self._loaded_at = time.monotonic()

    async def _load(self) -> dict[dns.name.Name, KeyEntry]:
        async with self.db.read() as session:
            keys = (await session.execute(select(TsigKey.name, TsigKey.algorithm, TsigKey.secret,
                                                 TsigKey.scope, TsigKey.resource_id))).all()
            catalogs = (await session.execute(select(
                PoolCatalogZone.pool_id, PoolCatalogZone.fqdn, PoolCatalogZone.tsig_key,
                PoolCatalogZone.tsig_algorithm).where(PoolCatalogZone.tsig_key.is_not(None)))).all()
        entries: dict[dns.name.Name, KeyEntry] = {}
        for pool_id, fqdn, secret, algorithm in catalogs:
            # The catalog key is named after the catalog zone and opens only that zone.
            entry = make_entry(fqdn, algorithm or "hmac-sha256", secret, "ZONE",
                               catalogzones.ID_PREFIX + pool_id)
            if entry is not None:
                entries[entry.key.name] = entry
        for name, algorithm, secret, scope, resource_id in keys:
            entry = make_entry(name, algorithm, secret, scope, resource_id)
            if entry is not None:
                entries[entry.key.name] = entry
        return entries
