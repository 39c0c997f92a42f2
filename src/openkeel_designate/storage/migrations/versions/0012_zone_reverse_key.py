"""zones.reverse_key: the zones below a name as one index range

A zone create must know every live zone below its name, in any project and pool (another
project's subzone refuses the create; the pool's subzones hang on the new zone). That was
``name_key LIKE '%.name.'``: a leading wildcard uses no index, so every create read every zone
of every project, 16 ms per create on PostgreSQL with 100,000 zones, ten times that at a
million. Backwards, the names below ``example.com.`` are the ones that start with
``.moc.elpmaxe.``: with the column compared byte by byte (PostgreSQL ``COLLATE "C"``, MariaDB
``utf8mb4_bin``, SQLite's default), they are the index range from that prefix up to the same
prefix ending in ``/``, the character after the dot. A linguistic collation (``en_US``) would
order by the letters first and scatter the range, hence the explicit one.

Revision ID: 0012
Revises: 0011
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None

_TYPE = sa.String(length=255).with_variant(sa.String(length=255, collation='C'), 'postgresql') \
    .with_variant(mysql.VARCHAR(255, charset='utf8mb4', collation='utf8mb4_bin'), 'mysql',
                  'mariadb')
_BATCH = 5000


def upgrade() -> None:
    op.add_column('zones', sa.Column('reverse_key', _TYPE, nullable=True))
    _fill()
    with op.batch_alter_table('zones') as batch_op:
        batch_op.alter_column('reverse_key', existing_type=_TYPE, nullable=False)
        batch_op.create_index('ix_zones_reverse_key', ['reverse_key'])


def _fill() -> None:
    """``name_key`` backwards: one UPDATE where the engine has ``reverse()`` (by characters on
    both), in batches from here on SQLite, which has none."""
    bind = op.get_bind()
    if bind.dialect.name in ('postgresql', 'mysql', 'mariadb'):
        op.execute(sa.text("UPDATE zones SET reverse_key = reverse(name_key)"))
        return
    zones = sa.table('zones', sa.column('id', sa.String), sa.column('name_key', sa.String),
                     sa.column('reverse_key', sa.String))
    update = zones.update().where(zones.c.id == sa.bindparam('b_id')).values(
        reverse_key=sa.bindparam('b_reverse_key'))
    after = ''
    while True:
        rows = bind.execute(sa.select(zones.c.id, zones.c.name_key).where(zones.c.id > after)
                            .order_by(zones.c.id).limit(_BATCH)).all()
        if not rows:
            return
        bind.execute(update, [{'b_id': zone_id, 'b_reverse_key': key[::-1]}
                              for zone_id, key in rows])
        after = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table('zones') as batch_op:
        batch_op.drop_index('ix_zones_reverse_key')
        batch_op.drop_column('reverse_key')
