"""The ladder database: where it is, how to connect, how its schema is brought up to date.

**Where.** An explicit URL (``--db``) wins, then ``MENAGERIE_LADDER_DB``, then the embedded
SQLite file ``ladder.db`` in the working directory (beside MLflow's ``mlflow.db``). A
plain path is read as an SQLite file. PostgreSQL: ``postgresql+psycopg://user:pw@host/db``.

**SQLite** runs in WAL mode (readers never block the writer), with a busy timeout and
foreign keys on; every transaction that may write starts with ``BEGIN IMMEDIATE``, taking the
write lock up front, so two processes never both read a match as running and both commit it (a
deferred transaction that reads, then writes, fails at once in WAL mode instead of
waiting). **PostgreSQL** rows that a transaction changes are read ``FOR UPDATE``, and
schema upgrades hold a transaction-scoped advisory lock.

**Migrations** live in this package (``arena/ladder/migrations``) and run in code
(:func:`upgrade`): no ``alembic.ini`` is needed. Opening a store upgrades the schema
to the head revision inside one locked transaction, so two processes opening a new
database at once create it once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from arena.ladder.errors import LadderError

ENV_VAR = "MENAGERIE_LADDER_DB"
DEFAULT_FILE = "ladder.db"
MIGRATIONS = Path(__file__).with_name("migrations")
SQLITE_BUSY_MS = 5000
"""How long an SQLite statement waits for another process's write lock."""
PG_CONNECT_TIMEOUT_S = 5
_ADVISORY_KEY = 0x6C61646465  # "ladde": the schema-upgrade lock on PostgreSQL


def resolve_url(url: str | None = None, cwd: str | Path | None = None) -> str:
    """The database URL to use: ``url``, else ``$MENAGERIE_LADDER_DB``, else ``./ladder.db``.

    >>> resolve_url("postgresql+psycopg://u:pw@db/ladder")
    'postgresql+psycopg://u:pw@db/ladder'
    >>> resolve_url("/tmp/x.db")
    'sqlite:////tmp/x.db'
    """
    chosen = url or os.environ.get(ENV_VAR) or DEFAULT_FILE
    if "://" in chosen:
        return chosen
    path = Path(chosen).expanduser()
    if not path.is_absolute():
        path = Path(cwd or os.getcwd()) / path
    return f"sqlite:///{path}"


def safe_url(url: str | URL) -> str:
    """The URL with its password masked, for messages.

    >>> safe_url("postgresql+psycopg://me:secret@db:5432/ladder")
    'postgresql+psycopg://me:***@db:5432/ladder'
    """
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<malformed URL>"


def make_engine(url: str, *, busy_timeout_ms: int = SQLITE_BUSY_MS) -> Engine:
    """An engine with the ladder's connection settings (see the module docstring)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            parsed, connect_args={"timeout": busy_timeout_ms / 1000, "check_same_thread": False}
        )

        def connect(dbapi_connection: Any, _record: Any) -> None:
            _sqlite_connect(dbapi_connection, busy_timeout_ms)

        event.listen(engine, "connect", connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql":
        connect_args["connect_timeout"] = PG_CONNECT_TIMEOUT_S
    return create_engine(parsed, pool_pre_ping=True, connect_args=connect_args)


def _sqlite_connect(dbapi_connection: Any, busy_timeout_ms: int) -> None:
    dbapi_connection.isolation_level = None  # we issue BEGIN ourselves (below)
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")  # durable across crashes of the process
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


READ_ONLY = "ladder_read_only"
"""Execution option of read-only work: on SQLite a plain (deferred) BEGIN, so reading
never waits for a writer (WAL readers see the last committed state)."""


def _sqlite_begin(connection: Connection) -> None:
    if connection.get_execution_options().get(READ_ONLY):
        connection.exec_driver_sql("BEGIN")
    else:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, built in code (no ``alembic.ini``)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the ladder has no migrations"
    return head


def _known(revision: str) -> bool:
    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


def current_revision(connection: Connection) -> str | None:
    """The schema revision of the database (None: empty)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` in one transaction, holding the upgrade lock."""
    if revision == "head":
        with engine.connect().execution_options(**{READ_ONLY: True}) as conn:
            current = current_revision(conn)
            conn.rollback()
        if current == head_revision():
            return
        if current is not None and not _known(current):
            raise LadderError(
                f"the ladder database {safe_url(engine.url)} has schema revision {current}, "
                f"newer than this Menagerie knows (head {head_revision()}): upgrade Menagerie"
            )
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _ADVISORY_KEY})
        command.upgrade(alembic_config(conn), revision)
