"""The games as OpenSpiel Python games: ``import envs.openspiel`` registers
``menagerie_<game>`` for every game with a layout (:data:`envs.layouts.SUPPORTED`), then
``pyspiel.load_game("menagerie_panorama", {"players": 3})``.

The shape follows OpenSpiel's own ``kuhn_poker.py``: metadata, a state over the engine's
state, an observer, ``register_game``. Decisions are numbered by the game's
:class:`envs.tensors.ActionSpace` and chance outcomes by its chance space, so OpenSpiel's
explicit chance nodes are the engine's own (same outcomes, same probabilities). Returns
are the final ranks as rewards (+1 best, -1 worst, :func:`envs.pettingzoo.rank_rewards`),
general-sum because tied seats share a rank. Observations are the seat's JSON
observation (``observation_string``) and its tensor (``observation_tensor``).

**Information state** (``information_state_string``): perfect recall of what the seat may
know, built as the game goes: every step as the seat may read it
(:meth:`engine.core.Action.text_for`: another seat's dealt card or hidden commitment reads
as its public text), at each of the seat's own turns in a game with hidden state a hash of
the observation it was shown, and its current observation (JSON) last. So two histories
that differ only in what the seat cannot see give the same string, and OpenSpiel's
algorithms keyed by it (ISMCTS, the CFR family) run. ``resample_from_infostate`` draws a
state of the seat's information set with the engine's ``State.resample``. No information
state *tensor*: a perfect-recall tensor would need a slot per step of the longest game
times the action space; ``observation_tensor`` is the fixed-size input for learners.

Game parameters: ``players``, ``options`` (the game's options as a JSON object in a
string, ``'{"scramble": true}'``; default: the game's defaults) and ``imperfect``
(default: whether the game has hidden state). ``imperfect=True`` on Panorama or
Zooloretto Mini declares the game as imperfect information (a special case: its
information state is then its public history), which OpenSpiel's ISMCTS requires before
it searches.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import numpy as np
import pyspiel

from engine.core import CHANCE, TERMINAL, Action, State
from engine.registry import get_game
from envs.layouts import SUPPORTED, GameSpec, spec
from envs.pettingzoo import rank_rewards
from envs.tensors import ActionSpace, DecisionSpace

PREFIX = "menagerie_"
"""OpenSpiel short names are ``menagerie_<game id>``."""


class _Held:
    """The engine state inside an OpenSpiel state, with each seat's record of what it read
    (the information state). OpenSpiel clones a Python state with ``copy.deepcopy``; this
    makes that an engine ``clone()`` (the game object and the interned actions are shared,
    as the engine intends) and a copy of the records' lists (their strings are shared)."""

    __slots__ = ("logs", "state")

    def __init__(self, state: State, logs: list[list[str]]) -> None:
        self.state = state
        self.logs = logs
        """Per seat: each step as it read it, and its observations' hashes at its turns."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.state.clone(), [log[:] for log in self.logs])


def _game_type(game_id: str, game_spec: GameSpec, imperfect: bool | None = None) -> Any:
    game = get_game(game_id)
    information = (
        pyspiel.GameType.Information.IMPERFECT_INFORMATION
        if (game_spec.hidden if imperfect is None else imperfect)
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
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": 2, "options": "{}", "imperfect": game_spec.hidden},
    )


class MenagerieGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel is untyped
    """One Menagerie game with ``players`` seats (a registered OpenSpiel game)."""

    game_id: str = ""
    """Set by :func:`_register` on the subclass it registers for each game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        game = get_game(self.game_id)
        players = int(params.get("players", 2))
        text = str(params.get("options", "{}"))
        try:
            options = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"options must be a JSON object, got {text!r}: {exc}") from None
        if not isinstance(options, dict):
            raise ValueError(f"options must be a JSON object, got {text!r}")
        game.new_game(players, options)  # names a bad player count or option
        self.options: dict[str, Any] = options
        self.engine_game = game
        self.spec = spec(self.game_id)
        self.num_seats = players
        imperfect = bool(params.get("imperfect", self.spec.hidden))
        if self.spec.hidden and not imperfect:
            raise ValueError(f"{self.game_id} has hidden state: imperfect must stay true")
        info = pyspiel.GameInfo(
            num_distinct_actions=self.spec.actions.size,
            max_chance_outcomes=self.spec.chance.size,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=game.step_bound(players, options),
        )
        kind = _game_type(self.game_id, self.spec, imperfect)
        params = {"players": players, "options": text, "imperfect": imperfect}
        super().__init__(kind, info, params)

    def new_initial_state(self) -> MenagerieState:
        return MenagerieState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> MenagerieObserver | RecallObserver:
        """The information state observer when ``iig_obs_type`` asks for perfect recall,
        else the observation observer."""
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return RecallObserver()
        return MenagerieObserver(self)


class MenagerieState(pyspiel.State):  # type: ignore[misc]  # pyspiel is untyped
    """An engine state seen through OpenSpiel's API."""

    def __init__(self, game: MenagerieGame, held: _Held | None = None) -> None:
        super().__init__(game)
        self.game_id = game.game_id
        if held is None:
            held = _Held(game.engine_game.new_game(game.num_seats, game.options), [])
            held.logs = [[] for _ in range(game.num_seats)]
        self.held = held

    @property
    def engine_state(self) -> State:
        return self.held.state

    # the spec's parts are read through properties, not stored: OpenSpiel clones a state
    # by deep-copying its attributes
    @property
    def space(self) -> DecisionSpace:
        return spec(self.game_id).actions

    @property
    def chance(self) -> ActionSpace:
        return spec(self.game_id).chance

    @property
    def hidden(self) -> bool:
        return spec(self.game_id).hidden

    def current_player(self) -> int:
        player = self.held.state.current_player
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        if player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        return player

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.space.legal(self.held.state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        space = self.chance
        return sorted((space.index_of(o), p) for o, p in self.held.state.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        state, logs = self.held.state, self.held.logs
        actor = state.current_player
        move: Action | None
        if actor == CHANCE:
            move = self.chance.actions[action]
        else:
            move = self.space.legal(state).get(action)
            if move is None:
                label = self.space.label(action)
                raise ValueError(f"action {action} ({label}) is not legal now")
            if self.hidden:
                seen = json.dumps(state.observation(actor)).encode()
                logs[actor].append("observed " + hashlib.blake2b(seen, digest_size=8).hexdigest())
        state.apply(move)
        for seat, log in enumerate(logs):
            log.append(move.text_for(actor, seat))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return str(self.chance.actions[action])
        move = self.space.legal(self.held.state).get(action)
        return str(move) if move is not None else self.space.label(action)

    def recall(self, seat: int) -> str:
        """What ``seat`` may know, with perfect recall: the information state string
        (see the module docstring)."""
        now = json.dumps(self.held.state.observation(seat), sort_keys=True)
        return "\n".join([f"seat {seat}", *self.held.logs[seat], "now " + now])

    def resample_from_infostate(self, player: int, sampler: Any = None) -> MenagerieState:
        """A state of ``player``'s information set, drawn with the engine's
        ``State.resample`` (seeded from ``sampler`` when it is callable, as OpenSpiel's
        samplers are). The records of what each seat read are copied: ``player``'s is
        the same in every state of its set; the others' are not searched on."""
        seed = sampler() if callable(sampler) else random.random()
        state = self.held.state.resample(player, random.Random(seed))
        held = _Held(state, [log[:] for log in self.held.logs])
        return MenagerieState(self.get_game(), held)

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


class RecallObserver:
    """OpenSpiel's information state observer: the string only (no tensor, see the module
    docstring)."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: MenagerieState, player: int) -> None:
        pass

    def string_from(self, state: MenagerieState, player: int) -> str:
        return state.recall(player)


def _register(game_id: str) -> None:
    cls = type(f"Menagerie_{game_id}", (MenagerieGame,), {"game_id": game_id})
    pyspiel.register_game(_game_type(game_id, spec(game_id)), cls)


for _game_id in SUPPORTED:
    if PREFIX + _game_id not in pyspiel.registered_names():
        _register(_game_id)
