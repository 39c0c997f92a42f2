"""zones.whole_step: the next IXFR step compares the whole zone

A claim's IXFR step reads only the owner names of the zone's records not yet ACTIVE and patches
the set it stored at the previous serial (``storage/zonehistory``). A write that changes what
the zone serves without leaving such a record behind (a record or recordset deleted, the zone's
TTL changed) sets ``whole_step`` in its own transaction, and the next claim reads the zone whole
and clears it.

Revision ID: 0014
Revises: 0013
"""
from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # true for the zones already there: their first claim after the upgrade reads them whole
    op.add_column('zones', sa.Column('whole_step', sa.Boolean(), nullable=False,
                                     server_default=sa.true()))


def downgrade() -> None:
    op.drop_column('zones', 'whole_step')
