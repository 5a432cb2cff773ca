"""Where the machine cannot sandbox, command bots are refused with the reason, unless
``--allow-unsandboxed`` runs them after a loud warning (issue 17, part 2). The sandbox is
made unavailable for real: its folder cannot be created (``MENAGERIE_SANDBOX_ROOT`` under
a file), in a fresh ``arena`` process (the probe is done once per process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.server  # arena processes that start bot programs

BOT = f"cmd:{sys.executable} -m bots.random_client"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MENAGERIE_SANDBOX_ROOT": "/dev/null/sandbox"}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_play_refuses_command_bots_without_a_sandbox() -> None:
    out = arena("play", "dziobaki", "--bots", f"{BOT},random")
    assert out.returncode == 2, out.stderr
    assert "cannot sandbox command bots here: cannot create the sandbox folder" in out.stderr
    assert "--allow-unsandboxed" in out.stderr


def test_allow_unsandboxed_plays_with_a_loud_warning() -> None:
    out = arena("play", "dziobaki", "--bots", f"{BOT},random", "--allow-unsandboxed")
    assert out.returncode == 0, out.stderr
    assert "WARNING: command bots run UNSANDBOXED" in out.stderr
    assert "event at step" not in out.stdout, "the program played its seat"


def test_in_process_bots_need_no_sandbox() -> None:
    out = arena("play", "dziobaki", "--bots", "random,greedy")
    assert out.returncode == 0 and "UNSANDBOXED" not in out.stderr, out.stderr


def test_a_tournament_refuses_before_its_first_game(tmp_path: os.PathLike[str]) -> None:
    out = arena(
        "tournament",
        "--game",
        "dziobaki",
        "--bots",
        f"{BOT},random",
        "--no-tracking",
        "--out",
        os.path.join(tmp_path, "out"),
        "--no-progress",
    )
    assert out.returncode == 2, out.stderr
    assert "cannot sandbox command bots here" in out.stderr
    journal = Path(tmp_path) / "out" / "journal.jsonl"
    assert not journal.exists() or not journal.read_text().strip(), "no game was played"
