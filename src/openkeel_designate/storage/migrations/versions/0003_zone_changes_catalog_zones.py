"""zone_changes (IXFR history) and pool_catalog_zones (RFC 9432 catalog per pool)

Revision ID: 0003
Revises: 0002
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql', 'mariadb')
_LONGTEXT = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql', 'mariadb')
_LONGBLOB = sa.LargeBinary().with_variant(mysql.LONGBLOB(), 'mysql', 'mariadb')


def upgrade() -> None:
    op.create_table('zone_changes',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('zone_id', sa.String(length=36), nullable=False),
    sa.Column('serial', sa.BigInteger(), nullable=False),
    sa.Column('from_serial', sa.BigInteger(), nullable=True),
    sa.Column('removed', _LONGTEXT, nullable=False),
    sa.Column('added', _LONGTEXT, nullable=False),
    sa.Column('snapshot', _LONGBLOB, nullable=True),
    sa.Column('created_at', _TIMESTAMP, nullable=True),
    sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_zone_changes_zone_serial', 'zone_changes', ['zone_id', 'serial'])
    op.create_table('pool_catalog_zones',
    sa.Column('pool_id', sa.String(length=36), nullable=False),
    sa.Column('fqdn', sa.String(length=255), nullable=False),
    sa.Column('refresh', sa.Integer(), nullable=False),
    sa.Column('tsig_key', sa.String(length=255), nullable=True),
    sa.Column('tsig_algorithm', sa.String(length=32), nullable=True),
    sa.Column('serial', sa.BigInteger(), nullable=False),
    sa.Column('digest', sa.String(length=64), nullable=False),
    sa.Column('created_at', _TIMESTAMP, nullable=True),
    sa.Column('updated_at', _TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['pool_id'], ['pools.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('pool_id'),
    )


def downgrade() -> None:
    op.drop_table('pool_catalog_zones')
    op.drop_index('ix_zone_changes_zone_serial', table_name='zone_changes')
    op.drop_table('zone_changes')
