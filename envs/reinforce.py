"""A small policy trained by self-play REINFORCE, numpy only (CPU, a few minutes).

``python -m envs.reinforce --game panorama --out envs/policies/panorama.npz`` (15000 games)
trains a linear softmax policy over the game's tensors (:mod:`envs.layouts`): logits
``W @ x + b`` with illegal actions masked out. Every seat of each training game plays
the same policy through the PettingZoo environment; at the end each decision of a seat
is pushed toward (or away from) what it chose by that seat's final score (or rank
reward, ``--reward rank``) minus the table's mean (Williams' REINFORCE with a baseline).
``--eval N`` then plays N games against the reference ``random`` and ``greedy`` bots
(seats alternating) and prints the policy's win rates.
:mod:`envs.policy_bot` plays a saved policy as an SDK bot.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from bots.base import Turn
from bots.registry import REFERENCE_BOTS, load_class
from engine.core import Action, State, sample_outcome
from engine.registry import get_game
from envs.layouts import spec
from envs.pettingzoo import RewardKind, env
from envs.tensors import ActionSpace

SCORE_SCALE = 10.0
"""Score rewards are divided by this (points differences of tens)."""

Array = npt.NDArray[np.float64]


@dataclass
class LinearPolicy:
    """Logits ``weights @ x + bias`` over the game's action space."""

    game_id: str
    weights: Array
    bias: Array

    @classmethod
    def zeros(cls, game_id: str) -> LinearPolicy:
        game_spec = spec(game_id)
        size, actions = game_spec.layout.size, game_spec.actions.size
        return cls(game_id, np.zeros((actions, size)), np.zeros(actions))

    def probabilities(self, x: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> Array:
        logits = self.weights @ x + self.bias
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max()
        p = np.exp(logits)
        return np.asarray(p / p.sum(), dtype=np.float64)

    def best(self, x: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        """The most probable legal action (how the bot plays)."""
        return int(np.argmax(np.where(mask > 0, self.weights @ x + self.bias, -np.inf)))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            np.savez(f, game=self.game_id, weights=self.weights, bias=self.bias)

    @classmethod
    def load(cls, path: Path) -> LinearPolicy:
        with np.load(path) as data:
            game_id = str(data["game"])
            policy = cls(game_id, data["weights"], data["bias"])
        expected = cls.zeros(game_id)
        if policy.weights.shape != expected.weights.shape:
            raise ValueError(
                f"{path}: weights of shape {policy.weights.shape}, but {game_id}'s layout "
                f"needs {expected.weights.shape} (trained for another version?)"
            )
        return policy


def train(
    game_id: str,
    num_players: int,
    episodes: int,
    seed: int,
    lr: float = 0.005,
    reward: RewardKind = "score",
) -> LinearPolicy:
    """Self-play REINFORCE for ``episodes`` games (see the module docstring)."""
    policy = LinearPolicy.zeros(game_id)
    rng = np.random.default_rng(seed)
    aec = env(game_id, num_players=num_players, seed=seed, reward=reward)
    scale = SCORE_SCALE if reward == "score" else 1.0
    for episode in range(episodes):
        aec.reset(seed=seed + episode)
        trace: dict[str, list[tuple[npt.NDArray[np.float32], Array, int]]] = {
            agent: [] for agent in aec.possible_agents
        }
        final: dict[str, float] = {}
        for agent in aec.agent_iter():
            observation, gained, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                final[agent] = gained
                aec.step(None)
                continue
            x, mask = observation["observation"], observation["action_mask"]
            p = policy.probabilities(x, mask)
            action = int(rng.choice(len(p), p=p))
            trace[agent].append((x, p, action))
            aec.step(action)
        baseline = float(np.mean(list(final.values())))
        for agent, steps in trace.items():
            advantage = (final[agent] - baseline) / scale
            for x, p, action in steps:
                grad = -p
                grad[action] += 1.0
                policy.weights += lr * advantage * np.outer(grad, x)
                policy.bias += lr * advantage * grad
    return policy


def choose_index(policy: LinearPolicy, observation: dict[str, object], legal: list[Action]) -> int:
    """The index in ``legal`` of the policy's choice for this observation."""
    game_spec = spec(policy.game_id)
    space = game_spec.actions
    if not isinstance(space, ActionSpace):
        raise ValueError(f"{policy.game_id}: a linear policy needs a game with a flat action list")
    num_players = len(observation["scores"])  # type: ignore[arg-type]
    x = game_spec.layout.encode(observation, num_players)
    choice = space.actions[policy.best(x, space.mask(legal))]
    return legal.index(choice)


def win_rate(policy: LinearPolicy, opponent: str, games: int, seed: int) -> float:
    """The policy's share of wins (rank 1, ties counted) against ``opponent`` bots in
    two-seat games, seats alternating."""
    game = get_game(policy.game_id)
    wins = 0
    rng = random.Random(seed)
    for g in range(games):
        mine = g % 2
        other = load_class(REFERENCE_BOTS[opponent])()
        state: State = game.new_game(2, None)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            seat = state.current_player
            if seat == mine:
                legal = state.legal_actions()
                state.apply(legal[choose_index(policy, state.observation(seat), legal)])
            else:
                turn = Turn.of(state, seat, random.Random(rng.random()))
                picked = other.choose(turn)
                state.apply(turn.legal[picked] if isinstance(picked, int) else picked)
        wins += state.result().ranks[mine] == 1
    return wins / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="panorama")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=15000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--reward", choices=("score", "rank"), default="score")
    parser.add_argument("--out", type=Path, default=None, help="where to save the policy")
    parser.add_argument("--load", type=Path, default=None, help="evaluate a saved policy")
    parser.add_argument("--eval", type=int, default=200, help="evaluation games per opponent")
    args = parser.parse_args(argv)
    if args.load is not None:
        policy = LinearPolicy.load(args.load)
    else:
        policy = train(args.game, args.players, args.episodes, args.seed, args.lr, args.reward)
        if args.out is not None:
            policy.save(args.out)
    for opponent in ("random", "greedy"):
        rate = win_rate(policy, opponent, args.eval, seed=10_000)
        print(f"{policy.game_id}: win rate against {opponent}: {rate:.3f} ({args.eval} games)")


if __name__ == "__main__":
    main()
