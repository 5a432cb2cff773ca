"""Ladder test kit: a real PostgreSQL server for the session, a movable clock, and a
``store`` fixture that runs every store test on SQLite and on PostgreSQL.

The PostgreSQL server is Debian's (``apt-get install postgresql``; binaries in
``/usr/lib/postgresql/<version>/bin``, not on PATH). It refuses to run as root, so as root
``initdb`` and ``postgres`` run as the ``postgres`` user (``runuser -u postgres --``) in a
temporary folder that user owns. The server is a child of the test session, listens on a
free loopback port and on a socket in that folder, and is stopped by a signal to its PID.
Missing binaries fail the tests (never skip them): PostgreSQL is part of ``make test``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena.ladder.store import LadderStore
from tests.procs import MissingTool, PostgresServer


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    try:
        server = PostgresServer()  # the helper lives in deploy/localstack.py (tests.procs)
    except MissingTool as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres: PostgresServer) -> Iterator[str]:
    """A fresh, empty database on the session's server."""
    name = postgres.create_database()
    try:
        yield postgres.url(name)
    finally:
        postgres.drop_database(name)


class Clock:
    """A clock the test moves: ``clock()`` is now, ``clock.advance(s)`` moves it on."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


# the PostgreSQL cases run on one xdist worker (one server) and are in the server tier
ON_POSTGRES = [pytest.mark.xdist_group("postgres"), pytest.mark.server]
BACKENDS = ["sqlite", pytest.param("postgresql", marks=ON_POSTGRES)]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database URL: an SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ladder.db'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
def open_store(db_url: str, clock: Clock) -> Iterator[Callable[..., LadderStore]]:
    """Open (more) stores on the test's database; all are closed at the end."""
    opened: list[LadderStore] = []

    def make(**kwargs: object) -> LadderStore:
        kwargs.setdefault("clock", clock)
        kwargs.setdefault("retries", 4)
        kwargs.setdefault("backoff_s", 0.01)
        store = LadderStore(db_url, **kwargs)  # type: ignore[arg-type]  # kwargs typed object
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Callable[..., LadderStore]) -> LadderStore:
    return open_store()
