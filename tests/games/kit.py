"""The test kit of the game tests: one copy of what every ``tests/games/test_<game>.py`` needs.

Every function here works through the engine contract only (``engine.core``), for any game:

- making states: :class:`GameKit` (``new``, ``random_states``, ``narrow``), bound to one
  game and typed as its state class;
- playing: :func:`act` (a JSON action), :func:`step` and :func:`playout` (seeded random
  steps, chance outcomes drawn with their probabilities), :func:`apply_all`;
- refusals: :func:`rejects` (an action is refused with a message and changes nothing);
- rebuilding from an observation: :func:`wire` (an observation as it comes off the wire),
  :func:`rebuilt` (``Game.from_observation`` of the seat to move, checked against the
  contract), :func:`rejects_observation` and :func:`rebuild_fails` (an edited or foreign
  observation is refused with a message), :func:`set_at` (an edit);
- reading: :func:`obs_json`, :func:`legal`, :func:`legal_json`, :func:`texts`,
  :func:`player_obs`, :func:`full_state`, :func:`same_view_for_every_seat`.

A game's own notation (Zooloretto's ``play`` scripts, Carson City Zoo's ``"place Y3 12"``)
and its constructed positions stay in ``tests/games/<game>_helpers.py``::

    KIT = GameKit(GAME, DziobakiState)
    state = KIT.new(2, {"board_side": "B"})
    act(state, {"kind": "reveal", "tile": "D09"})
    rejects(state, {"kind": "place", "space": 12, "rotation": 0}, "space 12 does not exist")
    copy = rebuilt(state, seed=1)  # a DziobakiState showing seat 0 the same observation
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar, cast

import pytest

from engine.core import CHANCE, JSON, Action, Game, IllegalActionError, State, sample_outcome

S = TypeVar("S", bound=State)

Edit = Callable[[dict[str, Any]], object]
"""A change to a plain-JSON observation, made in place (its return value is ignored)."""


class _Delete(str):
    """The type of :data:`DELETE`: a ``str``, so that a test id shows it as ``DELETE``."""


DELETE: Any = _Delete("DELETE")
"""The value for :func:`set_at` that deletes the field instead of setting it (recognised by
identity: the plain string ``"DELETE"`` is set like any other value)."""


class GameKit(Generic[S]):
    """Makes states of one game, typed as its state class ``S``.

    >>> from engine.dziobaki import GAME, DziobakiState
    >>> KIT = GameKit(GAME, DziobakiState)
    >>> KIT.new(2).num_players
    2
    """

    def __init__(self, game: Game, state_class: type[S]) -> None:
        self.game = game
        self.state_class = state_class

    def narrow(self, state: State) -> S:
        """``state``, checked to be of this game's state class (for clones, resamples)."""
        assert isinstance(state, self.state_class), type(state)
        return state

    def new(self, num_players: int, options: Mapping[str, JSON] | None = None) -> S:
        """``game.new_game(num_players, options)``."""
        return self.narrow(self.game.new_game(num_players, options))

    def random_states(
        self,
        num_players: int,
        seed: int,
        options: Mapping[str, JSON] | None = None,
        *,
        final: bool = True,
    ) -> list[S]:
        """Every state of one random game (``random.Random(seed)``, see :func:`step`), from
        the new game on: a copy before each step, then the final state (unless ``final`` is
        false: then only the states a step was taken from)."""
        rng = random.Random(seed)
        state = self.new(num_players, options)
        states = []
        while not state.is_terminal():
            states.append(self.narrow(state.clone()))
            step(state, rng)
        if final:
            states.append(state)
        return states


# ---------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------


def act(state: State, data: Mapping[str, JSON] | None = None, /, **fields: JSON) -> Action:
    """Apply an action or chance outcome given as JSON, as a mapping or as keyword fields
    (``act(s, {"kind": "fly", "space": 5})`` or ``act(s, kind="fly", space=5)``), through
    the game's codec; return it."""
    assert data is None or not fields, "give the action as a mapping or as fields, not both"
    return state.apply_json(dict(fields) if data is None else dict(data))


def step(state: State, rng: random.Random) -> Action:
    """One random step: at a chance node an outcome drawn with its probability
    (:func:`engine.core.sample_outcome`), else a legal action drawn uniformly with
    ``rng.randrange``; return it."""
    if state.current_player == CHANCE:
        action = sample_outcome(state.chance_outcomes(), rng)
    else:
        legal = state.legal_actions()
        assert legal, f"seat {state.current_player} is to move but has no legal action"
        action = legal[rng.randrange(len(legal))]
    state.apply(action)
    return action


def playout(state: S, rng: random.Random, steps: int | None = None) -> S:
    """Random :func:`step` s: ``steps`` of them (fewer if the game ends), or to the end;
    return ``state``. Fails if the game outlasts the game's step bound."""
    bound = state.game.step_bound(state.num_players, state.options)
    taken = 0
    while not state.is_terminal() and (steps is None or taken < steps):
        step(state, rng)
        taken += 1
        assert taken <= bound, f"no end after {bound} steps"
    return state


def positions(state: S, rng: random.Random) -> list[S]:
    """Every position of a random playout (:func:`step` s) from ``state``, as clones, the
    terminal one last; ``state`` ends there."""
    out: list[S] = [state.clone()]  # type: ignore[list-item]  # clone() is typed State
    while not state.is_terminal():
        step(state, rng)
        out.append(state.clone())  # type: ignore[arg-type]
    return out


def apply_all(state: S, actions: Iterable[Action]) -> S:
    """Apply ``actions`` in order; return ``state``."""
    for action in actions:
        state.apply(action)
    return state


def rejects(state: State, data: JSON, message: str) -> None:
    """Applying the JSON ``data`` raises IllegalActionError matching ``message`` (a regular
    expression) and leaves the state as it was: digest, history and every observation."""
    before = _snapshot(state)
    with pytest.raises(IllegalActionError, match=message):
        state.apply_json(data)
    assert _snapshot(state) == before, f"the refused {data!r} changed the state"


def _snapshot(state: State) -> tuple[str, list[Action], list[str]]:
    seats: list[int | None] = [*range(state.num_players), None]
    return state.digest(), list(state.history), [obs_json(state, s) for s in seats]


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


def obs_json(state: State, seat: int | None = None) -> str:
    """``seat``'s observation (default: the spectator's) as canonical JSON text: sorted
    keys, no spaces (the form golden files record)."""
    return json.dumps(state.observation(seat), sort_keys=True, separators=(",", ":"))


def texts(actions: Iterable[Action]) -> list[str]:
    """The actions' short texts (``str(action)``)."""
    return [str(a) for a in actions]


def legal(state: State) -> list[str]:
    """The legal actions' short texts, in canonical order."""
    return texts(state.legal_actions())


def legal_json(state: State) -> list[dict[str, JSON]]:
    """The legal actions' JSON forms, in canonical order."""
    return [a.to_json() for a in state.legal_actions()]


def player_obs(state: State, seat: int) -> dict[str, Any]:
    """Seat ``seat``'s entry in the spectator's observation's ``players`` list."""
    return cast(dict[str, Any], state.observation(None)["players"][seat])


def full_state(state: State, *leave_out: str) -> dict[str, JSON]:
    """The full state (``{field: JSON}``, hidden parts included) without the fields named."""
    full = state._full_state()
    assert isinstance(full, dict)
    return {k: v for k, v in full.items() if k not in leave_out}


def same_view_for_every_seat(state: State) -> bool:
    """Whether every seat observes exactly what the spectator does, but for ``you``."""
    public = state.observation(None)
    return all(state.observation(s) == {**public, "you": s} for s in range(state.num_players))


# ---------------------------------------------------------------------------
# Rebuilding from an observation (Game.from_observation)
# ---------------------------------------------------------------------------


def wire(state: State, seat: int | None) -> dict[str, Any]:
    """``seat``'s observation as it comes off the wire: plain JSON (lists, not tuples)."""
    return cast(dict[str, Any], json.loads(json.dumps(state.observation(seat))))


def rebuilt(
    state: S,
    seed: int = 0,
    *,
    seat: int | None = None,
    options: Mapping[str, JSON] | None = None,
) -> S:
    """``from_observation`` of ``seat`` (default: the seat to move) from its :func:`wire`
    observation of ``state``, with ``random.Random(seed)`` and ``options`` (default: the
    state's own).

    Checks what the contract promises: the rebuilt state has no history, ``seat`` is to
    move with the same legal actions, and it shows ``seat`` the same observation.
    """
    seat = state.current_player if seat is None else seat
    obs = wire(state, seat)
    opts = state.options if options is None else options
    out = state.game.from_observation(state.num_players, opts, seat, obs, random.Random(seed))
    assert isinstance(out, type(state)), type(out)
    assert out.history == [] and out.current_player == seat
    assert out.observation(seat) == obs, "the rebuilt state shows another observation"
    assert out.legal_actions() == state.legal_actions()
    return out


def rebuild_fails(
    state: State,
    observation: Mapping[str, JSON],
    message: str,
    *,
    seat: int | None = None,
    options: Mapping[str, JSON] | None = None,
) -> None:
    """``from_observation`` refuses ``observation`` as ``seat``'s (default: the seat to
    move) in ``state``'s game with a ValueError matching ``message`` (a regular
    expression); ``options`` default to the state's own."""
    seat = state.current_player if seat is None else seat
    opts = state.options if options is None else options
    with pytest.raises(ValueError, match=message):
        state.game.from_observation(state.num_players, opts, seat, observation, random.Random(0))


def rejects_observation(state: State, edit: Edit, message: str) -> None:
    """The seat to move's observation of ``state`` rebuilds as it is, and is refused with a
    ValueError matching ``message`` once ``edit`` has changed it (so the edit is what the
    message is about)."""
    rebuilt(state)
    obs = wire(state, state.current_player)
    edit(obs)
    rebuild_fails(state, obs, message)


def set_at(path: str, value: Any) -> Edit:
    """An :data:`Edit` setting the field at the dotted ``path`` to ``value`` (``DELETE``:
    removing it); a number in the path indexes a list: ``set_at("players.0.food", 3)``."""
    *parents, last = [int(k) if k.isdigit() else k for k in path.split(".")]

    def edit(obs: dict[str, Any]) -> None:
        node: Any = obs
        for key in parents:
            node = node[key]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value

    return edit


__all__ = [
    "DELETE",
    "Edit",
    "GameKit",
    "act",
    "apply_all",
    "full_state",
    "legal",
    "legal_json",
    "obs_json",
    "player_obs",
    "playout",
    "rebuild_fails",
    "rebuilt",
    "rejects",
    "rejects_observation",
    "same_view_for_every_seat",
    "set_at",
    "step",
    "texts",
]
