"""A Ray task's batch of games, played in this process (the worker's own code, no Ray):
every spec checked once a batch, fresh bots every game, a bad spec costs only its games.
And the arena bench's worker counts (``arena bench arena --workers``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bench.arena import parse_workers
from arena.errors import UserError
from arena.match.specs import bot_builder
from arena.tournament.journal import Journal
from arena.tournament.ray_runner import BotMaker, GameSetup, play_batch
from arena.tournament.schedule import Schedule, ScheduledGame
from bots.base import BotSpecError
from tests.arena.helpers import OneGameBot, pick_game

GAME = pick_game()
ONE_GAME = "py:tests.arena.helpers:OneGameBot"


def schedule(specs: list[str], rounds: int = 1) -> list[ScheduledGame]:
    roster = [(f"bot{i}", spec) for i, spec in enumerate(specs)]
    return list(Schedule("t-batches", roster, 2, rounds, seed=5))


def test_a_batch_builds_fresh_bots_for_every_game() -> None:
    games = schedule([ONE_GAME, ONE_GAME, "random"], rounds=2)
    built = OneGameBot.built
    out = play_batch(GameSetup(GAME, 2, {}, "t-batches"), games)
    assert not out.errors and len(out.lines) == len(games) == 12
    # 8 of the 12 games seat one OneGameBot, 4 seat two of them: one bot per seat and game
    assert OneGameBot.built - built == 16
    assert all(not s.failures for s in out.summaries), "a bot was carried into another game"
    assert [gid for gid, _ in out.lines] == [g.game_id for g in games]


def test_a_bad_spec_costs_only_its_games_and_says_what_is_wrong() -> None:
    games = schedule(["random", "random:depth=3", ONE_GAME])
    out = play_batch(GameSetup(GAME, 2, {}, "t-batches"), games)
    bad = {g.game_id for g in games if "random:depth=3" in g.specs}
    assert {gid for gid, _ in out.errors} == bad and len(bad) == 4
    assert all("depth" in why for _, why in out.errors)
    assert {gid for gid, _ in out.lines} == {g.game_id for g in games} - bad


def test_the_records_of_a_batch_go_to_the_journal_once(tmp_path: Path) -> None:
    games = schedule(["random", ONE_GAME])
    out = play_batch(GameSetup(GAME, 2, {}, "t-batches"), games)
    with Journal(tmp_path / "journal.jsonl", owner="t-batches") as journal:
        assert journal.append(out.lines) == [0, 1]
        assert journal.append(out.lines) == []  # a retried task delivers the same games
        assert [journal.game_id(i) for i in range(len(journal))] == [g.game_id for g in games]


def test_a_spec_is_checked_when_its_builder_is_made() -> None:
    with pytest.raises(BotSpecError, match="depth"):
        bot_builder("random:depth=3")
    maker = BotMaker()
    a, b = maker.make(ONE_GAME, "a"), maker.make(ONE_GAME, "b")
    assert a is not b and (a.name, b.name) == ("a", "b")
    assert getattr(a, "spec", None) == ONE_GAME


@pytest.mark.parametrize(
    ("text", "counts"), [("", (1, 2)), ("4,3", (1, 2, 3, 4)), (" 2 , 6,", (1, 2, 6))]
)
def test_bench_worker_counts_always_hold_the_goal_counts(
    text: str, counts: tuple[int, ...]
) -> None:
    assert parse_workers(text) == counts


@pytest.mark.parametrize(("text", "says"), [("0", "between 1 and 64"), ("two", "'two'")])
def test_bench_worker_counts_refuse_nonsense(text: str, says: str) -> None:
    with pytest.raises(UserError, match=says):
        parse_workers(text)
