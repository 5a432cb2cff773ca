"""Golden playthroughs: one seeded random game per registered game, checked in as text, with
what every seat and the spectator observed along the way (as OpenSpiel's playthrough files).

``tests/golden/<game>.txt`` holds a header line, then one line per step (its number, the
seat or ``chance``, the action's JSON), the result and the final digest. Interleaved with
the steps, a snapshot of the observations: one line per seat and one for the spectator,
``     obs <seat|spectator> <observation as canonical JSON>``, taken before the first step,
after every K-th step and after the last one. K is ``max(1, steps // OBS_SNAPSHOTS)`` for a
playthrough of ``steps`` steps, so that a file holds some 16 to 20 snapshots whatever the
game's length (17 to 20 today); the header line states K.

So the files prove that the rules, the action encoding and the chance order are unchanged
(the steps, result and digest), and that what each seat is shown is unchanged too (the
``obs`` lines): a change to an observation, a field added to one, or hidden information
that starts to leak shows up as a diff of the ``obs`` lines in review. The observations are
those of the recorded steps replayed on a fresh game, which must reach the recorded digest.

After an intended change, regenerate with ``UPDATE_GOLDEN=1 pytest tests/test_golden.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.match.runner import MatchSpec, play_match
from bots.random_bot import RandomBot
from engine import GAMES, Game, State
from tests.games.kit import obs_json

GOLDEN = Path(__file__).parent / "golden"
SEED = 20261130
OBS_SNAPSHOTS = 16
"""About how many observation snapshots a golden file holds (K = steps // OBS_SNAPSHOTS)."""


def golden_players(game: Game) -> int:
    return min(max(game.min_players, 3), game.max_players)


def observation_lines(state: State) -> list[str]:
    """One ``obs`` line per seat, then the spectator's."""
    seats: list[int | None] = [*range(state.num_players), None]
    return [f"     obs {'spectator' if s is None else s} {obs_json(state, s)}" for s in seats]


def playthrough_text(game_id: str) -> str:
    game = GAMES[game_id]
    n = golden_players(game)
    spec = MatchSpec(game_id, n, SEED)
    record = play_match(spec, [RandomBot() for _ in range(n)])
    steps = record["steps"]
    every = max(1, len(steps) // OBS_SNAPSHOTS)
    lines = [
        f"# {game_id} v{game.version}, {n} players, seed {SEED}, random bots, "
        f"observations every {every} steps"
    ]
    state = game.new_game(n, spec.options)
    lines += observation_lines(state)
    for k, step in enumerate(steps, 1):
        lines.append(f"{k:4d} {step['seat']!s:>6}  {json.dumps(step['action'], sort_keys=True)}")
        state.apply(game.action_from_json(step["action"]))
        if k % every == 0 or k == len(steps):
            lines += observation_lines(state)
    assert state.digest() == record["digest"], "the replayed steps do not reach the record"
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
