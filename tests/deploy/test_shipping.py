"""What a cluster's workers get: the working directory Ray ships (bounded, without
virtualenvs and outputs), command bots resolved where they play, and a bot that cannot
start there stopping the run with its name and the missing file. No Ray here: the
two-node cluster tests (test_cluster.py) run the same code on real workers."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from arena.errors import UserError
from arena.match.specs import BotStartError, resolve_command
from arena.tournament.ray_runner import (
    WORKING_DIR_ENV,
    WORKING_DIR_MAX_BYTES,
    GameSetup,
    play_batch,
    working_dir_runtime_env,
)
from arena.tournament.schedule import ScheduledGame


def test_relative_scripts_and_programs_resolve_in_the_working_directory(tmp_path: Path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text("print('hi')\n")
    program = tmp_path / "mybot"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    argv = resolve_command("cmd:python bots/mine.py --seed 3", cwd=tmp_path)
    assert argv == [sys.executable, str(tmp_path / "bots" / "mine.py"), "--seed", "3"]
    assert resolve_command("cmd:./mybot --x", cwd=tmp_path) == [str(program), "--x"]
    # a module, an option's value: nothing to look for
    assert resolve_command("cmd:python -m bots.random_client", cwd=tmp_path)[1:] == [
        "-m",
        "bots.random_client",
    ]
    assert resolve_command("cmd:./mybot conf/none.py", cwd=tmp_path)[1] == "conf/none.py"


@pytest.mark.parametrize(
    ("spec", "file", "why"),
    [
        ("cmd:python bots/missing.py", "bots/missing.py", "the script does not exist"),
        ("cmd:node bot.js", None, None),  # node may be absent: checked below
        ("cmd:./nobot --x", "./nobot", "the program does not exist"),
        ("cmd:./data.txt", "./data.txt", "the program is not executable"),
        ("cmd:no-such-program-anywhere", "no-such-program-anywhere", "not on PATH"),
    ],
)
def test_a_bot_that_cannot_start_is_named_with_its_file(
    tmp_path: Path, spec: str, file: str | None, why: str | None
):
    (tmp_path / "data.txt").write_text("not a program")
    if file is None:  # node: its script is missing whether or not node is installed
        with pytest.raises(BotStartError, match=r"cannot start '(node|bot\.js)'"):
            resolve_command(spec, cwd=tmp_path)
        return
    with pytest.raises(BotStartError) as caught:
        resolve_command(spec, cwd=tmp_path)
    text = str(caught.value)
    assert text.startswith(f"{spec!r}: cannot start {file!r} on {socket.gethostname()}")
    assert why in text and str(tmp_path) in text


def test_a_batch_stops_at_a_bot_that_cannot_start(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    setup = GameSetup("dziobaki", 2, {}, "t-ship")
    games = [
        ScheduledGame(i, 0, 0, 0, ("a", "b"), ("random", "cmd:python gone.py"), i, f"g{i}", f"m{i}")
        for i in range(3)
    ]
    result = play_batch(setup, games)
    assert "gone.py" in result.fatal and "cannot start" in result.fatal
    assert [g for g, _ in result.errors] == ["g0", "g1", "g2"] and not result.lines


def test_the_shipped_working_directory_is_bounded(tmp_path: Path, monkeypatch):
    (tmp_path / "bot.py").write_text("x = 1\n")
    for skipped in (".venv", "tournaments", "node_modules"):
        (tmp_path / skipped).mkdir()
    # sparse files: their size counts, they take no disk
    with open(tmp_path / ".venv" / "huge.bin", "wb") as f:
        f.truncate(WORKING_DIR_MAX_BYTES + 1)
    env = working_dir_runtime_env(tmp_path)
    assert env["working_dir"] == str(tmp_path.resolve())
    assert {".venv", "/tournaments", "node_modules", "/.cluster"} <= set(env["excludes"])
    (tmp_path / "data").mkdir()
    with open(tmp_path / "data" / "big.bin", "wb") as f:
        f.truncate(WORKING_DIR_MAX_BYTES + 1)
    with pytest.raises(UserError, match=r"biggest: data \(100 MiB\)") as caught:
        working_dir_runtime_env(tmp_path)
    assert WORKING_DIR_ENV in str(caught.value)
    monkeypatch.setenv(WORKING_DIR_ENV, "none")
    assert working_dir_runtime_env() == {}
    monkeypatch.setenv(WORKING_DIR_ENV, str(tmp_path / "bot.py"))
    with pytest.raises(UserError, match="is not a folder"):
        working_dir_runtime_env()
    monkeypatch.delenv(WORKING_DIR_ENV)
    (tmp_path / "small").mkdir()
    monkeypatch.chdir(tmp_path / "small")  # the default: the current directory
    assert working_dir_runtime_env()["working_dir"] == str((tmp_path / "small").resolve())
