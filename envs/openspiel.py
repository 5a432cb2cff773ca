"""The games as OpenSpiel Python games: ``import envs.openspiel`` registers
``menagerie_<game>`` for every game with a layout (:data:`envs.layouts.SUPPORTED`), then
``pyspiel.load_game("menagerie_panorama", {"players": 3})``.

The shape follows OpenSpiel's own ``kuhn_poker.py``: metadata, a state over the engine's
state, an observer, ``register_game``. Decisions are numbered by the game's
:class:`envs.tensors.ActionSpace` and chance outcomes by its chance space, so OpenSpiel's
explicit chance nodes are the engine's own (same outcomes, same probabilities). Returns
are the final ranks as rewards (+1 best, -1 worst, :func:`envs.pettingzoo.rank_rewards`),
general-sum because tied seats share a rank. Observations are the seat's JSON
observation (``observation_string``) and its tensor (``observation_tensor``); the games
provide no perfect-recall information state. Game options keep their defaults.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from engine.core import CHANCE, TERMINAL, Action, State
from engine.registry import get_game
from envs.layouts import SUPPORTED, GameSpec, spec
from envs.pettingzoo import rank_rewards

PREFIX = "menagerie_"
"""OpenSpiel short names are ``menagerie_<game id>``."""


class _Held:
    """The engine state inside an OpenSpiel state. OpenSpiel clones a Python state with
    ``copy.deepcopy``; this makes that an engine ``clone()`` (the game object and the
    interned actions are shared, as the engine intends)."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.state.clone())


def _game_type(game_id: str, game_spec: GameSpec) -> Any:
    game = get_game(game_id)
    information = (
        pyspiel.GameType.Information.IMPERFECT_INFORMATION
        if game_spec.hidden
        else pyspiel.GameType.Information.PERFECT_INFORMATION
    )
    return pyspiel.GameType(
        short_name=PREFIX + game_id,
        long_name=f"Menagerie {game.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=max(2, game.min_players),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": 2},
    )


class MenagerieGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """One Menagerie game with ``players`` seats (a registered OpenSpiel game)."""

    game_id: str = ""
    """Set by :func:`_register` on the subclass it registers for each game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        game = get_game(self.game_id)
        players = int(params.get("players", 2))
        game.new_game(players, None)  # names a bad player count
        self.engine_game = game
        self.spec = spec(self.game_id)
        self.num_seats = players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.spec.actions.size,
            max_chance_outcomes=self.spec.chance.size,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=game.step_bound(players, {}),
        )
        super().__init__(_game_type(self.game_id, self.spec), info, {"players": players})

    def new_initial_state(self) -> MenagerieState:
        return MenagerieState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> MenagerieObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return MenagerieObserver(self)


class MenagerieState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """An engine state seen through OpenSpiel's API."""

    def __init__(self, game: MenagerieGame) -> None:
        super().__init__(game)
        self.game_id = game.game_id
        self.held = _Held(game.engine_game.new_game(game.num_seats, None))

    @property
    def engine_state(self) -> State:
        return self.held.state

    def current_player(self) -> int:
        player = self.held.state.current_player
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        if player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        return player

    def _legal_actions(self, player: int) -> list[int]:
        space = spec(self.game_id).actions
        return sorted(space.fast_index(a) for a in self.held.state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        space = spec(self.game_id).chance
        return sorted((space.index_of(o), p) for o, p in self.held.state.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        self.held.state.apply(self._action(action, self.held.state.is_chance_node()))

    def _action(self, action: int, chance: bool) -> Action:
        game_spec = spec(self.game_id)
        return (game_spec.chance if chance else game_spec.actions).actions[action]

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self._action(action, player == pyspiel.PlayerId.CHANCE))

    def is_terminal(self) -> bool:
        return self.held.state.is_terminal()

    def returns(self) -> list[float]:
        state = self.held.state
        if not state.is_terminal():
            return [0.0] * state.num_players
        return rank_rewards(state.result())

    def __str__(self) -> str:
        return self.held.state.render(None)


class MenagerieObserver:
    """OpenSpiel's observer: the seat's observation tensor and its JSON as the string."""

    def __init__(self, game: MenagerieGame) -> None:
        self.layout = game.spec.layout
        self.num_players = game.num_seats
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MenagerieState, player: int) -> None:
        observation = state.engine_state.observation(player)
        self.tensor[:] = self.layout.encode(observation, self.num_players)

    def string_from(self, state: MenagerieState, player: int) -> str:
        return json.dumps(state.engine_state.observation(player), sort_keys=True)


def _register(game_id: str) -> None:
    cls = type(f"Menagerie_{game_id}", (MenagerieGame,), {"game_id": game_id})
    pyspiel.register_game(_game_type(game_id, spec(game_id)), cls)


for _game_id in SUPPORTED:
    if PREFIX + _game_id not in pyspiel.registered_names():
        _register(_game_id)
