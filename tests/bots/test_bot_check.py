"""``arena bot check``: every shipped bot passes; each kind of broken bot is caught and named.

The shipped bots (the Python random client, the ISMCTS client, the Node and the Go
example bots) are checked on two games each (together they cover every game); the
broken bots (``broken_bots.py`` and ``tests/wire/scripted_bot.py``) on one short game.
A missing Node or Go toolchain fails the test with the command that installs it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.botcheck.model import CHECKS, CheckConfig, Report
from arena.botcheck.runs import check_bot
from engine import GAMES

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.server  # bot programs against the kit's game server
HERE = Path(__file__).resolve().parent
BROKEN = f"python {HERE / 'broken_bots.py'}"
SCRIPTED = f"python {ROOT / 'tests' / 'wire' / 'scripted_bot.py'}"

# The kit's clocks, where a test does not test them: generous enough for a machine many
# times slower than an idle one (a bot that hangs still fails, just later).
MOVE_MS = 30_000.0
JOIN_S = 120.0
CLOSE_S = 60.0
EXIT_S = 60.0
RELAXED = CheckConfig(move_ms=MOVE_MS, join_timeout_s=JOIN_S, close_timeout_s=CLOSE_S)
RELAXED_FLAGS = ["--move-ms", f"{MOVE_MS:g}", "--join-timeout", f"{JOIN_S:g}"]
RELAXED_FLAGS += ["--close-timeout", f"{CLOSE_S:g}"]


@pytest.fixture(autouse=True)
def generous_exit_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program may take EXIT_S (not 2 s) to exit after GameOver: on a busy machine a
    Python bot's interpreter shutdown alone can take seconds. The kit's module is
    looked up from ``check_bot``, wherever it lives."""
    monkeypatch.setattr(sys.modules[check_bot.__module__], "EXIT_GRACE_S", EXIT_S)


def _table(report: Report) -> str:
    return "\n".join(
        f"{g.game} {c.check}: {c.status}: {c.detail}" for g in report.games for c in g.checks
    )


def _assert_passes(report: Report, games: list[str]) -> None:
    assert [g.game for g in report.games] == games
    assert report.ok, _table(report)
    for g in report.games:
        assert [c.check for c in g.checks] == list(CHECKS)
        assert all(c.status == "pass" for c in g.checks), _table(report)
        assert [r.name for r in g.runs] == ["game 1", "game 2", "graceful shutdown", "lost server"]
        assert all(r.joined and r.exit_code is not None for r in g.runs)


# -- the shipped bots pass ------------------------------------------------------------------


def test_python_random_client_passes() -> None:
    games = ["zooloretto_mini", "manatee_sanctuary"]
    _assert_passes(check_bot("python -m bots.random_client --seed 3", games, RELAXED), games)


@pytest.mark.slow
def test_ismcts_client_passes() -> None:
    games = sorted(GAMES)
    report = check_bot("python -m bots.ismcts_client --iterations 10 --seed 1", games, RELAXED)
    _assert_passes(report, games)


@pytest.mark.toolchain
@pytest.mark.xdist_group("node")
def test_node_bot_passes(node_bot: str) -> None:
    games = ["zooloretto_mini", "dziobaki"]
    _assert_passes(check_bot(node_bot, games, RELAXED), games)


@pytest.mark.toolchain
@pytest.mark.xdist_group("go")
def test_go_bot_passes(go_bot: str) -> None:
    games = ["carson_city_zoo", "panorama"]
    _assert_passes(check_bot(go_bot.split(), games, RELAXED), games)


# -- broken bots are caught and named ---------------------------------------------------------

BROKEN_CASES = {
    "never joins": (
        f"{BROKEN} --mode never-join",
        CheckConfig(join_timeout_s=2.0),  # it never joins, however long it is given
        "join",
        ["no Join with its credential within 2 s", "stderr: broken bot: never joined"],
    ),
    "too slow": (
        f"{SCRIPTED} --mode slow --at 2 --sleep 0.5",
        CheckConfig(move_ms=300.0, join_timeout_s=JOIN_S, close_timeout_s=CLOSE_S),
        "deadline",
        ["late answer", "no move within 300 ms"],
    ),
    "illegal moves": (
        f"{SCRIPTED} --mode index --at 2",
        RELAXED,
        "legal",
        ["illegal move", "index 999 is out of range"],
    ),
    "crashes at game over": (
        f"{BROKEN} --mode crash-at-game-over",
        RELAXED,
        "game_end",
        ["exited with status 1 at GameOver", "RuntimeError: broken bot: crash at game over"],
    ),
    "crashes mid-game": (
        f"{SCRIPTED} --mode crash --at 3",
        RELAXED,
        "game_end",
        ["left before GameOver", "exited with code 1"],
    ),
    "hangs after the server closes": (
        f"{BROKEN} --mode hang-after-close",
        # it never exits after a close, however long it is given
        CheckConfig(move_ms=MOVE_MS, join_timeout_s=JOIN_S, close_timeout_s=2.0),
        "server_close",
        ["graceful shutdown", "still running 2 s after the server closed", "lost server"],
    ),
}


@pytest.mark.parametrize("case", list(BROKEN_CASES))
def test_broken_bot_is_caught_and_named(case: str) -> None:
    command, config, failing, words = BROKEN_CASES[case]
    report = check_bot(command, ["dziobaki"], config)
    assert not report.ok
    (game,) = report.games
    status = {c.check: c.status for c in game.checks}
    assert status[failing] == "fail", _table(report)
    others = {k: v for k, v in status.items() if k != failing}
    assert "fail" not in others.values(), _table(report)  # the right check is named
    detail = next(c.detail for c in game.checks if c.check == failing)
    for word in words:
        assert word in detail, detail
    if failing == "join":
        assert set(others.values()) == {"skip"}
    from tests.procs import unreaped_child

    for run in game.runs:  # every program was stopped and reaped, even a hanging one
        assert run.pid is not None
        assert unreaped_child(run.pid) is None, f"{run.name}: pid {run.pid} not reaped"


# -- the command line ---------------------------------------------------------------------


def test_cli_json_for_a_good_bot(run_cli: Any) -> None:
    proc = run_cli(
        "bot", "check", "python -m bots.random_client", "--game", "dziobaki", "--json",
        *RELAXED_FLAGS,
    )  # fmt: skip
    assert proc.exit_code == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["ok"] is True
    assert data["command"] == "python -m bots.random_client"
    (game,) = data["games"]
    assert game["game"] == "dziobaki"
    assert [(c["check"], c["status"]) for c in game["checks"]] == [(k, "pass") for k in CHECKS]
    assert len(game["runs"]) == 4


def test_cli_table_and_exit_status_for_a_broken_bot(run_cli: Any) -> None:
    cmd = ["python", str(HERE / "broken_bots.py"), "--mode", "crash-at-game-over"]
    proc = run_cli("bot", "check", "--game", "dziobaki", *RELAXED_FLAGS, "--", *cmd)
    assert proc.exit_code == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "survives game end" in out
    assert "FAIL" in out
    assert "1 of 5 checks failed (dziobaki: survives game end)" in out
    assert "RuntimeError: broken bot: crash at game over" in out  # the bot's stderr


def test_cli_unknown_game_is_a_user_error(run_cli: Any) -> None:
    proc = run_cli("bot", "check", "python -m bots.random_client", "--game", "chess")
    assert proc.exit_code == 2
    assert "unknown game(s) chess" in proc.stderr
