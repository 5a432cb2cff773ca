"""Misbehaving command bots (issue 7, item 5): recorded with seat and reason, policy applied.

Each scripted bot is a real process started by ``arena.match.cmdbots`` (as ``arena play``
does); the match always finishes and its record replays. Under ``forfeit`` the seat is
ranked last and its process killed; under ``random`` only the one move is replaced.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from arena.match.cmdbots import open_bots
from arena.match.records import verify_record
from arena.match.runner import MatchConfig, MatchSpec
from arena.server.hub import ServerConfig
from tests.wire.helpers import SCRIPTED

pytestmark = pytest.mark.server  # bot programs against the embedded game server
RANDOM_CMD = f"cmd:{sys.executable} -m bots.random_client --seed 2"
OPTIONS = {"start_player": 0}  # seat 0 (the scripted bot) moves first
MOVE_MS = 60_000.0  # the move clock where a test is not about it: only a hang misses it


def play(
    mode: str,
    *,
    at: int = 2,
    move_ms: float | None = MOVE_MS,
    policy: str = "forfeit",
    extra: str = "",
    other: str = "random",
    first: str | None = None,
    server_config: ServerConfig | None = None,
) -> tuple[dict[str, Any], list[Any]]:
    """A match of the scripted bot (seat 0, or ``first``) against ``other``."""
    specs = [first or f"{SCRIPTED} --mode {mode} --at {at} {extra}".strip(), other]
    spec = MatchSpec("zooloretto_mini", 2, seed=4, options=OPTIONS)
    config = MatchConfig(move_ms=move_ms, on_failure=policy)  # type: ignore[arg-type]  # a str, not the Literal
    with open_bots(specs, spec, config, server_config=server_config) as session:
        record = session.play()
        processes = list(session.processes)
    assert verify_record(record).ok, "the match finished and replays"
    for p in processes:
        assert p.proc.poll() is not None, "the bot process is reaped"
    return record, processes


def events(record: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in record["events"] if e["kind"] == kind]


def test_illegal_move_forfeits() -> None:
    record, procs = play("index")
    (illegal,) = events(record, "illegal")
    assert illegal["seat"] == 0 and illegal["reason"].startswith("index 999 is out of range 0..")
    (forfeit,) = events(record, "forfeit")
    assert forfeit["seat"] == 0 and forfeit["reason"].startswith("illegal: seat 0 forfeits")
    assert record["standing"] == {"ranks": [2, 1], "forfeited": [0]}
    assert procs[0].killed_because.startswith("illegal")


def test_illegal_typed_action_under_random_policy_replaces_one_move() -> None:
    record, procs = play("action", policy="random")
    (illegal,) = events(record, "illegal")
    assert illegal["seat"] == 0
    assert illegal["reason"].startswith("malformed action: take_truck.truck must be one of")
    assert not events(record, "forfeit") and record["standing"]["forfeited"] == []
    assert procs[0].killed_because == "", "under the random policy the bot plays on"
    assert procs[0].proc.returncode == 0


def test_missed_deadline_is_a_timeout() -> None:
    # (on a very busy machine the first answer may be late already: the same event)
    record, _procs = play("slow", move_ms=300, extra="--sleep 1.5")
    (timeout,) = events(record, "timeout")
    assert timeout["seat"] == 0 and timeout["reason"] == "no move within 300 ms (+50 ms margin)"
    assert record["standing"]["forfeited"] == [0]


def test_process_exit_is_a_disconnect_with_its_stderr() -> None:
    record, _procs = play("exit", extra="--code 3")
    (disconnect,) = events(record, "disconnect")
    assert disconnect["seat"] == 0
    assert "the process exited with code 3" in disconnect["reason"]
    (stderr,) = events(record, "stderr")
    assert stderr["seat"] == 0 and "scripted bot: exiting on purpose" in stderr["reason"]
    assert record["standing"]["forfeited"] == [0]


def test_closed_stream_is_a_disconnect() -> None:
    record, procs = play("close")
    (disconnect,) = events(record, "disconnect")
    assert disconnect["seat"] == 0 and "closed" in disconnect["reason"]
    assert procs[0].killed_because.startswith("disconnect"), "the process is killed"


def test_silent_bot_stalls() -> None:
    # the stall ends the match (a hang would fail the test by pytest's timeout)
    config = ServerConfig(stall_ms=800)
    record, procs = play("silent", move_ms=None, server_config=config)
    (stall,) = events(record, "stall")
    assert (
        stall["seat"] == 0
        and stall["reason"] == "connected but silent for 0.8 s with a turn pending"
    )
    assert procs[0].killed_because.startswith("stall")


def test_crashing_bot_is_a_disconnect_with_traceback() -> None:
    record, _procs = play("crash")
    (disconnect,) = events(record, "disconnect")
    assert disconnect["seat"] == 0
    (stderr,) = events(record, "stderr")
    assert "RuntimeError: scripted crash" in stderr["reason"]


def test_bad_command_line_is_a_user_error() -> None:
    from bots.base import BotSpecError

    spec = MatchSpec("zooloretto_mini", 2, seed=1)
    with (
        pytest.raises(BotSpecError, match="cannot start"),
        open_bots(["cmd:/nonexistent/bot", "random"], spec, MatchConfig()),
    ):
        pass


def test_bot_that_never_joins_is_a_disconnect() -> None:
    # seat 0 plays in-process: no other program has to join within the short join timeout
    config = ServerConfig(join_timeout_s=1.0)
    never = f"cmd:{sys.executable} -c 'import time; time.sleep(600)'"
    record, _ = play("good", first="random", other=never, server_config=config)
    (disconnect,) = events(record, "disconnect")
    assert disconnect["seat"] == 1 and disconnect["reason"].startswith(
        "the bot did not join within 1 s"
    )


def test_children_of_a_bot_are_killed_after_the_match() -> None:
    # the pidfile goes in the bot's workdir: the sandbox lets it write nowhere else
    record, processes = play("child", extra="--pidfile child.pid")
    assert record["events"] == []
    from tests.procs import processes_of

    (bot,) = processes
    assert bot.launch is not None, "command bots run in the sandbox, as a private uid"
    left = processes_of(bot.launch.uid)
    assert left == [], f"the bot's processes {left} are still alive"
