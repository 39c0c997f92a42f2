"""DNSSEC signing epoch (extension): zone_dnssec.epoch, epoch_serial, epoch_due

Signatures take their inception and expiration from a per-zone epoch kept here instead of the
clock of the process that renders the transfer, so every mdns process (and one restarted) makes
byte-identical signatures for a serial, and a signed zone can be sent by IXFR.  ``epoch_due``
asks the next serial to start a new epoch (producer refresh, setting or key change).

Revision ID: 0011
Revises: 0010
"""
from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('zone_dnssec', sa.Column('epoch', sa.BigInteger(), nullable=True))
    op.add_column('zone_dnssec', sa.Column('epoch_serial', sa.BigInteger(), nullable=True))
    op.add_column('zone_dnssec', sa.Column('epoch_due', sa.Boolean(), nullable=False,
                                           server_default=sa.false()))
    # signed zones get an epoch with their next serial (until then mdns uses the day's)
    op.execute(sa.text("UPDATE zone_dnssec SET epoch_due = enabled"))


def downgrade() -> None:
    op.drop_column('zone_dnssec', 'epoch_due')
    op.drop_column('zone_dnssec', 'epoch_serial')
    op.drop_column('zone_dnssec', 'epoch')
