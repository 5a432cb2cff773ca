"""The client tools' test kit: a game server with an admin token, the CLI as a process."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.server.app import GameServer
from tests.wire.helpers import running_server

TOKEN = "s3cret-admin-token"
"""The admin token of the tests' servers."""

WAIT_S = 120.0
"""The bound of a wait: reached only when what is awaited never comes."""

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def admin_server() -> Iterator[GameServer]:
    """An embedded game server on 127.0.0.1 whose admin calls need :data:`TOKEN`."""
    with running_server(admin_token=TOKEN) as server:
        yield server


def cli_env(tmp_path: Path) -> dict[str, str]:
    """The environment of an ``arena`` process: no admin token, its own match history,
    unbuffered output (a test reads it line by line)."""
    env = {k: v for k, v in os.environ.items() if k != "MENAGERIE_ADMIN_TOKEN"}
    env["MENAGERIE_MATCH_HISTORY"] = str(tmp_path / "matches.jsonl")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def arena_process(
    *args: str, tmp_path: Path, stdin: int | None = subprocess.PIPE
) -> subprocess.Popen[str]:
    """``python -m arena.cli ARGS`` as a real process (text pipes; the caller reaps it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=cli_env(tmp_path),
    )


def read_until(proc: subprocess.Popen[str], text: str) -> str:
    """What ``proc`` wrote to stdout up to and including ``text`` (bounded by WAIT_S).

    Raw reads of the pipe: ``text`` may end without a newline (a prompt), and select
    knows nothing of a file object's buffer. Later output is read with :func:`finish`.
    """
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    seen = b""
    deadline = time.monotonic() + WAIT_S
    while text.encode() not in seen:
        assert time.monotonic() < deadline, f"no {text!r} in {WAIT_S:g} s: {seen!r}"
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                raise AssertionError(f"the output ended before {text!r}: {seen!r}")
            seen += chunk
    return seen.decode()


def finish(proc: subprocess.Popen[str], stdin: str | None = None) -> tuple[int, str, str]:
    """Feed ``stdin``, wait (bounded), return (exit code, stdout, stderr); kills on timeout."""
    try:
        out, err = proc.communicate(stdin, timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"arena did not finish in {WAIT_S:g} s:\n{out}\n{err}") from None
    return proc.returncode, out, err
