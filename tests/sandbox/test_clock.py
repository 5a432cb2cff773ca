"""The arena clocks in-process bots (issue 17, part 3): a decision stuck in a loop is
stopped and recorded as a ``timeout`` of its seat, the match and the tournament finish,
other games are unaffected; a decision that cannot be stopped ends its Ray worker."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from arena.match.clock import DecisionTimeout, Watchdog, clocked
from arena.match.records import verify_record
from arena.match.runner import MatchConfig, MatchSpec, play_match
from arena.tournament.config import load_config
from arena.tournament.journal import read_journal
from arena.tournament.run import run_tournament
from bots.random_bot import RandomBot
from tests.sandbox.inprocess_bots import LoopBot

LOOP = "py:tests.sandbox.inprocess_bots:LoopBot"


def test_an_endless_loop_is_a_timeout_of_its_seat() -> None:
    spec = MatchSpec("dziobaki", 2, seed=3)
    record = play_match(spec, [RandomBot(), LoopBot()], MatchConfig(move_ms=50))
    assert verify_record(record).ok
    failures = [(e["seat"], e["kind"]) for e in record["events"]]
    assert failures == [(1, "timeout"), (1, "forfeit")]
    assert record["events"][0]["reason"].startswith("stopped by the arena after")
    assert record["standing"]["forfeited"] == [1]
    assert record["usage"][1]["cpu_ms"] > 0 and record["usage"][0]["peak_kb"] is None


def test_unclocked_matches_are_bounded_too() -> None:
    spec = MatchSpec("dziobaki", 2, seed=3)
    config = MatchConfig(move_ms=None, on_failure="random", max_move_s=0.05)
    record = play_match(spec, [LoopBot(), RandomBot()], config)
    timeouts = [e for e in record["events"] if e["kind"] == "timeout"]
    seat0_moves = [s for s in record["steps"] if s["seat"] == 0]
    assert len(timeouts) == len(seat0_moves) > 1, "every move of seat 0 stopped, none forfeits"


def test_no_deadline_outlives_its_decision() -> None:
    """Deadlines that expire just as decisions return: DecisionTimeout reaches only the
    decision (or is withdrawn), never the code after it."""
    watchdog = Watchdog()
    outcomes = {"returned": 0, "stopped": 0}

    def spin(n: int) -> int:
        return sum(range(n))

    for i in range(300):
        try:
            clocked(0.0002, spin, 200 * (i % 50), watchdog)
            outcomes["returned"] += 1
        except DecisionTimeout:
            outcomes["stopped"] += 1
        time.sleep(0.0005)  # a late DecisionTimeout would land here and fail the test
    assert watchdog.pending() == 0
    assert sum(outcomes.values()) == 300


def test_a_decision_that_cannot_be_stopped_calls_the_stuck_handler() -> None:
    watchdog = Watchdog(stuck_grace_s=0.2)
    stuck: list[str] = []
    watchdog.on_stuck = stuck.append
    raised: list[BaseException] = []

    def decide() -> None:
        try:
            clocked(0.05, time.sleep, 1.0, watchdog)  # in C: DecisionTimeout waits
        except DecisionTimeout as exc:
            raised.append(exc)

    thread = threading.Thread(target=decide)
    thread.start()
    thread.join(10)
    assert len(stuck) == 1 and "does not return to the interpreter" in stuck[0]
    assert len(raised) == 1, "stopped as soon as it came back to Python"
    assert watchdog.pending() == 0


@pytest.mark.server
@pytest.mark.xdist_group("ray")
@pytest.mark.usefixtures("ray_cluster")
def test_a_tournament_with_a_looping_bot_finishes(tmp_path: Path) -> None:
    cfg = load_config(
        None,
        {
            "game": "dziobaki",
            "bots": [LOOP, "random", "random"],
            "seed": 5,
            "workers": 2,
            "move_ms": 200,
            "tracking": False,
            "out": str(tmp_path / "out"),
        },
    )
    result = run_tournament(cfg, quiet=True, progress=False)
    assert result.complete
    records = list(read_journal(tmp_path / "out" / "journal.jsonl"))
    assert len(records) == 6  # 3 pairs x 2 seat rotations
    for record in records:
        specs = [p["spec"] for p in record["players"]]
        failures = [(e["seat"], e["kind"]) for e in record["events"]]
        if LOOP in specs:
            seat = specs.index(LOOP)
            assert failures == [(seat, "timeout"), (seat, "forfeit")], failures
        else:
            assert failures == [], "the other games are unaffected"
        assert verify_record(record).ok
