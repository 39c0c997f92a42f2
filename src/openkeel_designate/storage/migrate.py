"""Schema migrations with alembic, driven from code (``manage database sync``, ``serve``)."""

from __future__ import annotations

import os

from alembic import command
from alembic.config import Config

from openkeel_designate.storage.database import sync_url

_HERE = os.path.dirname(os.path.abspath(__file__))


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", os.path.join(_HERE, "migrations"))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    return config


def is_current(url: str) -> bool:
    """Whether the database at ``url`` is at the latest revision."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine, pool

    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    engine = create_engine(sync_url(url), poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision() == head
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision``; safe to run again."""
    command.upgrade(alembic_config(url), revision)
