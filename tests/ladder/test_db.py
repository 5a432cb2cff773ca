"""Where the ladder database is, how SQLite is set up, and what a locked or unreachable
database does: retries with back-off, then one line naming the URL without its password."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from arena.ladder import db
from arena.ladder.errors import LadderDatabaseError
from arena.ladder.store import LadderStore


def test_the_url_is_explicit_then_the_environment_then_ladder_db_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(db.ENV_VAR, raising=False)
    assert db.resolve_url(None, cwd=tmp_path) == f"sqlite:///{tmp_path / 'ladder.db'}"
    monkeypatch.setenv(db.ENV_VAR, "postgresql+psycopg://u@h/l")
    assert db.resolve_url(None) == "postgresql+psycopg://u@h/l"
    assert db.resolve_url("other.db", cwd=tmp_path) == f"sqlite:///{tmp_path / 'other.db'}"


def test_a_store_in_the_working_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(db.ENV_VAR, raising=False)
    monkeypatch.chdir(tmp_path)
    with LadderStore() as store:
        store.create_ladder("zoo", "zooloretto_mini", 2)
    assert (tmp_path / "ladder.db").is_file()


def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    with (
        LadderStore(str(tmp_path / "l.db"), busy_timeout_ms=1234) as store,
        store.engine.connect() as conn,
    ):
        pragma = {
            name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "foreign_keys", "busy_timeout")
        }
    assert pragma == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 1234}


def test_a_locked_database_is_retried_with_back_off_then_reported(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    LadderStore(str(path)).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    waits: list[float] = []
    store = LadderStore(
        str(path), busy_timeout_ms=10, retries=4, backoff_s=0.01, sleep=waits.append
    )
    try:
        with pytest.raises(LadderDatabaseError) as caught:
            store.create_ladder("zoo", "zooloretto_mini", 2)
        message = str(caught.value)
        assert "\n" not in message
        assert f"sqlite:///{path}" in message and "locked" in message and "4 attempts" in message
        assert waits == [0.01, 0.02, 0.04]
        blocker.execute("ROLLBACK")
        store.create_ladder("zoo", "zooloretto_mini", 2)  # nothing was half-written
        assert [lad.name for lad in store.ladders()] == ["zoo"]
    finally:
        blocker.close()
        store.close()


def test_a_lock_released_during_the_back_off_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    LadderStore(str(path)).close()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    waits: list[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        blocker.execute("ROLLBACK")  # the other process finishes while we back off

    with LadderStore(str(path), busy_timeout_ms=10, backoff_s=0.01, sleep=wait) as store:
        store.create_ladder("zoo", "zooloretto_mini", 2)
        assert waits == [0.01] and store.ladder("zoo").players == 2
    blocker.close()


def test_an_unreachable_postgresql_is_named_without_its_password() -> None:
    with socket.socket() as s:  # a loopback port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql+psycopg://ladder:s3cret@127.0.0.1:{port}/ladder"
    waits: list[float] = []
    with pytest.raises(LadderDatabaseError) as caught:
        LadderStore(url, retries=3, backoff_s=0.01, sleep=waits.append)
    message = str(caught.value)
    assert f"postgresql+psycopg://ladder:***@127.0.0.1:{port}/ladder" in message
    assert "s3cret" not in message and "\n" not in message and "3 attempts" in message
    assert waits == [0.01, 0.02]


def test_a_malformed_url_is_a_clear_error() -> None:
    with pytest.raises(LadderDatabaseError, match="cannot use the ladder database"):
        LadderStore("nosuchdialect://x/y")


@pytest.mark.parametrize("content", [b"hello, not a database\n", bytes(range(256)) * 20])
def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.db"
    path.write_bytes(content)
    with pytest.raises(LadderDatabaseError) as caught:
        LadderStore(str(path), retries=2, sleep=lambda _s: None)
    message = str(caught.value)
    assert "cannot be used" in message and "not a database" in message and "\n" not in message
    assert path.read_bytes() == content  # the file is left as it was
