"""DNSSEC going insecure (extension): zone_dnssec.disabling

A zone whose signing is being turned off stays signed and publishes the RFC 8078 delete CDS and
CDNSKEY until the tenant confirms the parent removed its DS; ``disabling`` marks that phase.

Revision ID: 0010
Revises: 0009
"""
from alembic import op
import sqlalchemy as sa

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('zone_dnssec', sa.Column('disabling', sa.Boolean(), nullable=False,
                                           server_default=sa.false()))


def downgrade() -> None:
    op.drop_column('zone_dnssec', 'disabling')
