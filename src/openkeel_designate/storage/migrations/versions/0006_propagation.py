"""Propagation per nameserver: zone_propagation, and zones.pending_since

``zone_propagation`` keeps, per zone and per nameserver (or target), what the worker last saw:
the serial served, IN_SYNC / BEHIND / UNREACHABLE, the last error and since when — the honest
"served by some" versus "served by all" of ``GET /v2/zones/{id}/propagation``.
``zones.pending_since`` is the commit time of the first write not yet served everywhere; the
``designate_propagation_seconds`` histogram and the oldest-pending gauge are measured from it.
Existing pending zones get the time of the upgrade (their true write time is unknown).

Revision ID: 0006
Revises: 0005
"""
from datetime import datetime, timezone

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

_TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    op.add_column('zones', sa.Column('pending_since', _TIMESTAMP, nullable=True))
    now = datetime.now(timezone.utc).replace(tzinfo=None)  # naive UTC, as every timestamp here
    op.get_bind().execute(sa.text(
        "UPDATE zones SET pending_since = :now "
        "WHERE status IN ('PENDING', 'ERROR') AND deleted = '0'"), {"now": now})
    op.create_table('zone_propagation',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('zone_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('port', sa.Integer(), nullable=False),
    sa.Column('target_type', sa.String(length=32), nullable=True),
    sa.Column('serial', sa.BigInteger(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('since', _TIMESTAMP, nullable=False),
    sa.Column('checked_at', _TIMESTAMP, nullable=False),
    sa.ForeignKeyConstraint(['zone_id'], ['zones.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('zone_id', 'kind', 'host', 'port', name='uq_zone_propagation_server'),
    )


def downgrade() -> None:
    op.drop_table('zone_propagation')
    op.drop_column('zones', 'pending_since')
