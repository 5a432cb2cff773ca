"""The wire schema covers every registered game, 1:1 with the engine's JSON.

For each game in ``engine.GAMES``: the envelopes ``Observation`` and ``Action`` have a
oneof field named after it; observations (every seat and the spectator, over random
playouts) and every legal action and chance outcome survive JSON -> proto -> bytes ->
proto -> JSON exactly (same keys, same JSON types), and the action decodes back to the
same engine action. A game registered without its proto file fails here.
"""

from __future__ import annotations

import json
import random

import pytest
from menagerie.v1 import game_service_pb2 as pb

from engine import CHANCE, GAMES
from engine.core import sample_outcome
from wire import convert as wire

GAME_IDS = sorted(GAMES)


def test_every_registered_game_has_wire_messages() -> None:
    missing = [g for g in GAME_IDS if g not in wire.wire_games()]
    assert not missing, (
        f"registered game(s) {missing} have no proto messages: add proto/menagerie/v1/<game>.proto "
        "(observation + action messages), add them to the Observation and Action oneofs in "
        "game_service.proto, and run `make proto`"
    )


def test_every_action_kind_has_a_oneof_field() -> None:
    for game_id in GAME_IDS:
        kinds = {cls.KIND for cls in GAMES[game_id].action_classes}
        assert kinds == set(wire.action_kinds(game_id)), game_id


def _exact(value: object) -> str:
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_observations_and_actions_round_trip(game_id: str) -> None:
    game = GAMES[game_id]
    rng = random.Random(11)
    checked = 0
    counts = list(game.player_counts())
    for n in sorted({counts[0], counts[-1], min(max(2, counts[0]), counts[-1])}):
        for options in game.variants(n)[:2]:
            state = game.new_game(n, options)
            step = 0
            while True:
                if step % 3 == 0 or state.is_terminal():
                    for seat in [*range(n), None]:
                        obs = state.observation(seat)
                        msg = pb.Observation.FromString(
                            wire.observation_to_proto(game_id, obs).SerializeToString()
                        )
                        got_game, back = wire.observation_from_proto(msg)
                        assert got_game == game_id
                        assert _exact(back) == _exact(obs), (game_id, seat, step)
                        checked += 1
                if state.is_terminal():
                    break
                if state.current_player == CHANCE:
                    outcomes = state.chance_outcomes()
                    actions = [o for o, _ in outcomes[:20]]
                    chosen = sample_outcome(outcomes, rng)
                else:
                    actions = state.legal_actions()
                    chosen = rng.choice(actions)
                for action in [*actions[:20], chosen]:
                    data = action.to_json()
                    encoded = wire.action_to_proto(game_id, data).SerializeToString()
                    got_game, back = wire.action_from_proto(pb.Action.FromString(encoded))
                    assert got_game == game_id
                    assert _exact(back) == _exact(data)
                    assert game.action_from_json(back) == action
                state.apply(chosen)
                step += 1
    assert checked > 0


def test_unknown_keys_and_bad_types_are_rejected() -> None:
    with pytest.raises(wire.WireError, match="no_such_key"):
        wire.observation_to_proto("zooloretto_mini", {"no_such_key": 1})
    with pytest.raises(wire.WireError):
        wire.observation_to_proto("zooloretto_mini", {"round": "three"})
    with pytest.raises(wire.WireError, match="no action kind"):
        wire.action_to_proto("zooloretto_mini", {"kind": "fly"})
    with pytest.raises(wire.WireError, match="no observation message"):
        wire.observation_to_proto("chess", {})


def test_keyword_json_names() -> None:
    """JSON keys that are keywords in many languages map to renamed proto fields."""
    msg = wire.action_to_proto(
        "zooloretto_mini", {"kind": "bonus_take", "from": 2, "tile": "S1N1", "to": "E1"}
    )
    assert msg.zooloretto_mini.bonus_take.from_seat == 2
    back = wire.action_from_proto(
        wire.action_to_proto(
            "manatee_sanctuary", {"kind": "return", "grey": 1, "pink": 0, "yellow": 2}
        )
    )
    assert back == ("manatee_sanctuary", {"kind": "return", "grey": 1, "pink": 0, "yellow": 2})
