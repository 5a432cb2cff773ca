"""The lobby tests' kit: a ladder with hosted bots and one remote bot, its token, a
lobby bot program in its own process, a runner driving the ladder with the lobby."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.ladder.remote import RemoteMatches
from arena.ladder.runner import LadderRunner, RunnerConfig, RunSummary
from arena.ladder.store import LadderStore
from arena.ladder.tokens import Tokens
from tests.ladder.helpers import REPO, cli_env

LADDER = "zoo"
REMOTE = "far"
BOUND_S = 60.0
"""Generous bound of any wait in these tests (a safety net, never the expected time)."""


def remote_ladder(store: LadderStore, game: str = "dziobaki") -> str:
    """A 2-player ladder with two hosted bots and the remote bot ``far``; its token."""
    store.create_ladder(LADDER, game, 2)
    store.add_version(LADDER, "rnd", spec="random", status="active")
    store.add_version(LADDER, "grd", spec="greedy", status="active")
    store.add_version(LADDER, REMOTE, kind="remote", status="active")
    _info, token = Tokens(store).issue(LADDER, REMOTE)
    return token


def python_bot(address: str, token: str, *extra: str) -> subprocess.Popen[str]:
    """The random SDK bot in lobby mode, in its own process."""
    return subprocess.Popen(
        [sys.executable, "-m", "bots.random_client", "--lobby", address, "--token", token, *extra],
        cwd=REPO,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def program_bot(argv: Sequence[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        list(argv),
        cwd=REPO,
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(process: subprocess.Popen[str]) -> str:
    """Terminate (if still running) and reap the bot; its stderr."""
    if process.poll() is None:
        process.terminate()
    try:
        _out, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        _out, err = process.communicate(timeout=10)
    return err


def run_ladder(store: LadderStore, home: Path, remote: RemoteMatches, games: int) -> RunSummary:
    config = RunnerConfig(workers=0, games=games, tracking=False, idle_s=0.5)
    runner = LadderRunner(
        store, LADDER, home=home, config=config, log=lambda _: None, remote=remote
    )
    return runner.run()


def remote_games(store: LadderStore) -> int:
    """Done matches with the remote bot in a seat."""
    far = store.version(LADDER, REMOTE).id
    return sum(1 for m in store.matches(LADDER, statuses=["done"]) if far in m.seats)
