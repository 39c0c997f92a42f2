"""zone_tasks.payload holds whole zone files: LONGTEXT on MySQL/MariaDB (TEXT stops at 64 KiB)

Revision ID: 0002
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name in ("mysql", "mariadb"):
        op.alter_column('zone_tasks', 'payload', existing_type=sa.Text(),
                        type_=mysql.LONGTEXT(), existing_nullable=True)


def downgrade() -> None:
    if op.get_bind().dialect.name in ("mysql", "mariadb"):
        op.alter_column('zone_tasks', 'payload', existing_type=mysql.LONGTEXT(),
                        type_=sa.Text(), existing_nullable=True)
