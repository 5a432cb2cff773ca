"""The schema's migrations, on SQLite and PostgreSQL: from empty to head, idempotent, in
step with the models (Alembic's autogenerate finds nothing to add), down and up again,
and created once when several processes open a new database at the same time."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from arena.ladder import db
from arena.ladder.errors import LadderError
from arena.ladder.models import Base
from arena.ladder.store import LadderStore

TABLES = {
    "alembic_version",
    "ladders",
    "bots",
    "bot_versions",
    "bot_tokens",
    "matches",
    "ratings",
    "rating_history",
    "leases",
}


def test_a_store_creates_the_schema_from_empty_and_reopening_changes_nothing(
    db_url: str, open_store: Callable[..., LadderStore]
) -> None:
    store = open_store()
    with store.engine.connect() as conn:
        assert db.current_revision(conn) == db.head_revision()
        assert set(sa.inspect(conn).get_table_names()) == TABLES
    store.create_ladder("zoo", "zooloretto_mini", 2)
    db.upgrade(store.engine)  # again: nothing to do
    db.upgrade(store.engine, "head")
    again = open_store()
    assert [lad.name for lad in again.ladders()] == ["zoo"]


def test_the_migrations_match_the_models(
    db_url: str, open_store: Callable[..., LadderStore]
) -> None:
    store = open_store()
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


def test_one_linear_history_shipped_in_the_package() -> None:
    scripts = ScriptDirectory.from_config(db.alembic_config())
    heads = scripts.get_heads()
    assert heads == [db.head_revision()]
    revisions = list(scripts.walk_revisions())
    assert revisions[-1].down_revision is None  # the first revision starts from empty
    assert not (db.MIGRATIONS / "alembic.ini").exists()


def test_downgrade_to_empty_and_upgrade_again(
    db_url: str, open_store: Callable[..., LadderStore]
) -> None:
    store = open_store()
    store.create_ladder("zoo", "zooloretto_mini", 2)
    with store.engine.begin() as conn:
        command.downgrade(db.alembic_config(conn), "base")
    with store.engine.connect() as conn:
        assert db.current_revision(conn) is None
        assert set(sa.inspect(conn).get_table_names()) <= {"alembic_version"}
    db.upgrade(store.engine)
    assert store.ladders() == []
    store.create_ladder("zoo", "zooloretto_mini", 2)


def test_many_processes_opening_a_new_database_create_it_once(db_url: str) -> None:
    stores: list[LadderStore] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def open_one() -> None:
        barrier.wait()
        try:
            stores.append(LadderStore(db_url, retries=8, backoff_s=0.02))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        stores[0].create_ladder("zoo", "zooloretto_mini", 2)
        assert all([lad.name for lad in s.ladders()] == ["zoo"] for s in stores)
    finally:
        for s in stores:
            s.close()


def test_a_database_from_a_newer_menagerie_is_refused_clearly(
    db_url: str, open_store: Callable[..., LadderStore]
) -> None:
    store = open_store()
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(LadderError, match="schema revision 9999, newer than this Menagerie"):
        open_store()
