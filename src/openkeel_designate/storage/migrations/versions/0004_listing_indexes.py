"""Listing indexes: keyset pages by (created_at, id), and recordsets.zone_tenant_id for the cross-zone list

Why (EXPLAIN ANALYZE at 100,000 zones / 1.2M recordsets, bench/scale.py):

* zones (tenant_id, deleted, created_at, id) replaces (tenant_id, deleted, created_at): a page
  after a marker is one index range ``(created_at, id) > (:c, :i)``, ties included.
* recordsets (zone_id, created_at, id) replaces (zone_id, created_at): the same for one zone's
  list (a secondary zone's recordsets all share one created_at).
* recordsets.zone_tenant_id is the owner of the zone (zones.tenant_id), filled here from the
  zones, and (zone_tenant_id, created_at, id) serves ``GET /v2/recordsets`` of a project: its
  recordsets in order without reading every recordset of every zone of the project first.
  recordsets.tenant_id cannot serve: it is the project that created the recordset, which is
  another project for a recordset created in a shared zone.

The new indexes are created before the old ones are dropped, so that MariaDB always has an
index for the recordsets.zone_id foreign key.

Revision ID: 0004
Revises: 0003
"""
from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('recordsets', sa.Column('zone_tenant_id', sa.String(length=36), nullable=True))
    op.execute("UPDATE recordsets SET zone_tenant_id = "
               "(SELECT zones.tenant_id FROM zones WHERE zones.id = recordsets.zone_id)")
    op.create_index('ix_recordsets_zone_tenant_created_id', 'recordsets',
                    ['zone_tenant_id', 'created_at', 'id'])
    op.create_index('ix_recordsets_zone_created_id', 'recordsets', ['zone_id', 'created_at', 'id'])
    op.drop_index('ix_recordsets_zone_created', table_name='recordsets')
    op.create_index('ix_zones_tenant_deleted_created_id', 'zones',
                    ['tenant_id', 'deleted', 'created_at', 'id'])
    op.drop_index('ix_zones_tenant_deleted_created', table_name='zones')


def downgrade() -> None:
    op.create_index('ix_zones_tenant_deleted_created', 'zones', ['tenant_id', 'deleted', 'created_at'])
    op.drop_index('ix_zones_tenant_deleted_created_id', table_name='zones')
    op.create_index('ix_recordsets_zone_created', 'recordsets', ['zone_id', 'created_at'])
    op.drop_index('ix_recordsets_zone_created_id', table_name='recordsets')
    op.drop_index('ix_recordsets_zone_tenant_created_id', table_name='recordsets')
    with op.batch_alter_table('recordsets') as batch_op:  # SQLite: drop column by table copy
        batch_op.drop_column('zone_tenant_id')
