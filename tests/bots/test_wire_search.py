"""Search bots over the wire: the state tracker and the ISMCTS command bot.

The tracker rebuilds, from a seat's observations only, a state that shows exactly what
the seat saw; the ISMCTS client plays through the arena's gRPC server with it.
"""

from __future__ import annotations

import random
import re
import sys

import pytest

from arena.cmdbots import open_bots
from arena.match import MatchConfig, MatchSpec
from bots.tracker import StateTracker, flatten
from engine import CHANCE, GAMES
from engine.core import sample_outcome


def _syncs(game_id: str, players: int, seed: int, turns: int) -> tuple[int, int]:
    """(successful, attempted) syncs of seat 1's tracker over a random game."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    state = game.new_game(players)
    seat = 1
    tracker = StateTracker(game, players, {}, seat, random.Random(seed))
    ok = tried = 0
    while not state.is_terminal() and tried < turns:
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        if state.current_player == seat:
            tried += 1
            step = len(state.history)
            found = tracker.sync(state.observation(seat), step, [a.to_json() for a in legal])
            if found is not None:
                ok += 1
                assert flatten(found.observation(seat)) == flatten(state.observation(seat))
                assert found.legal_actions() == legal
            tracker.played(action, step)
        state.apply(action)
    return ok, tried


def test_tracker_rebuilds_dziobaki_with_hidden_commitments() -> None:
    """Seat 1 never sees seat 0's commitment of the round, yet every turn is rebuilt."""
    ok, tried = _syncs("dziobaki", 2, seed=3, turns=12)
    assert ok == tried == 12


def test_tracker_rebuilds_panorama_turns() -> None:
    ok, tried = _syncs("panorama", 2, seed=2, turns=8)
    assert tried == 8 and ok >= 6


@pytest.mark.parametrize("game_id", ["dziobaki", "zooloretto_mini"])
def test_ismcts_client_plays_over_grpc(game_id: str) -> None:
    cmd = f"cmd:{sys.executable} -m bots.ismcts_client --iterations 20 --seed 1"
    with open_bots([cmd, "random"], MatchSpec(game_id, 2, 4), MatchConfig(move_ms=5000)) as s:
        record = s.play()
    incidents = [e for e in record["events"] if e["kind"] != "stderr"]
    assert incidents == [], incidents
    tail = " ".join(e["reason"] for e in record["events"] if e["kind"] == "stderr")
    # every move was searched on a rebuilt state
    assert re.search(r"(?<!\d)0 of \d+ moves without a rebuilt state", tail), tail
