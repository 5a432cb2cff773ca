"""Alembic's environment for the ladder store.

The store runs migrations in code (``arena.ladder.db.upgrade``) and hands this script an
open connection in ``config.attributes["connection"]``; without one (the ``alembic``
command with ``-x url=...`` or a ``sqlalchemy.url`` option) it connects itself. SQLite
gets batch mode, since it alters tables by copying them.
"""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection, create_engine

from arena.ladder.models import Base, UTCDateTime

target_metadata = Base.metadata


def _render_item(kind: str, obj: Any, autogen: AutogenContext) -> str | Literal[False]:
    """Migrations stay independent of the models' code: UTCDateTime is written as the
    plain ``sa.DateTime(timezone=True)`` it stores."""
    if kind == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def _offline() -> None:
    context.configure(
        url=context.config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    config = context.config
    if context.is_offline_mode():
        _offline()
        return
    given = config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("no database: pass -x url=... or set sqlalchemy.url")
    engine = create_engine(url)
    with engine.connect() as conn:
        _run(conn)
        conn.commit()
    engine.dispose()


if hasattr(context, "config"):  # run by Alembic, not imported (e.g. by pytest's doctests)
    run_migrations()
