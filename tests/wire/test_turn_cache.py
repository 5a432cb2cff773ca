"""The caches of the per-move path: what is reused from turn to turn stays exact.

``TurnEncoder`` keeps the encoded list of legal actions of positions with a few of them
(such positions repeat; long lists are encoded from their cached entries every time);
the Python SDK reads a Turn's legal moves from the wire only when a bot uses them
(``LegalMove.of_wire``). Both must give exactly what the uncached path gives, whatever
the order of the list, and the encoder's cache must stay within its byte budget.
"""

from __future__ import annotations

import random

import pytest
from menagerie.v1 import game_service_pb2 as pb

import arena.server.messages as messages
from arena.server.messages import TurnEncoder
from bots import sdk
from engine import CHANCE, GAMES, State
from engine.core import sample_outcome
from tests.wire.test_turn_encoder import expected_turn

GAME_IDS = sorted(GAMES)


def widest_decision(game_id: str) -> State:
    """The decision with the most legal actions in one seeded random playout."""
    rng = random.Random(f"turn-cache:{game_id}")
    state = GAMES[game_id].new_game(2 if GAMES[game_id].max_players >= 2 else 1, {})
    best: State | None = None
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        legal = state.legal_actions()
        if best is None or len(legal) > len(best.legal_actions()):
            best = state.clone()
        state.apply(legal[rng.randrange(len(legal))])
    assert best is not None
    return best


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_cached_legal_lists_equal_protobuf_in_any_order(game_id: str) -> None:
    state = widest_decision(game_id)
    observation = state.observation(state.current_player)
    legal = state.legal_actions()
    short = legal[: messages._LIST_CACHE_MAX_ACTIONS]
    lists = [legal, legal[::-1], short, short[::-1]]
    encoder = TurnEncoder(game_id)
    for actions in lists + lists:  # misses, then hits
        want = expected_turn(game_id, 9, 4, observation, actions, None)
        assert encoder.turn(9, 4, observation, actions, None) == want
    kept = {tuple(a) for a in lists if len(a) <= messages._LIST_CACHE_MAX_ACTIONS}
    assert set(encoder._lists) == kept and kept  # the short lists only


def test_legal_list_cache_keeps_to_its_byte_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the budget a list is encoded every time, exactly, and not kept."""
    game_id = "zooloretto_mini"
    state = widest_decision(game_id)
    observation = state.observation(state.current_player)
    legal = state.legal_actions()[:2]
    assert len(legal) == 2
    encoder = TurnEncoder(game_id)
    first = encoder.legal_list(legal[:1])
    monkeypatch.setattr(messages, "_LIST_CACHE_BYTES", len(first))
    encoder = TurnEncoder(game_id)
    assert encoder.legal_list(legal[:1]) == first  # fits exactly: kept
    for _ in range(2):
        got = encoder.turn(3, 0, observation, legal, None)
        assert got == expected_turn(game_id, 3, 0, observation, legal, None)
    assert list(encoder._lists) == [tuple(legal[:1])] and encoder._list_bytes == len(first)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_sdk_legal_moves_read_on_first_use_equal_the_turn(game_id: str) -> None:
    state = widest_decision(game_id)
    legal = state.legal_actions()
    raw = TurnEncoder(game_id).turn(5, 2, state.observation(state.current_player), legal, None)
    turn = pb.PlayResponse.FromString(raw).turn
    moves = [sdk.LegalMove.of_wire(la, game_id) for la in turn.legal_actions]
    assert all(m._text is None and m._action is None and m._index is None for m in moves)
    assert [m.text for m in moves] == [str(a) for a in legal]
    assert [m.index for m in moves] == list(range(len(legal)))
    assert [m.action for m in moves] == [a.to_json() for a in legal]
    assert repr(moves[-1]) == f"LegalMove({len(legal) - 1}, {str(legal[-1])!r})"
    eager = sdk.LegalMove(0, "x", game_id, turn.legal_actions[0].action)
    assert eager.action == legal[0].to_json() and (eager.index, eager.text) == (0, "x")


def test_sdk_answers_a_lazy_legal_move_with_its_index() -> None:
    """A bot returning one of the lazy LegalMoves answers that move's index."""
    game_id = "zooloretto_mini"
    state = widest_decision(game_id)
    legal = state.legal_actions()
    raw = TurnEncoder(game_id).turn(77, 2, state.observation(state.current_player), legal, None)
    turn = pb.PlayResponse.FromString(raw).turn

    class Last:
        def choose(
            self, observation: object, moves: list[sdk.LegalMove], clock: sdk.Clock
        ) -> object:
            return moves[-1]

    request = sdk._answer(Last(), game_id, turn)
    assert request.WhichOneof("message") == "move"
    assert (request.move.sequence, request.move.index) == (77, len(legal) - 1)
