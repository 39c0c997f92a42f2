"""Case-insensitive names: zones.name_key and recordsets.name_key carry the unique constraints

DNS names are case-insensitive (RFC 4343). Designate keeps a name as written and gets
uniqueness from MariaDB's case-insensitive collation; on PostgreSQL and SQLite the constraints
``uq_zones_name_pool_deleted`` and ``uq_recordsets_zone_name_type`` compared bytes, so
``MiXeD.x.`` and ``mixed.x.`` could become two A recordsets of one owner name (a zone BIND-style
secondaries refuse) and, under a race, two zones of one name.

Why a stored key column rather than ``lower(name)`` in queries plus a lock: the constraint then
holds on every engine for every writer (API, imports, secondary transfers, sink), including two
transactions racing with no lock in common, and an equality on ``name_key`` uses an index on
all three engines (an expression index on ``lower(name)`` exists on PostgreSQL and SQLite only,
and MariaDB's generated columns differ from the others'). ``name`` stays as the user wrote it,
as Designate shows it.

Rows that already collide:

* recordsets of one zone, folded name and type are merged into the oldest one (created_at,
  id): records it lacks move over (their hash recomputed), duplicates are dropped, and the zone
  is marked PENDING with a serial increment so that its nameservers get the merged RRset — one
  owner and type was always one RRset in DNS, which is what a secondary should have served.
* live zones of one pool whose names differ only in case cannot be merged (two owners, two
  histories): the upgrade stops and names them, so that an operator deletes one first.

Revision ID: 0005
Revises: 0004
"""
import hashlib

from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

_TYPE = sa.String(length=255)


def upgrade() -> None:
    for table in ('zones', 'recordsets'):
        op.add_column(table, sa.Column('name_key', _TYPE, nullable=True))
        op.execute(f"UPDATE {table} SET name_key = lower(name)")
        with op.batch_alter_table(table) as batch_op:
            batch_op.alter_column('name_key', existing_type=_TYPE, nullable=False)
    bind = op.get_bind()
    _refuse_zone_collisions(bind)
    _merge_recordset_collisions(bind)
    with op.batch_alter_table('zones') as batch_op:
        batch_op.create_unique_constraint('uq_zones_name_key_pool_deleted',
                                          ['name_key', 'pool_id', 'deleted'])
        batch_op.drop_constraint('uq_zones_name_pool_deleted', type_='unique')
    with op.batch_alter_table('recordsets') as batch_op:
        batch_op.create_unique_constraint('uq_recordsets_zone_name_key_type',
                                          ['zone_id', 'name_key', 'type'])
        batch_op.drop_constraint('uq_recordsets_zone_name_type', type_='unique')
        batch_op.create_index('ix_recordsets_name_key_type', ['name_key', 'type'])
        batch_op.drop_index('ix_recordsets_name_type')


def _refuse_zone_collisions(bind) -> None:
    rows = bind.execute(sa.text(
        "SELECT z.id, z.name, z.pool_id FROM zones z JOIN ("
        " SELECT name_key, pool_id, deleted FROM zones GROUP BY name_key, pool_id, deleted"
        " HAVING count(*) > 1) d ON d.name_key = z.name_key AND d.pool_id = z.pool_id"
        " AND d.deleted = z.deleted ORDER BY z.name_key, z.created_at")).all()
    if rows:
        listed = ", ".join(f"{name} ({zone_id}, pool {pool})" for zone_id, name, pool in rows)
        raise RuntimeError(
            "Zones whose names differ only in case share a pool; DNS names are "
            f"case-insensitive, so delete all but one of each before upgrading: {listed}")


def _merge_recordset_collisions(bind) -> None:
    groups = bind.execute(sa.text(
        "SELECT zone_id, name_key, type FROM recordsets GROUP BY zone_id, name_key, type "
        "HAVING count(*) > 1")).all()
    touched: set[str] = set()
    for zone_id, name_key, rtype in groups:
        ids = list(bind.execute(sa.text(
            "SELECT id FROM recordsets WHERE zone_id = :z AND name_key = :n AND type = :t "
            "ORDER BY created_at, id"), {"z": zone_id, "n": name_key, "t": rtype}).scalars())
        keeper, others = ids[0], ids[1:]
        held = set(bind.execute(sa.text("SELECT data FROM records WHERE recordset_id = :r"),
                                {"r": keeper}).scalars())
        for other in others:
            for record_id, data in bind.execute(sa.text(
                    "SELECT id, data FROM records WHERE recordset_id = :r ORDER BY created_at, id"),
                    {"r": other}).all():
                if data in held:
                    bind.execute(sa.text("DELETE FROM records WHERE id = :i"), {"i": record_id})
                    continue
                held.add(data)
                digest = hashlib.md5(f"{keeper}:{data}".encode()).hexdigest()
                bind.execute(sa.text("UPDATE records SET recordset_id = :k, hash = :h WHERE id = :i"),
                             {"k": keeper, "h": digest, "i": record_id})
            bind.execute(sa.text("DELETE FROM recordsets WHERE id = :r"), {"r": other})
        touched.add(zone_id)
    for zone_id in touched:
        bind.execute(sa.text(
            "UPDATE zones SET status = 'PENDING', change_seq = change_seq + 1, "
            "version = version + 1, increment_serial = :yes, next_attempt_at = NULL "
            "WHERE id = :z AND deleted = '0' AND action <> 'DELETE'"), {"z": zone_id, "yes": True})
        bind.execute(sa.text("UPDATE zones SET action = 'UPDATE' WHERE id = :z AND action = 'NONE'"),
                     {"z": zone_id})


def downgrade() -> None:
    with op.batch_alter_table('recordsets') as batch_op:
        batch_op.create_index('ix_recordsets_name_type', ['name', 'type'])
        batch_op.drop_index('ix_recordsets_name_key_type')
        batch_op.create_unique_constraint('uq_recordsets_zone_name_type', ['zone_id', 'name', 'type'])
        batch_op.drop_constraint('uq_recordsets_zone_name_key_type', type_='unique')
        batch_op.drop_column('name_key')
    with op.batch_alter_table('zones') as batch_op:
        batch_op.create_unique_constraint('uq_zones_name_pool_deleted', ['name', 'pool_id', 'deleted'])
        batch_op.drop_constraint('uq_zones_name_key_pool_deleted', type_='unique')
        batch_op.drop_column('name_key')
