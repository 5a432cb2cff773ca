"""The example bots in other languages (bots/node, bots/go) against a real game server.

Each is built first (``npm ci`` from the committed package-lock.json; ``make -C bots/go``,
which generates the Go code from the project's proto files), then plays a complete game
of every registered game as a ``cmd:`` seat of an arena match (the arena's embedded gRPC
server) against the in-process random bot. A missing toolchain fails the test with the
command that installs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


@pytest.mark.toolchain
@pytest.mark.xdist_group("node")
def test_bench_grpc_times_the_node_bot(node_bot: str, run_cli: Any) -> None:
    """``arena bench grpc --clients node``: the Node bot is the client of real matches
    and its row splits the move into the server's part and the rest."""
    _bench_row(run_cli, "node")


@pytest.mark.toolchain
@pytest.mark.xdist_group("go")
def test_bench_grpc_times_the_go_bot(go_bot: str, run_cli: Any) -> None:
    _bench_row(run_cli, "go")


def _bench_row(run_cli: Any, client: str) -> None:
    done = run_cli(
        "bench", "grpc", "--json", "--moves", "30", "--matches", "0", "--clients", client,
        "--repeats", "1", "--max-repeats", "1",
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    rows = json.loads(done.stdout)["clients"]
    row = rows[client]
    assert "skipped" not in row, row
    assert row["moves"] >= 30 and 0 < row["server_us"] < row["cycle_us"]
    assert row["client_us"] is None
    both = row["cycle_us"] - row["server_us"]  # (each rounded to 0.1 us)
    assert row["client_and_transport_us"] == pytest.approx(both, abs=0.2)
