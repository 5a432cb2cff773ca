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

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena.ladder.store import LadderStore

PG_START_BOUND_S = 120.0
"""How long the server may take to accept connections (a busy CI machine is slow)."""


def postgres_bin() -> Path:
    """The folder of Debian's newest PostgreSQL server binaries (or of ``postgres`` on PATH)."""
    found = []
    for path in Path("/usr/lib/postgresql").glob("*/bin/postgres"):
        match = re.fullmatch(r"\d+", path.parent.parent.name)
        if match and (path.parent / "initdb").exists():
            found.append((int(path.parent.parent.name), path.parent))
    if found:
        return max(found)[1]
    on_path = shutil.which("postgres")
    if on_path and shutil.which("initdb"):
        return Path(on_path).resolve().parent
    pytest.fail(
        "PostgreSQL server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin "
        "or on PATH: apt-get install postgresql (make system-deps does)",
        pytrace=False,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One throw-away PostgreSQL cluster: ``url(db)`` names a database on it."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.root = Path(tempfile.mkdtemp(prefix="pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = _free_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self.root.chmod(0o700)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        init = subprocess.run(
            [
                *self.as_postgres,
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "ladder",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            capture_output=True,
            text=True,
            timeout=PG_START_BOUND_S,
        )
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
        log = open(self.log, "wb")  # noqa: SIM115 - the server writes it until stop()
        self.process = subprocess.Popen(
            [
                *self.as_postgres,
                str(self.bin / "postgres"),
                "-D",
                str(self.data),
                "-k",
                str(self.root),
                "-p",
                str(self.port),
                "-h",
                "127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "max_connections=60",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + PG_START_BOUND_S
        problem = ""
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited at start:\n{self.log.read_text()[-2000:]}")
            try:
                with psycopg.connect(self.dsn("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError as exc:
                problem = str(exc).strip()
                time.sleep(0.1)
        raise RuntimeError(
            f"postgres did not accept connections in {PG_START_BOUND_S:g} s: {problem}"
        )

    def dsn(self, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} user=ladder dbname={database}"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://ladder@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> None:
        """Fast shutdown (SIGINT to the postmaster's PID), then remove the folder."""
        if self.process is not None:
            pid = self._postmaster_pid()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid if pid is not None else self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    server = PostgresServer()
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
