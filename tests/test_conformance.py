"""Generic conformance suite: random playouts of every registered game.

Parametrised over every game in ``engine.GAMES``, every player count and every option
set of ``game.variants(n)`` (as OpenSpiel's games_sim_test and pgx's api_test), so a new
game is covered by registering it. At every step it checks:

- a seat to move has legal actions; a chance node has outcomes whose probabilities sum
  to 1; actions and outcomes round-trip through JSON and are hashable;
- observations (every seat and the spectator) are JSON-serialisable and open with the
  common header: ``you`` (the viewing seat, null for the spectator), ``current_player``,
  ``phase`` (a string) and ``scores`` (``state.scores()``, one per seat, final at the end);
- the full state is ``{field: value}`` over the state's declared fields (engine.fields);
- an action that is not legal now (seen elsewhere in the game) is rejected with
  IllegalActionError and the state is unchanged;
- ``clone`` is independent, and applying the same step to state and clone gives the
  same digest (determinism);
- ``resample(seat)`` keeps ``observation(seat)`` and does not touch the original;
- the game ends within ``game.step_bound``; replaying ``history`` on a fresh game
  reproduces ``digest()`` and ``result()``; the result is well formed.

``test_from_observation`` checks ``game.from_observation`` (the determinization a
search bot on the wire plays on) at every decision of other random playouts: the
rebuilt state shows the same observation and legal actions, is deterministic in its
rng, resamples, and plays on to a well-formed end.
"""

from __future__ import annotations

import json
import random

import pytest

from engine import CHANCE, GAMES, Action, Game, IllegalActionError, State
from engine.core import sample_outcome
from tests.games.kit import playout, wire

PLAYOUTS_PER_GAME = 200
"""Random playouts per game, spread over its player counts and variants."""

REBUILT_PLAYOUTS_PER_GAME = 60
"""Random playouts per game in which every decision is rebuilt from its observation."""


def _cases() -> list[tuple[str, int, int]]:
    cases = []
    for game in GAMES.values():
        for n in game.player_counts():
            for v in range(len(game.variants(n))):
                cases.append((game.id, n, v))
    return cases


CASES = _cases()

# `make test-fast` plays each game at its first player count and variant only (marked
# slow: every other case), so that tier still covers every game.
PARAMS = [
    pytest.param(*case, marks=() if i == 0 or CASES[i - 1][0] != case[0] else pytest.mark.slow)
    for i, case in enumerate(CASES)
]


def _playouts(game_id: str, total: int = PLAYOUTS_PER_GAME, least: int = 4) -> int:
    per_game = sum(1 for c in CASES if c[0] == game_id)
    return max(least, total // per_game)


def _check_json(game: Game, action: Action) -> None:
    data = action.to_json()
    assert data["kind"] == action.KIND
    back = game.action_from_json(json.loads(json.dumps(data)))
    assert back == action and hash(back) == hash(action), (data, back)
    assert str(action)


def _check_step(state: State, rng: random.Random, seen: list[Action]) -> Action:
    game = state.game
    player = state.current_player
    if player == CHANCE:
        outcomes = state.chance_outcomes()
        assert outcomes, "a chance node must have outcomes"
        assert state.legal_actions() == []
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert all(p > 0 for _, p in outcomes)
        for outcome, _ in outcomes[:8]:
            _check_json(game, outcome)
        choice = sample_outcome(outcomes, rng)
        _check_json(game, choice)
    else:
        assert 0 <= player < state.num_players
        legal = state.legal_actions()
        assert legal, f"seat {player} to move but no legal actions"
        assert state.chance_outcomes() == []
        assert len(set(legal)) == len(legal), "legal actions must be distinct"
        for action in legal:
            _check_json(game, action)
        choice = legal[rng.randrange(len(legal))]

    for seat in [*range(state.num_players), None]:
        _check_header(state, seat)
    assert set(state._full_state()) == {
        s.name for s in type(state).declared_fields().specs if not s.digest.skip
    }

    before = state.digest()
    illegal = [a for a in seen[-50:] if not state.is_legal(a)]
    if illegal:
        bad = illegal[rng.randrange(len(illegal))]
        with pytest.raises(IllegalActionError):
            state.apply(bad)
        assert state.digest() == before, f"rejected {bad} changed the state"

    seat = rng.randrange(state.num_players)
    obs = state.observation(seat)
    other = state.resample(seat, random.Random(rng.random()))
    assert other.observation(seat) == obs, f"resample({seat}) changed the seat's observation"
    assert other.current_player == state.current_player
    if player == seat:
        assert other.legal_actions() == state.legal_actions()
    assert state.digest() == before, "resample must not change the original"

    twin = state.clone()
    twin.apply(choice)
    assert state.digest() == before, "applying to a clone changed the original"
    state.apply(choice)
    assert state.digest() == twin.digest(), "same step, different state: not deterministic"
    seen.append(choice)
    return choice


def _check_header(state: State, seat: int | None) -> None:
    """The observation header every game shares (the engine contract)."""
    obs = json.loads(json.dumps(state.observation(seat)))
    header = {k: obs.get(k, "<missing>") for k in ("you", "current_player", "phase", "scores")}
    assert header["you"] == seat, header
    assert header["current_player"] == state.current_player, header
    assert isinstance(header["phase"], str), header
    scores = state.scores()
    assert header["scores"] == scores and len(scores) == state.num_players, (header, scores)


def _check_result(state: State) -> None:
    result = state.result()
    n = state.num_players
    assert len(result.scores) == n and len(result.breakdown) == n and len(result.ranks) == n
    assert min(result.ranks) == 1 and all(1 <= r <= n for r in result.ranks)
    for s in range(n):
        for t in range(n):
            if result.ranks[s] < result.ranks[t]:
                assert result.scores[s] >= result.scores[t], "a better rank with a lower score"
    json.dumps(result.to_json())
    if all(float(x).is_integer() for x in result.scores):
        assert all(isinstance(x, int) for x in result.scores), "integer scores are ints"


@pytest.mark.parametrize(("game_id", "num_players", "variant"), PARAMS)
def test_random_playouts(game_id: str, num_players: int, variant: int) -> None:
    game = GAMES[game_id]
    options = game.variants(num_players)[variant]
    bound = game.step_bound(num_players, options)
    for i in range(_playouts(game_id)):
        rng = random.Random(f"{game_id}:{num_players}:{variant}:{i}")
        state = game.new_game(num_players, options)
        seen: list[Action] = []
        while not state.is_terminal():
            _check_step(state, rng, seen)
            assert len(state.history) <= bound, f"no end after {bound} steps"
        assert state.legal_actions() == [] and state.chance_outcomes() == []
        _check_result(state)
        assert state.scores() == state.result().scores, "final scores() is the result's"
        for seat in [*range(state.num_players), None]:
            _check_header(state, seat)
        fresh = game.new_game(num_players, options)
        for step in state.history:
            fresh.apply(game.action_from_json(step.to_json()))
        assert fresh.digest() == state.digest()
        assert fresh.result() == state.result()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_game_metadata(game_id: str) -> None:
    game = GAMES[game_id]
    assert game.id == game_id
    assert isinstance(game.version, int) and game.version >= 1
    assert 1 <= game.min_players <= game.max_players
    for key, opt in game.option_specs.items():
        assert opt.doc, f"option {key} needs a doc string"
    for n in game.player_counts():
        for options in game.variants(n):
            game.new_game(n, options)
    assert game.action_classes, "a game lists its action and outcome classes"


@pytest.mark.parametrize(("game_id", "num_players", "variant"), PARAMS)
def test_from_observation(game_id: str, num_players: int, variant: int) -> None:
    game = GAMES[game_id]
    options = game.variants(num_players)[variant]
    for i in range(_playouts(game_id, REBUILT_PLAYOUTS_PER_GAME, least=1)):
        rng = random.Random(f"rebuilt:{game_id}:{num_players}:{variant}:{i}")
        state = game.new_game(num_players, options)
        while not state.is_terminal():
            seat = state.current_player
            if seat == CHANCE:
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            obs = wire(state, seat)
            seed = rng.random()
            rebuilt = game.from_observation(num_players, options, seat, obs, random.Random(seed))
            step = len(state.history)
            assert rebuilt.history == [], "a rebuilt state has no known history"
            assert rebuilt.current_player == seat
            assert rebuilt.observation(seat) == obs, f"step {step}: rebuilt observation differs"
            legal = state.legal_actions()
            assert [a.to_json() for a in rebuilt.legal_actions()] == [a.to_json() for a in legal]
            again = game.from_observation(num_players, options, seat, obs, random.Random(seed))
            assert again.digest() == rebuilt.digest(), "from_observation is not deterministic"
            other = rebuilt.resample(seat, random.Random(seed))
            assert other.observation(seat) == obs, "resampling a rebuilt state changed its view"
            if rng.random() < 0.25:  # play on to the end (within the step bound)
                _check_result(playout(rebuilt, random.Random(seed)))
            state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_from_observation_rejects_bad_input(game_id: str) -> None:
    game = GAMES[game_id]
    n = game.min_players
    with pytest.raises(ValueError, match="seat"):
        game.from_observation(n, None, n, {}, random.Random(0))
    with pytest.raises(ValueError):
        game.from_observation(n, None, 0, {"nonsense": True}, random.Random(0))
