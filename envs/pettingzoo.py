"""PettingZoo AEC environments for the games (``envs.pettingzoo.env("panorama", ...)``).

One agent per seat (``player_0`` ...). Chance nodes never reach an agent: the environment
resolves them itself with its own ``random.Random``, seeded by ``reset(seed=...)`` (or by
the ``seed`` given to :func:`env`), so a seed fixes the whole game given the agents'
actions. Each observation is a dict with ``observation`` (the seat's float32 tensor,
:mod:`envs.tensors`) and ``action_mask`` (1 for the seat's legal actions when it is to
move, all 0 otherwise). Nothing is encoded until an observation is asked for
(``observe``/``last``), and then once per step and seat: a learner that reads only the
mover's observation pays for one tensor per step, and the legal actions are indexed once
per step for both the mask and ``step``; the tensor is written straight from the
state's fields (:mod:`envs.direct`, equal to the observation's encoding). Rewards arrive
when the game ends, from the final ranks (``reward="rank"``: +1 for the best, -1 for the
worst, linear between, ties shared) or the final scores (``reward="score"``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from engine.core import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    IllegalActionError,
    Result,
    State,
    sample_outcome,
)
from engine.registry import get_game
from envs.direct import ENCODERS, Direct
from envs.layouts import spec

RewardKind = Literal["rank", "score"]
REWARD_KINDS: tuple[str, ...] = ("rank", "score")


def env(
    game: str,
    num_players: int = 2,
    options: Mapping[str, JSON] | None = None,
    seed: int | None = None,
    reward: RewardKind = "rank",
    render_mode: str | None = None,
) -> AECEnv:
    """The AEC environment of ``game``. It makes PettingZoo's usual checks itself (an
    illegal or out-of-range action raises instead of being applied; stepping or observing
    before ``reset`` raises) rather than through PettingZoo's ``OrderEnforcingWrapper``
    and ``AssertOutOfBoundsWrapper``, whose attribute forwarding cost more per step than
    the rest of the environment's bookkeeping."""
    return MenagerieEnv(game, num_players, options, seed, reward, render_mode)


def rank_rewards(result: Result) -> list[float]:
    """+1 for rank 1, -1 for the last rank, linear between (one seat alone: 0).

    >>> rank_rewards(Result([9, 5, 5], [{}, {}, {}], [1, 2, 2]))
    [1.0, 0.0, 0.0]
    """
    n = len(result.ranks)
    if n == 1:
        return [0.0]
    return [1.0 - 2.0 * (rank - 1) / (n - 1) for rank in result.ranks]


class MenagerieEnv(AECEnv):  # type: ignore[misc]  # AECEnv is untyped (Any)
    """One game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str,
        num_players: int = 2,
        options: Mapping[str, JSON] | None = None,
        seed: int | None = None,
        reward: RewardKind = "rank",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward must be one of {', '.join(REWARD_KINDS)}, got {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.game = get_game(game)
        self.spec = spec(game)
        self.options = dict(options or {})
        self.game.new_game(num_players, self.options)  # checks the count and the options
        self.num_players = num_players
        self.reward_kind: RewardKind = reward
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"menagerie_{game}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        size = self.spec.layout.size
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self.spec.actions.size,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._action_spaces = {
            agent: spaces.Discrete(self.spec.actions.size) for agent in self.possible_agents
        }
        self._seed = seed
        self._rng = random.Random(seed)
        self.game_state: State = self.game.new_game(num_players, self.options)
        self.agent_selection: str = self.possible_agents[0]
        self._started = False
        """Whether ``reset`` was called (stepping or observing before it raises)."""
        self._legal: dict[int, Action] | None = None
        """The legal actions by index of this step (None: not indexed yet)."""
        self._seen: dict[int, dict[str, Any]] = {}
        """This step's observations by seat, built when first asked for."""
        direct = ENCODERS.get(game)
        self._direct: Direct | None = direct(self.spec.layout, num_players) if direct else None
        """The game's encoder from the state's fields (:mod:`envs.direct`), if it has one."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` (else the one given to :func:`env`, else none) seeds the
        chance outcomes. ``options`` here are PettingZoo's, not the game's: not used."""
        if seed is not None:
            self._seed = seed
            self._rng = random.Random(seed)
        elif self._seed is not None:
            self._rng = random.Random(self._seed)
        self.game_state = self.game.new_game(self.num_players, self.options)
        self._started = True
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._advance()

    def observe(self, agent: str) -> dict[str, Any]:
        if not self._started:
            raise RuntimeError("call reset() before observe() or last()")
        seat = self._seat[agent]
        seen = self._seen.get(seat)
        if seen is None:
            state = self.game_state
            if state.current_player == seat:
                mask = self._mask(self.legal_by_index())
            else:
                mask = np.zeros(self.spec.actions.size, dtype=np.int8)
            if self._direct is not None:
                vector = self._direct(state, seat)
            else:
                vector = self.spec.layout.encode(state.observation(seat), self.num_players)
            seen = {"observation": vector, "action_mask": mask}
            self._seen[seat] = seen
        return seen

    def _mask(self, legal: dict[int, Action]) -> npt.NDArray[np.int8]:
        """1 at the index of each action of ``legal``, 0 elsewhere."""
        mask = np.zeros(self.spec.actions.size, dtype=np.int8)
        mask[np.fromiter(legal, dtype=np.intp, count=len(legal))] = 1
        return mask

    def legal_by_index(self) -> dict[int, Action]:
        """The mover's legal actions by index (indexed once per step)."""
        if self._legal is None:
            self._legal = self.spec.actions.legal(self.game_state)
        return self._legal

    def step(self, action: int | None) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is only for agents that are done")
        index = int(action)
        move = self.legal_by_index().get(index)
        if move is None:
            size = self.spec.actions.size
            if not 0 <= index < size:
                raise IllegalActionError(f"{agent}: action {index} is outside 0..{size - 1}")
            raise IllegalActionError(
                f"{agent}: action {index} ({self.spec.actions.label(index)}) is not legal "
                "now; the observation's action_mask has a 1 at each legal index"
            )
        self._cumulative_rewards[agent] = 0.0
        self.game_state.apply(move)
        if self._advance():  # rewards only come at the end: nothing to add before
            self._accumulate_rewards()

    def _advance(self) -> bool:
        """Resolve chance nodes, then point at the seat to move or end the game (True)."""
        state = self.game_state
        player = state.current_player  # a property: read once per node
        while player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), self._rng))
            player = state.current_player
        self._legal = None
        self._seen = {}
        if player == TERMINAL:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            result = state.result()
            values = rank_rewards(result) if self.reward_kind == "rank" else result.scores
            for agent in self.agents:
                self.rewards[agent] = float(values[self._seat[agent]])
                self.terminations[agent] = True
                self.infos[agent] = {"ranks": result.ranks, "scores": result.scores}
            # the seat that moved last goes first through the dead steps
            if self.agent_selection not in self.agents:
                self.agent_selection = self.agents[0]
            return True
        self.agent_selection = self.possible_agents[player]
        return False

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.game_state.render(None)

    def close(self) -> None:
        pass
