"""The example bots in other languages (bots/node, bots/go) against a real game server.

Each is built first (``npm ci`` from the committed package-lock.json; ``make -C bots/go``,
which generates the Go code from the project's proto files), then plays a complete game
of every registered game as a ``cmd:`` seat of an arena match (the arena's embedded gRPC
server) against the in-process random bot. A missing toolchain fails the test with the
command that installs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.match.cmdbots import open_bots
from arena.match.runner import MatchConfig, MatchSpec
from engine import GAMES

ROOT = Path(__file__).resolve().parents[2]
INCIDENTS = {"illegal", "timeout", "crash", "stall", "disconnect", "forfeit"}
MOVE_MS = 60_000  # a clock that fails a move only if the bot hangs, even on a busy machine


def _play(cmd: str, game_id: str, seed: int = 3) -> dict:
    game = GAMES[game_id]
    n = 2 if 2 in game.player_counts() else game.min_players
    specs = [cmd, "random"][:n]
    with open_bots(specs, MatchSpec(game_id, n, seed), MatchConfig(move_ms=MOVE_MS)) as session:
        record = session.play()
    incidents = [e for e in record["events"] if e["kind"] in INCIDENTS]
    assert incidents == [], incidents
    assert len(record["result"]["scores"]) == n
    return record


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.toolchain
@pytest.mark.xdist_group("node")
def test_node_bot_plays_every_game(node_bot: str, game_id: str) -> None:
    _play(f"cmd:{node_bot}", game_id)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.toolchain
@pytest.mark.xdist_group("go")
def test_go_bot_plays_every_game(go_bot: str, game_id: str) -> None:
    _play(f"cmd:{go_bot}", game_id)


@pytest.mark.toolchain
@pytest.mark.xdist_group("node")
def test_node_bot_reads_zooloretto_observations(node_bot: str) -> None:
    """Its Zooloretto Mini play (typed observation) beats random play."""
    mine = other = 0.0
    for seed in (1, 2):
        scores = _play(f"cmd:{node_bot}", "zooloretto_mini", seed)["result"]["scores"]
        mine += scores[0]
        other += scores[1]
    assert mine > other


@pytest.mark.toolchain
@pytest.mark.xdist_group("go")
def test_go_bot_reads_carson_observations(go_bot: str) -> None:
    """Its Carson City Zoo play (typed observation) beats random play."""
    mine = other = 0.0
    for seed in (1, 2):
        scores = _play(f"cmd:{go_bot}", "carson_city_zoo", seed)["result"]["scores"]
        mine += scores[0]
        other += scores[1]
    assert mine > other
