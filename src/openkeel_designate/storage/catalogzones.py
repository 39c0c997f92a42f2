"""Catalog zones (RFC 9432), one per pool that declares ``catalog_zone`` in pools.yaml.

The catalog's content is never stored: it is generated when mdns is asked for it, from the pool's
live member zones.  Only its serial is stored, with a digest of the member list it stands for;
whenever the generated list differs from the digest the serial moves on (RFC 1982, time-based).
That makes every membership change — create, delete, pool move, purge — bump the serial, however
it happened, without the writers of those changes having to know catalogs exist.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from openkeel_designate.domain.serial import next_serial
from openkeel_designate.storage import zones as zone_store
from openkeel_designate.storage.models import PoolCatalogZone, Zone, utcnow
from openkeel_designate.storage.point_reads import Query

ID_PREFIX = "catalog:"


@dataclass(frozen=True, slots=True)
class Catalog:
    pool_id: str
    fqdn: str
    refresh: int
    serial: int
    members: tuple[tuple[str, str], ...]  # (zone id, zone name), sorted by id
    stored_digest: str = ""
    digest: str = ""

    @property
    def stale(self) -> bool:
        return self.digest != self.stored_digest or not self.serial

    @property
    def zone_id(self) -> str:
        """The id mdns knows the catalog by (and ZONE-scope TSIG keys point at)."""
        return ID_PREFIX + self.pool_id


def _fqdn(name: str) -> str:
    name = name.strip().lower()
    return name if name.endswith(".") else name + "."


async def write(session: AsyncSession, pool_id: str, definition: dict[str, Any] | None) -> None:
    """Store (or, with no definition, remove) the pool's ``catalog_zone`` from pools.yaml."""
    row = await session.get(PoolCatalogZone, pool_id)
    if not definition or not definition.get("catalog_zone_fqdn"):
        if row is not None:
            await session.execute(delete(PoolCatalogZone).where(PoolCatalogZone.pool_id == pool_id))
        return
    if row is None:
        row = PoolCatalogZone(pool_id=pool_id, serial=0, digest="", created_at=utcnow())
        session.add(row)
    row.fqdn = _fqdn(definition["catalog_zone_fqdn"])
    row.refresh = int(definition.get("catalog_zone_refresh") or 60)
    row.tsig_key = definition.get("catalog_zone_tsig_key") or None
    row.tsig_algorithm = definition.get("catalog_zone_tsig_algorithm") or None
    row.updated_at = utcnow()
    await session.flush()


async def definitions(session: AsyncSession) -> list[PoolCatalogZone]:
    return list((await session.execute(select(PoolCatalogZone))).scalars())


def _named_statements():  # noqa: ANN202 - prebuilt statements
    """Whether a catalog has a name (of a pool): asked by mdns of every name it does not know
    as a zone, so built once (``zonesource._read_statements``)."""
    pcz = PoolCatalogZone.__table__
    named = select(pcz.c.pool_id).where(pcz.c.fqdn == bindparam("b_fqdn")).limit(1)
    named_in_pool = (select(pcz.c.pool_id).where(pcz.c.fqdn == bindparam("b_fqdn"),
                                                 pcz.c.pool_id == bindparam("b_pool_id"))
                     .limit(1))
    return named, named_in_pool


_NAMED, _NAMED_IN_POOL = _named_statements()


def named(fqdn: str, pool_id: str | None) -> Query:
    """A point read (``Database.point_reads``) with a row when ``find`` would find a catalog."""
    if pool_id is None:
        return (_NAMED, {"b_fqdn": _fqdn(fqdn)})
    return (_NAMED_IN_POOL, {"b_fqdn": _fqdn(fqdn), "b_pool_id": pool_id})


async def find(session: AsyncSession, fqdn: str, pool_id: str | None) -> Catalog | None:
    """The catalog named ``fqdn`` (of ``pool_id`` when given) with its live members; ``stale``
    when the stored serial does not stand for these members yet (then ``bump``)."""
    query = select(PoolCatalogZone).where(PoolCatalogZone.fqdn == _fqdn(fqdn))
    if pool_id is not None:
        query = query.where(PoolCatalogZone.pool_id == pool_id)
    row = (await session.execute(query.limit(1))).scalar_one_or_none()
    if row is None:
        return None
    members = tuple((await session.execute(
        select(Zone.id, Zone.name).where(Zone.pool_id == row.pool_id,
                                         Zone.deleted == zone_store.LIVE,
                                         Zone.action != "DELETE")
        .order_by(Zone.id))).tuples())
    digest = hashlib.sha256("\n".join([row.fqdn, *(f"{i} {n}" for i, n in members)]).encode()
                            ).hexdigest()
    return Catalog(row.pool_id, row.fqdn, row.refresh, int(row.serial), members,
                   stored_digest=row.digest, digest=digest)


async def bump(session: AsyncSession, catalog: Catalog) -> int:
    """Move the serial on for the new member list; with several mdns, the first one wins and
    the others take its serial."""
    serial = next_serial(catalog.serial, int(time.time()))
    moved = await session.execute(update(PoolCatalogZone).where(
        PoolCatalogZone.pool_id == catalog.pool_id,
        PoolCatalogZone.digest == catalog.stored_digest,
        PoolCatalogZone.serial == catalog.serial).values(serial=serial, digest=catalog.digest))
    if moved.rowcount == 1:
        return serial
    return int((await session.execute(select(PoolCatalogZone.serial).where(
        PoolCatalogZone.pool_id == catalog.pool_id))).scalar_one())


async def fqdn_of(session: AsyncSession, pool_id: str) -> str | None:
    return (await session.execute(select(PoolCatalogZone.fqdn).where(
        PoolCatalogZone.pool_id == pool_id))).scalar_one_or_none()
