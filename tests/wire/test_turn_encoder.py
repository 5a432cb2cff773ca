"""The server's hand-written Turn encoder writes exactly what protobuf would.

``arena.server.messages.TurnEncoder`` builds the bytes of ``PlayResponse(turn=...)``
without building the message (cached legal-action entries, the observation serialised
once). For every registered game, at several positions of random playouts (the first
decision, decisions along the game, the last one; the smallest, a 2-player and the
largest table, the last variant of the largest; see ``Game.variants``), its
bytes must equal ``SerializeToString(deterministic=True)`` of the same message built by
protobuf: with and without a move clock, with sequence numbers on both sides of the
varint byte boundaries, with a cached and an uncached encoder, and with more than 256
legal actions (the encoder precomputes the indices below 256).

Deterministic, because a plain ``SerializeToString()`` of a message with maps (Manatee
Sanctuary's observation has them) may write the map entries in any order: protobuf
itself then gives different bytes for equal messages. The encoder writes them in key
order.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest
from menagerie.v1 import game_service_pb2 as pb

from arena.server.messages import TurnEncoder, turn_encoder
from engine import CHANCE, GAMES, Action, State
from engine.core import JSON, sample_outcome
from wire.convert import action_to_proto, observation_to_proto

GAME_IDS = sorted(GAMES)
POSITIONS = 6
"""Decisions checked per game and player count (spread over one random playout)."""
SEQUENCES = (1, 127, 128, 300, 16_383, 16_384, 2**21 + 5)


def expected_turn(
    game_id: str,
    sequence: int,
    step: int,
    observation: dict[str, JSON],
    legal: Sequence[Action],
    time_limit_ms: float | None,
    deadline: pb.Turn | None = None,
) -> bytes:
    """``PlayResponse(turn=...)`` built by protobuf, serialised."""
    turn = pb.Turn(
        sequence=sequence,
        step=step,
        observation=observation_to_proto(game_id, observation),
        legal_actions=[
            pb.LegalAction(index=i, text=str(a), action=action_to_proto(game_id, a.to_json()))
            for i, a in enumerate(legal)
        ],
        time_limit_ms=int(time_limit_ms or 0),
    )
    if deadline is not None:
        turn.deadline.CopyFrom(deadline.deadline)
    return pb.PlayResponse(turn=turn).SerializeToString(deterministic=True)


def decisions(game_id: str, players: int, options: dict[str, JSON]) -> Iterator[State]:
    """About POSITIONS states of one random playout where a seat is to move (first and
    last decision included)."""
    game = GAMES[game_id]
    rng = random.Random(f"turn-encoder:{game_id}:{players}:{sorted(options)}")
    state = game.new_game(players, options)
    found: list[State] = []
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        found.append(state.clone())
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    assert found, f"{game_id} with {players} players: no decision in a whole game"
    stride = max(1, len(found) // (POSITIONS - 1))
    picked = [*found[::stride][: POSITIONS - 1], found[-1]]
    yield from dict.fromkeys(picked)  # (keeps order; the last may also be a stride point)


def tables(game_id: str) -> list[tuple[int, dict[str, JSON]]]:
    """(players, options): the smallest, a 2-player and the largest table (default
    variant), and the largest in its last variant."""
    game = GAMES[game_id]
    two = max(game.min_players, min(2, game.max_players))
    counts = sorted({game.min_players, two, game.max_players})
    out = [(n, game.variants(n)[0]) for n in counts]
    last = game.variants(game.max_players)[-1]
    if last != out[-1][1]:
        out.append((game.max_players, last))
    return out


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_turn_bytes_equal_protobuf_serialisation(game_id: str) -> None:
    cached = turn_encoder(game_id)
    checked = 0
    for players, options in tables(game_id):
        for k, state in enumerate(decisions(game_id, players, options)):
            seat = state.current_player
            observation = state.observation(seat)
            legal = state.legal_actions()
            step = len(state.history)
            sequence = SEQUENCES[(k + players) % len(SEQUENCES)]
            want = expected_turn(game_id, sequence, step, observation, legal, None)
            fresh = TurnEncoder(game_id)  # nothing cached yet
            where = f"{game_id}, {players} players {options}, step {step}, seat {seat}"
            assert fresh.turn(sequence, step, observation, legal, None) == want, where
            assert cached.turn(sequence, step, observation, legal, None) == want, where
            assert cached.turn(sequence, step, observation, legal, 0) == want, where
            for limit in (1000.0, 1500.7):
                got = cached.turn(sequence, step, observation, legal, limit)
                parsed = pb.PlayResponse.FromString(got)
                assert parsed.turn.HasField("deadline"), where
                want = expected_turn(
                    game_id, sequence, step, observation, legal, limit, parsed.turn
                )
                assert got == want, f"{where}, move clock {limit} ms"
            checked += 1
    assert checked >= POSITIONS


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_turn_bytes_equal_protobuf_with_over_256_legal_actions(game_id: str) -> None:
    players, options = tables(game_id)[0]
    state = next(decisions(game_id, players, options))
    legal = state.legal_actions()
    many = (legal * (300 // len(legal) + 1))[:300]  # indices past the precomputed 256
    observation = state.observation(state.current_player)
    step = len(state.history)
    want = expected_turn(game_id, 70_000, step, observation, many, None)
    assert TurnEncoder(game_id).turn(70_000, step, observation, many, None) == want
