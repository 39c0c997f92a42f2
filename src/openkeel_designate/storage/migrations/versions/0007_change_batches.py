"""Change batches (extension): change_batches

One row per applied ``POST /v2/zones/{zone_id}/changes``, so ``GET .../changes/{id}`` can answer
later; the status is derived from the zone (``change_seq`` reached and served), not stored.

Revision ID: 0007
Revises: 0006
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

_TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    op.create_table('change_batches',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('zone_id', sa.String(length=36), nullable=False),
    sa.Column('tenant_id', sa.String(length=36), nullable=True),
    sa.Column('change_seq', sa.Integer(), nullable=False),
    sa.Column('changes', sa.Text(), nullable=False),
    sa.Column('created_at', _TIMESTAMP, nullable=False),
    sa.ForeignKeyConstraint(['zone_id'], ['zones.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_change_batches_zone_id', 'change_batches', ['zone_id'])


def downgrade() -> None:
    op.drop_index('ix_change_batches_zone_id', table_name='change_batches')
    op.drop_table('change_batches')
