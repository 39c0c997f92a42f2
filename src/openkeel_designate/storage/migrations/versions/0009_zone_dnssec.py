"""DNSSEC signing (extension): zone_dnssec, zone_dnssec_keys

``zone_dnssec`` holds a zone's signing setting (enabled, algorithm, NSEC or NSEC3) and the
serial / write counter it was asked at (its PENDING → ACTIVE status) and when the producer last
gave it a new serial to refresh its signatures (``refreshed_at``); ``zone_dnssec_keys`` the
zone's keys, the private half sealed with the operator's key-encryption key, and when a key
being rolled over (RETIRING) is to be removed.

Revision ID: 0009
Revises: 0008
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

_TIMESTAMP = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql', 'mariadb')


def upgrade() -> None:
    op.create_table('zone_dnssec',
    sa.Column('zone_id', sa.String(length=36), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('algorithm', sa.String(length=32), nullable=False),
    sa.Column('nsec', sa.String(length=8), nullable=False),
    sa.Column('requested_serial', sa.BigInteger(), nullable=False),
    sa.Column('change_seq', sa.Integer(), nullable=False),
    sa.Column('refreshed_at', _TIMESTAMP, nullable=False),
    sa.Column('created_at', _TIMESTAMP, nullable=False),
    sa.Column('updated_at', _TIMESTAMP, nullable=True),
    sa.ForeignKeyConstraint(['zone_id'], ['zones.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('zone_id'),
    )
    op.create_table('zone_dnssec_keys',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('zone_id', sa.String(length=36), nullable=False),
    sa.Column('flags', sa.Integer(), nullable=False),
    sa.Column('algorithm', sa.Integer(), nullable=False),
    sa.Column('key_tag', sa.Integer(), nullable=False),
    sa.Column('public_key', sa.Text(), nullable=False),
    sa.Column('private_key', sa.Text(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('retire_at', _TIMESTAMP, nullable=True),
    sa.Column('created_at', _TIMESTAMP, nullable=False),
    sa.ForeignKeyConstraint(['zone_id'], ['zones.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_zone_dnssec_keys_zone_id', 'zone_dnssec_keys', ['zone_id'])


def downgrade() -> None:
    op.drop_index('ix_zone_dnssec_keys_zone_id', table_name='zone_dnssec_keys')
    op.drop_table('zone_dnssec_keys')
    op.drop_table('zone_dnssec')
