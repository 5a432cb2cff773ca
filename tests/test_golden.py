"""Golden playthroughs: one seeded random game per registered game, checked in as text.

Any change to rules, encoding or chance order shows up as a diff of
``tests/golden/<game>.txt``. After an intended change, regenerate with
``UPDATE_GOLDEN=1 pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.match.runner import MatchSpec, play_match
from bots.random_bot import RandomBot
from engine import GAMES, Game

GOLDEN = Path(__file__).parent / "golden"
SEED = 20261130


def golden_players(game: Game) -> int:
    return min(max(game.min_players, 3), game.max_players)


def playthrough_text(game_id: str) -> str:
    game = GAMES[game_id]
    n = golden_players(game)
    record = play_match(MatchSpec(game_id, n, SEED), [RandomBot() for _ in range(n)])
    lines = [f"# {game_id} v{game.version}, {n} players, seed {SEED}, random bots"]
    for k, step in enumerate(record["steps"], 1):
        lines.append(f"{k:4d} {step['seat']!s:>6}  {json.dumps(step['action'], sort_keys=True)}")
    lines.append("result " + json.dumps(record["result"], sort_keys=True))
    lines.append("digest " + record["digest"])
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_golden_playthrough(game_id: str) -> None:
    path = GOLDEN / f"{game_id}.txt"
    text = playthrough_text(game_id)
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    if not path.exists():
        pytest.fail(
            f"{path} is missing: run UPDATE_GOLDEN=1 pytest tests/test_golden.py -k {game_id}"
        )
    assert text == path.read_text(), f"{game_id} playthrough differs from {path}"
