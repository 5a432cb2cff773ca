"""The policy example of envs/: self-play REINFORCE (envs.reinforce) trains and saves a
policy that plays only legal moves, its SDK bot (envs.policy_bot) passes
``arena bot check`` and plays a tournament (envs/policy_tournament.yaml) end to end."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from arena.botcheck.model import CheckConfig
from arena.botcheck.runs import check_bot
from engine.core import sample_outcome
from engine.registry import get_game
from envs.reinforce import LinearPolicy, choose_index, train, win_rate
from tests.cli import CliResult

GAME = "panorama"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("policy") / f"{GAME}.npz"
    train(GAME, 2, episodes=15, seed=3).save(path)
    return path


def test_training_changes_the_policy_and_it_saves_and_loads(policy_file: Path) -> None:
    policy = LinearPolicy.load(policy_file)
    assert policy.game_id == GAME
    assert np.abs(policy.weights).sum() > 0, "training left the weights at zero"
    game = get_game(GAME)
    rng = random.Random(5)
    state = game.new_game(3, None)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        legal = state.legal_actions()
        state.apply(legal[choose_index(policy, state.observation(state.current_player), legal)])
    assert 0.0 <= win_rate(policy, "random", games=4, seed=1) <= 1.0


def test_a_policy_of_another_shape_is_refused(tmp_path: Path) -> None:
    wrong = LinearPolicy(GAME, np.zeros((3, 4)), np.zeros(3))
    wrong.save(tmp_path / "wrong.npz")
    with pytest.raises(ValueError, match="needs"):
        LinearPolicy.load(tmp_path / "wrong.npz")


@pytest.mark.server  # a bot program against the kit's game server
def test_the_policy_bot_passes_arena_bot_check(
    policy_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.modules[check_bot.__module__], "EXIT_GRACE_S", 60.0)
    config = CheckConfig(move_ms=30_000.0, join_timeout_s=120.0, close_timeout_s=60.0)
    report = check_bot(f"python -m envs.policy_bot --policy {policy_file}", [GAME], config)
    details = [(c.check, c.status, c.detail) for g in report.games for c in g.checks]
    assert report.ok, details


@pytest.mark.server  # command bots (a subprocess each) against the arena's game server
def test_the_policy_bot_plays_a_tiny_tournament(
    tmp_path: Path, run_cli: Callable[..., CliResult]
) -> None:
    """The README's tournament config, cut to the policy against random (one game in each
    seat order): both games are journaled with a result, the policy never failed a move."""
    out = tmp_path / "tournament"
    result = run_cli(
        "tournament", "envs/policy_tournament.yaml", "--bots", "policy,random",
        "--rounds", "1", "--workers", "0", "--no-tracking", "--no-progress",
        "--out", out, cwd=ROOT,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    assert len(records) == 2
    seats = []
    for record in records:
        names = [p["name"] for p in record["players"]]
        assert sorted(names) == ["policy", "random"]
        seat = names.index("policy")
        seats.append(seat)
        assert len(record["result"]["ranks"]) == 2
        assert record["standing"]["forfeited"] == [] and record["events"] == []
        assert any(step["seat"] == seat for step in record["steps"]), "the policy never moved"
    assert sorted(seats) == [0, 1]
    assert "policy" in (out / "leaderboard.md").read_text()
