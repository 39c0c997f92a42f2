"""The SQL schema: one table per concept of the domain, as SQLAlchemy 2 typed models.

The alembic migrations under ``migrations/`` are the schema of record; these models must match
them (a test compares both).  Names follow Designate's tables so operators recognise them.

Two columns on ``zones`` carry the work queue (DESIGN.md decision 2): ``status = PENDING`` plus
``change_seq`` (bumped by every write) say there is work; ``lease_owner`` / ``lease_expires_at``
say a worker holds it.  A write and its pending state commit in one transaction, so no work is
ever lost between the API and the worker.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    BigInteger,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    event,
    select,
    true,
)
from sqlalchemy.dialects import mysql
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from openkeel_designate.domain import names

# Microsecond timestamps everywhere (MariaDB's DATETIME drops them by default, which breaks
# Designate's created_at ordering and rendering).
Timestamp = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


def new_id() -> str:
    return str(uuid.uuid4())


def utcnow() -> datetime:
    """Naive UTC, as Designate stores and renders timestamps."""
    return datetime.utcnow()


class Base(DeclarativeBase):
    pass


class _Timestamps:
    created_at: Mapped[datetime | None] = mapped_column(Timestamp, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(Timestamp, onupdate=utcnow)


# --- pools -------------------------------------------------------------------------------------
class Pool(_Timestamps, Base):
    __tablename__ = "pools"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    name: Mapped[str] = mapped_column(String(50), unique=True)
    description: Mapped[str | None] = mapped_column(String(160))
    tenant_id: Mapped[str | None] = mapped_column(String(36))
    provisioner: Mapped[str | None] = mapped_column(String(160))


class PoolAttribute(_Timestamps, Base):
    __tablename__ = "pool_attributes"
    __table_args__ = (UniqueConstraint("pool_id", "key", name="uq_pool_attributes_pool_key"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    pool_id: Mapped[str] = mapped_column(ForeignKey("pools.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(String(255))


class PoolNsRecord(_Timestamps, Base):
    __tablename__ = "pool_ns_records"
    __table_args__ = (UniqueConstraint("pool_id", "hostname", name="uq_pool_ns_records_host"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    pool_id: Mapped[str] = mapped_column(ForeignKey("pools.id", ondelete="CASCADE"))
    priority: Mapped[int] = mapped_column(Integer)
    hostname: Mapped[str] = mapped_column(String(255))


class PoolNameserver(_Timestamps, Base):
    __tablename__ = "pool_nameservers"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    pool_id: Mapped[str] = mapped_column(ForeignKey("pools.id", ondelete="CASCADE"))
    host: Mapped[str] = mapped_column(String(255))
    port: Mapped[int] = mapped_column(Integer)


class PoolTarget(_Timestamps, Base):
    __tablename__ = "pool_targets"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    pool_id: Mapped[str] = mapped_column(ForeignKey("pools.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(50))
    description: Mapped[str | None] = mapped_column(String(160))
    tsigkey_id: Mapped[str | None] = mapped_column(String(36))


class PoolTargetOption(_Timestamps, Base):
    __tablename__ = "pool_target_options"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    pool_target_id: Mapped[str] = mapped_column(ForeignKey("pool_targets.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(Text)


class PoolTargetMaster(_Timestamps, Base):
    __tablename__ = "pool_target_masters"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    pool_target_id: Mapped[str] = mapped_column(ForeignKey("pool_targets.id", ondelete="CASCADE"))
    host: Mapped[str] = mapped_column(String(255))
    port: Mapped[int] = mapped_column(Integer)


class PoolAlsoNotify(_Timestamps, Base):
    __tablename__ = "pool_also_notifies"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    pool_id: Mapped[str] = mapped_column(ForeignKey("pools.id", ondelete="CASCADE"))
    host: Mapped[str] = mapped_column(String(255))
    port: Mapped[int] = mapped_column(Integer)


def name_key_default(context: DefaultExecutionContext) -> str:
    """``name_key`` of a zone or recordset insert that does not set it: its name, case-folded.

    A column default rather than code at each insert, so that every writer (ORM flushes, bulk
    imports, secondary transfers) fills the column the unique constraints are on
    (``domain/names.py``, migration 0005). Names never change after insert.
    """
    return names.key(context.get_current_parameters()["name"])


def reverse_key_default(context: DefaultExecutionContext) -> str:
    """``reverse_key`` of a zone insert that does not set it: ``name_key`` backwards."""
    return name_key_default(context)[::-1]


# Compared byte by byte on every engine, so that the zones below a name are one index range
# (``storage/zone_create.py``); a linguistic collation would sort the dots away (migration 0012).
BYTEWISE_NAME = String(255).with_variant(String(255, collation="C"), "postgresql") \
    .with_variant(mysql.VARCHAR(255, charset="utf8mb4", collation="utf8mb4_bin"), "mysql",
                  "mariadb")


# --- zones -------------------------------------------------------------------------------------
class Zone(_Timestamps, Base):
    __tablename__ = "zones"
    __table_args__ = (
        # Names are unique without regard to case, on every engine (migration 0005).
        UniqueConstraint("name_key", "pool_id", "deleted", name="uq_zones_name_key_pool_deleted"),
        # A project's zone list in (created_at, id) order and its keyset bound (migration 0004).
        Index("ix_zones_tenant_deleted_created_id", "tenant_id", "deleted", "created_at", "id"),
        Index("ix_zones_status_lease", "status", "lease_expires_at"),
        Index("ix_zones_name_deleted", "name", "deleted"),
        Index("ix_zones_parent", "parent_zone_id"),
        Index("ix_zones_reverse_key", "reverse_key"),
    )
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    deleted: Mapped[str] = mapped_column(String(32), default="0")
    deleted_at: Mapped[datetime | None] = mapped_column(Timestamp)
    shard: Mapped[int] = mapped_column(Integer)
    tenant_id: Mapped[str | None] = mapped_column(String(36))
    name: Mapped[str] = mapped_column(String(255))
    name_key: Mapped[str] = mapped_column(String(255), default=name_key_default)
    # ``name_key`` backwards: the zones below a name share its prefix (migration 0012)
    reverse_key: Mapped[str] = mapped_column(BYTEWISE_NAME, default=reverse_key_default)
    email: Mapped[str] = mapped_column(String(255))
    ttl: Mapped[int] = mapped_column(Integer)
    refresh: Mapped[int] = mapped_column(Integer)
    retry: Mapped[int] = mapped_column(Integer)
    expire: Mapped[int] = mapped_column(Integer)
    minimum: Mapped[int] = mapped_column(Integer)
    parent_zone_id: Mapped[str | None] = mapped_column(String(36))
    serial: Mapped[int] = mapped_column(BigInteger)
    description: Mapped[str | None] = mapped_column(String(160))
    status: Mapped[str] = mapped_column(String(16), default="PENDING")
    action: Mapped[str] = mapped_column(String(16), default="CREATE")
    pool_id: Mapped[str] = mapped_column(String(36))
    reverse_name: Mapped[str] = mapped_column(String(255))
    type: Mapped[str] = mapped_column(String(16), default="PRIMARY")
    transferred_at: Mapped[datetime | None] = mapped_column(Timestamp)
    delayed_notify: Mapped[bool] = mapped_column(Boolean, default=False)
    increment_serial: Mapped[bool] = mapped_column(Boolean, default=False)
    # Work queue (ours): every write bumps change_seq; a worker holding a lease owns the push.
    change_seq: Mapped[int] = mapped_column(Integer, default=1)
    hard_delete: Mapped[bool] = mapped_column(Boolean, default=False)
    lease_owner: Mapped[str | None] = mapped_column(String(64))
    lease_expires_at: Mapped[datetime | None] = mapped_column(Timestamp)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(Timestamp)
    error_reason: Mapped[str | None] = mapped_column(Text)
    # The first write the nameservers do not serve yet (None once served): propagation time and
    # the age of the oldest pending change are measured from it (migration 0006).
    pending_since: Mapped[datetime | None] = mapped_column(Timestamp)
    # A write changed what the zone serves beyond the owner names of its records not ACTIVE (a
    # record deleted, the zone's TTL changed): the next claim's IXFR step reads the zone whole
    # instead of those names only (``storage/zonehistory``; migration 0014). A new zone's
    # history starts from a whole read anyway (False); a row written without it, as one from
    # before the migration, is read whole once (the server's default, true).
    whole_step: Mapped[bool] = mapped_column(Boolean, default=False, server_default=true())


class ZoneAttribute(_Timestamps, Base):
    __tablename__ = "zone_attributes"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"), index=True)
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(String(255))


class ZoneMaster(_Timestamps, Base):
    __tablename__ = "zone_masters"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"), index=True)
    host: Mapped[str] = mapped_column(String(255))
    port: Mapped[int] = mapped_column(Integer)


def zone_owner_default(context: DefaultExecutionContext) -> str | None:
    """``recordsets.zone_tenant_id`` for an insert that does not set it: the zone's owner.

    One query per row, so only a safety net: ORM flushes get the owner from the session
    (``fill_zone_owners``), and bulk inserts of storage code set it themselves. A row left
    NULL would silently drop out of its owner's cross-zone list.
    """
    zone_id = context.get_current_parameters().get("zone_id")
    query = select(Zone.tenant_id).where(Zone.id == zone_id)
    return context.connection.execute(query).scalar()


class SharedZone(_Timestamps, Base):
    __tablename__ = "shared_zones"
    __table_args__ = (UniqueConstraint("zone_id", "target_project_id", name="uq_shared_zone"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[str] = mapped_column(String(36))
    target_project_id: Mapped[str] = mapped_column(String(36), index=True)


class RecordSet(_Timestamps, Base):
    __tablename__ = "recordsets"
    __table_args__ = (
        UniqueConstraint("zone_id", "name_key", "type", name="uq_recordsets_zone_name_key_type"),
        # One zone's list, and the cross-zone list of a project's zones (migration 0004).
        Index("ix_recordsets_zone_created_id", "zone_id", "created_at", "id"),
        Index("ix_recordsets_zone_tenant_created_id", "zone_tenant_id", "created_at", "id"),
        Index("ix_recordsets_name_key_type", "name_key", "type"),
    )
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    zone_shard: Mapped[int] = mapped_column(Integer)
    tenant_id: Mapped[str | None] = mapped_column(String(36))
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"))
    # The owner of the zone (``zones.tenant_id``), copied here so that one index serves the
    # cross-zone list; see ``storage/recordsets.py`` and ``fill_zone_owners`` below.
    zone_tenant_id: Mapped[str | None] = mapped_column(String(36), default=zone_owner_default)
    name: Mapped[str] = mapped_column(String(255))
    name_key: Mapped[str] = mapped_column(String(255), default=name_key_default)
    type: Mapped[str] = mapped_column(String(16))
    ttl: Mapped[int | None] = mapped_column(Integer)
    description: Mapped[str | None] = mapped_column(String(160))
    reverse_name: Mapped[str] = mapped_column(String(255))


class Record(_Timestamps, Base):
    __tablename__ = "records"
    __table_args__ = (
        Index("ix_records_recordset", "recordset_id"),
        # ``managed`` too: the zone_records quota counts from the index alone (migration 0013)
        Index("ix_records_zone_status_managed", "zone_id", "status", "managed"),
        Index("ix_records_managed_resource", "managed_resource_id"),
    )
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    zone_shard: Mapped[int] = mapped_column(Integer)
    tenant_id: Mapped[str | None] = mapped_column(String(36))
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"))
    recordset_id: Mapped[str] = mapped_column(ForeignKey("recordsets.id", ondelete="CASCADE"))
    data: Mapped[str] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(String(160))
    hash: Mapped[str] = mapped_column(String(32), unique=True)
    managed: Mapped[bool] = mapped_column(Boolean, default=False)
    managed_extra: Mapped[str | None] = mapped_column(String(100))
    managed_plugin_type: Mapped[str | None] = mapped_column(String(50))
    managed_plugin_name: Mapped[str | None] = mapped_column(String(50))
    managed_resource_type: Mapped[str | None] = mapped_column(String(50))
    managed_resource_region: Mapped[str | None] = mapped_column(String(100))
    managed_resource_id: Mapped[str | None] = mapped_column(String(36))
    managed_tenant_id: Mapped[str | None] = mapped_column(String(36))
    status: Mapped[str] = mapped_column(String(16), default="PENDING")
    action: Mapped[str] = mapped_column(String(16), default="CREATE")
    # The zone serial that first serves this version of the record (None until a worker
    # assigns the next serial); records with serial <= the confirmed serial become ACTIVE.
    serial: Mapped[int | None] = mapped_column(BigInteger)


# --- administrative resources ------------------------------------------------------------------
class Quota(_Timestamps, Base):
    __tablename__ = "quotas"
    __table_args__ = (UniqueConstraint("tenant_id", "resource", name="uq_quotas_tenant_resource"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36))
    resource: Mapped[str] = mapped_column(String(32))
    hard_limit: Mapped[int] = mapped_column(Integer)


class Tld(_Timestamps, Base):
    __tablename__ = "tlds"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(String(160))


class Blacklist(_Timestamps, Base):
    __tablename__ = "blacklists"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    pattern: Mapped[str] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(String(160))


class TsigKey(_Timestamps, Base):
    __tablename__ = "tsigkeys"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    algorithm: Mapped[str] = mapped_column(String(32))
    secret: Mapped[str] = mapped_column(String(255))
    scope: Mapped[str] = mapped_column(String(16))
    resource_id: Mapped[str] = mapped_column(String(36))


class ZoneTask(_Timestamps, Base):
    """Imports and exports (Designate's ``zone_tasks``)."""

    __tablename__ = "zone_tasks"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    tenant_id: Mapped[str | None] = mapped_column(String(36), index=True)
    zone_id: Mapped[str | None] = mapped_column(String(36))
    task_type: Mapped[str] = mapped_column(String(16))
    message: Mapped[str | None] = mapped_column(String(160))
    status: Mapped[str] = mapped_column(String(16), default="PENDING")
    location: Mapped[str | None] = mapped_column(String(160))
    # Whole zone files: LONGTEXT on MySQL/MariaDB, where TEXT stops at 64 KiB (migration 0002).
    payload: Mapped[str | None] = mapped_column(
        Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb"))


class ZoneTransferRequest(_Timestamps, Base):
    __tablename__ = "zone_transfer_requests"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(String(160))
    tenant_id: Mapped[str] = mapped_column(String(36))
    target_tenant_id: Mapped[str | None] = mapped_column(String(36))
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")


class ZoneTransferAccept(_Timestamps, Base):
    __tablename__ = "zone_transfer_accepts"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    version: Mapped[int] = mapped_column(Integer, default=1)
    zone_transfer_request_id: Mapped[str] = mapped_column(
        ForeignKey("zone_transfer_requests.id", ondelete="CASCADE")
    )
    zone_id: Mapped[str] = mapped_column(String(36))
    tenant_id: Mapped[str] = mapped_column(String(36))
    key: Mapped[str] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")


class ServiceStatus(_Timestamps, Base):
    __tablename__ = "service_statuses"
    __table_args__ = (UniqueConstraint("service_name", "hostname", name="uq_service_status"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    service_name: Mapped[str] = mapped_column(String(255))
    hostname: Mapped[str] = mapped_column(String(255))
    heartbeated_at: Mapped[datetime | None] = mapped_column(Timestamp)
    status: Mapped[str] = mapped_column(String(16))
    stats: Mapped[str | None] = mapped_column(Text)
    capabilities: Mapped[str | None] = mapped_column(Text)


class Lease(Base):
    """A named, expiring lock: one periodic job runs once per interval across the cluster."""

    __tablename__ = "leases"
    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(64))
    expires_at: Mapped[datetime | None] = mapped_column(Timestamp)


# --- DNS history and catalog zones (migration 0003) -------------------------------------------
class ZoneChange(Base):
    """One serial step of a zone as mdns served it, for incremental IXFR (storage/zonehistory.py).

    ``removed``/``added`` are JSON lists of served records; only the newest row of a zone keeps
    ``snapshot`` (the full served set at ``serial``, zlib-compressed JSON), the base of the next
    diff.  ``from_serial`` is None for a base row (first serial known to the history).
    """

    __tablename__ = "zone_changes"
    __table_args__ = (Index("ix_zone_changes_zone_serial", "zone_id", "serial"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    zone_id: Mapped[str] = mapped_column(String(36))
    serial: Mapped[int] = mapped_column(BigInteger)
    from_serial: Mapped[int | None] = mapped_column(BigInteger)
    removed: Mapped[str] = mapped_column(Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb"))
    added: Mapped[str] = mapped_column(Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb"))
    snapshot: Mapped[bytes | None] = mapped_column(
        LargeBinary().with_variant(mysql.LONGBLOB(), "mysql", "mariadb"))
    created_at: Mapped[datetime | None] = mapped_column(Timestamp, default=utcnow)


class PoolCatalogZone(_Timestamps, Base):
    """pools.yaml ``catalog_zone`` of a pool; ``serial``/``digest`` track member changes (the
    serial moves on when the digest of the member list differs from the stored one)."""

    __tablename__ = "pool_catalog_zones"
    pool_id: Mapped[str] = mapped_column(ForeignKey("pools.id", ondelete="CASCADE"),
                                         primary_key=True)
    fqdn: Mapped[str] = mapped_column(String(255))
    refresh: Mapped[int] = mapped_column(Integer)
    tsig_key: Mapped[str | None] = mapped_column(String(255))
    tsig_algorithm: Mapped[str | None] = mapped_column(String(32))
    serial: Mapped[int] = mapped_column(BigInteger)
    digest: Mapped[str] = mapped_column(String(64))


# --- the zone owner on recordsets (migration 0004) --------------------------------------------
@event.listens_for(Session, "before_flush")
def fill_zone_owners(session: Session, _flush_context: object, _instances: object) -> None:
    """New recordsets get ``zone_tenant_id`` from their zone when the session holds it.

    Central loads (and locks) the zone before it adds recordsets, and a new zone is added in
    the same flush as its SOA and NS, so this needs no query; what it cannot resolve is left
    to ``zone_owner_default``. A transfer rewrites the column (``storage/transfers.py``).
    """
    pending = [obj for obj in session.new if isinstance(obj, RecordSet) and obj.zone_tenant_id is None]
    if not pending:
        return
    owners = {obj.id: obj.tenant_id for obj in session.new if isinstance(obj, Zone)}
    for recordset in pending:
        owner = _session_zone_owner(session, owners, recordset.zone_id)
        if owner is not None:
            recordset.zone_tenant_id = owner


def _session_zone_owner(session: Session, owners: dict[str, str | None],
                        zone_id: str | None) -> str | None:
    if zone_id in owners:
        return owners[zone_id]
    zone = session.identity_map.get(session.identity_key(Zone, zone_id)) if zone_id else None
    return zone.tenant_id if isinstance(zone, Zone) else None


class ZonePropagation(Base):
    """What the worker (or a propagation request) last saw of one zone on one server.

    ``kind`` is ``nameserver`` (SOA polled: ``serial``, status IN_SYNC / BEHIND / UNREACHABLE)
    or ``target`` (a backend applied to: status OK / FAILED).  ``since`` is when the status
    last changed, ``checked_at`` when it was last seen.  One row per server, overwritten.
    """

    __tablename__ = "zone_propagation"
    __table_args__ = (UniqueConstraint("zone_id", "kind", "host", "port",
                                       name="uq_zone_propagation_server"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    host: Mapped[str] = mapped_column(String(255))
    port: Mapped[int] = mapped_column(Integer)
    target_type: Mapped[str | None] = mapped_column(String(32))
    serial: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    last_error: Mapped[str | None] = mapped_column(Text)
    since: Mapped[datetime] = mapped_column(Timestamp)
    checked_at: Mapped[datetime] = mapped_column(Timestamp)


class ChangeBatch(Base):
    """One applied ``POST /v2/zones/{id}/changes`` (extension): kept so its id can be asked.

    Its status is not stored: ``change_seq`` is the zone's write counter after the batch and
    ``serial`` the zone serial that first serves it (stamped at the worker's claim, migration
    0008); every nameserver seen serving that serial, or the zone reaching ACTIVE at or past
    that counter, is what "served" means (``central/change_status.py``).
    """

    __tablename__ = "change_batches"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"), index=True)
    tenant_id: Mapped[str | None] = mapped_column(String(36))
    change_seq: Mapped[int] = mapped_column(Integer)
    changes: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    serial: Mapped[int | None] = mapped_column(BigInteger)


class ZoneDnssec(Base):
    """A zone's DNSSEC setting (extension, migration 0009): signed or not, how, and since when.

    ``requested_serial`` is the zone's serial when the setting last changed and ``change_seq``
    its write counter after that change: the setting is served once a nameserver serves a later
    serial, or the zone is ACTIVE at that counter (``central/change_status.py``).  The row stays
    when signing is turned off, so the zone's IXFR history, which holds no signatures, is never
    used to bring a signed copy up to date.
    """

    __tablename__ = "zone_dnssec"
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"),
                                         primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    # going insecure (migration 0010): still signed, publishing the RFC 8078 delete CDS and
    # CDNSKEY, until the tenant confirms the parent no longer has the DS
    disabling: Mapped[bool] = mapped_column(Boolean, default=False)
    algorithm: Mapped[str] = mapped_column(String(32))
    nsec: Mapped[str] = mapped_column(String(8))
    requested_serial: Mapped[int] = mapped_column(BigInteger)
    change_seq: Mapped[int] = mapped_column(Integer)
    # when the zone last got a serial to refresh its signatures (producer's dnssec_refresh)
    refreshed_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    # the signing epoch (migration 0011, unix seconds): every version of the zone from serial
    # ``epoch_serial`` on is signed with inception/expiration from it, so every mdns process
    # makes the same signatures and a signed zone can go out by IXFR; ``epoch_due``: the next
    # serial starts a new epoch (refresh, setting or key change; ``storage/dnssec.advance_epoch``)
    epoch: Mapped[int | None] = mapped_column(BigInteger)
    epoch_serial: Mapped[int | None] = mapped_column(BigInteger)
    epoch_due: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(Timestamp, onupdate=utcnow)


class ZoneDnssecKey(Base):
    """One signing key of a zone: its public DNSKEY fields in clear, the private key sealed
    (AES-GCM under the operator's key-encryption key, ``domain/dnssec/keys.py``)."""

    __tablename__ = "zone_dnssec_keys"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    zone_id: Mapped[str] = mapped_column(ForeignKey("zones.id", ondelete="CASCADE"), index=True)
    flags: Mapped[int] = mapped_column(Integer)
    algorithm: Mapped[int] = mapped_column(Integer)
    key_tag: Mapped[int] = mapped_column(Integer)
    public_key: Mapped[str] = mapped_column(Text)
    private_key: Mapped[str] = mapped_column(Text)
    # ACTIVE, or RETIRING after a rollover: still published and signing until ``retire_at``
    # (a ZSK), or until the tenant completes the rollover (a KSK: ``retire_at`` stays None)
    state: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    retire_at: Mapped[datetime | None] = mapped_column(Timestamp)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
