"""Change batches (extension): change_batches.serial

The serial that first serves a batch, stamped when a worker claims the zone (as records get
theirs).  A batch's status is then read from what each nameserver of the pool was last seen
serving (``zone_propagation``) against that serial, so a batch already served stays ACTIVE while
a later write of the zone is PENDING or in ERROR.  Batches applied before this revision keep a
NULL serial until the zone's next claim; meanwhile the zone's own status answers for them.

Revision ID: 0008
Revises: 0007
"""
from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('change_batches', sa.Column('serial', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column('change_batches', 'serial')
