"""Full games over the wire, for every registered game.

- two command bots (real processes: ``bots.random_client`` and an SDK bot script) play a
  full game through ``arena.match.cmdbots`` (the ``arena play`` path), and the record replays;
- SDK bots (in threads) play every seat of a hosted match, and each observation a seat
  receives over the wire equals ``state.observation(seat)`` when its Turn was built.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from arena.match.cmdbots import open_bots
from arena.match.records import verify_record
from arena.match.runner import MatchConfig, MatchSpec
from bots import sdk
from engine import GAMES
from tests.wire.helpers import SCRIPTED, BotThread, host, players_for, running_server

GAME_IDS = sorted(GAMES)
RANDOM_CMD = f"cmd:{sys.executable} -m bots.random_client --seed 5"


@pytest.mark.server
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_command_bots_play_a_full_game(game_id: str) -> None:
    n = players_for(game_id)
    specs = [RANDOM_CMD, f"{SCRIPTED} --mode good"][:n] + ["random"] * max(0, n - 2)
    spec = MatchSpec(game_id, n, seed=3)
    with open_bots(specs, spec, MatchConfig(move_ms=60_000)) as session:
        record = session.play()
        processes = list(session.processes)
    assert record["events"] == [], record["events"]
    assert verify_record(record).ok
    assert len(record["result"]["ranks"]) == n
    assert record["players"][1]["version"] == "7"  # the scripted bot's self-reported version
    for p in processes:
        assert p.proc.poll() is not None, "every command bot is reaped after the match"


class Spy:
    """An SDK bot that keeps every observation it receives and plays random moves."""

    def __init__(self) -> None:
        self.observations: list[dict[str, Any]] = []
        self.info: sdk.MatchInfo | None = None
        import random

        self.rng = random.Random(0)

    def on_start(self, info: sdk.MatchInfo) -> None:
        self.info = info

    def choose(
        self, observation: dict[str, Any], legal: list[sdk.LegalMove], clock: sdk.Clock
    ) -> Any:
        self.observations.append(observation)
        assert [m.index for m in legal] == list(range(len(legal)))
        pick = legal[self.rng.randrange(len(legal))]
        # Answer with the typed action half of the time, with the index otherwise.
        return pick.action if self.rng.random() < 0.5 else pick.index


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_wire_observation_equals_engine_observation(game_id: str) -> None:
    n = players_for(game_id)
    with running_server() as server:
        table = host(server, game_id, n, seed=9, move_ms=60_000)
        sent: dict[int, list[str]] = {s: [] for s in range(n)}
        table.on_turn = lambda _seq, seat, obs: sent[seat].append(json.dumps(obs, sort_keys=True))
        spies = [Spy() for _ in range(n)]
        threads = [BotThread(server.address, table.credentials[s], spies[s]) for s in range(n)]
        for t in threads:
            t.join(120)
        assert table.done.wait(120)
    for s, t in enumerate(threads):
        assert t.error is None, t.error
        assert t.result is not None and t.result.status == "finished"
        assert t.result.scores == [float(x) for x in table.record["result"]["scores"]]
        received = [json.dumps(o, sort_keys=True) for o in spies[s].observations]
        assert received == sent[s] and received, f"seat {s}"
        assert spies[s].info is not None and spies[s].info.seat == s
        assert spies[s].info.game == game_id
    assert table.record["events"] == []
    assert verify_record(table.record).ok
