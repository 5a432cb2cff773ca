"""Search bots over the wire: the ISMCTS command bot on rebuilt states.

Over gRPC the bot receives only its observation; each turn it rebuilds a full state with
``game.from_observation`` and searches on it. Every game must be playable this way with
no move falling back to a random one.
"""

from __future__ import annotations

import re
import sys

import pytest

from arena.match.cmdbots import open_bots
from arena.match.runner import MatchConfig, MatchSpec
from arena.match.specs import make_bot
from bots import sdk
from bots.ismcts_client import WireSearchBot
from engine import GAMES

# every game at 2 players, plus solo games and full tables (other observation shapes)
CASES = [(g, max(2, GAMES[g].min_players)) for g in sorted(GAMES)] + [
    ("dziobaki", 1),
    ("manatee_sanctuary", 1),
    ("manatee_sanctuary", 4),
    ("carson_city_zoo", 4),
    ("zooloretto_mini", 5),
]


@pytest.mark.server
@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_ismcts_client_plays_every_game_over_grpc(game_id: str, players: int) -> None:
    cmd = f"cmd:{sys.executable} -m bots.ismcts_client --iterations 20 --seed 1"
    with open_bots(
        [cmd, *["random"] * (players - 1)],
        MatchSpec(game_id, players, 4),
        # a clock that fails a move only if the bot hangs: on a busy machine the first
        # search (imports, rebuilding the state) took more than 5 s
        MatchConfig(move_ms=60_000),
    ) as session:
        record = session.play()
    incidents = [e for e in record["events"] if e["kind"] != "stderr"]
    assert incidents == [], incidents
    tail = " ".join(e["reason"] for e in record["events"] if e["kind"] == "stderr")
    # every move was searched on a rebuilt state
    assert re.search(r"(?<!\d)0 of [1-9]\d* moves without a rebuilt state", tail), tail


def test_an_observation_the_engine_rejects_falls_back_to_a_random_move(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bot = WireSearchBot(make_bot("greedy"), "greedy", seed=3)
    bot.on_start(sdk.MatchInfo("m", "panorama", 1, {}, 2, 0, [], None, "forfeit", 0))
    legal = [sdk.LegalMove(i, f"move {i}", "panorama", None) for i in range(4)]
    index = bot.choose({"not": "a panorama observation"}, legal, sdk.Clock(None))
    assert 0 <= index < 4
    assert bot.fallbacks == 1
    assert "random move" in capsys.readouterr().err


@pytest.mark.server
def test_strength_plays_a_command_bot_through_the_wire() -> None:
    """The strength bench seats a ``cmd:`` spec as a gRPC bot; results come back in bot order."""
    from arena.bench.strength import play_one

    cmd = f"cmd:{sys.executable} -m bots.ismcts_client --iterations 5 --seed 2"
    scores, ranks, ms = play_one("dziobaki", [cmd, "random"], seed=5, rotation=1)
    assert len(scores) == len(ranks) == len(ms) == 2
    assert sorted(ranks)[0] == 1 and all(r in (1, 2) for r in ranks)
    assert ms[0] and ms[1], "both bots moved"
    if scores[0] != scores[1]:  # ranks follow the scores in bot order (dziobaki's tiebreak aside)
        assert (ranks[0] < ranks[1]) == (scores[0] > scores[1])
