"""A policy trained with :mod:`envs.reinforce`, played as an SDK bot (a command bot).

``python -m envs.policy_bot --policy envs/policies/panorama.npz --address HOST:PORT
--credential SECRET`` (or ``MENAGERIE_ADDRESS``/``MENAGERIE_CREDENTIAL``): each turn it
encodes the observation it receives with the game's layout, masks the policy's logits to
the legal moves and plays the most probable one. So ``arena bot check "python -m
envs.policy_bot --policy ..." --game panorama`` checks it and ``cmd:`` specs enter it in
tournaments like any other program.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bots import sdk
from engine.registry import get_game
from envs.reinforce import LinearPolicy, choose_index
from wire.convert import JSON

DEFAULT_POLICY = Path(__file__).parent / "policies" / "panorama.npz"
"""The example policy trained for Panorama (``envs.reinforce``, see the README)."""


class PolicyBot:
    """Plays a :class:`LinearPolicy` greedily (its most probable legal action)."""

    name = "policy"
    version = "1"

    def __init__(self, policy: LinearPolicy) -> None:
        self.policy = policy
        self.game = get_game(policy.game_id)

    def choose(
        self, observation: dict[str, JSON], legal: list[sdk.LegalMove], clock: sdk.Clock
    ) -> int:
        actions = [self.game.action_from_json(move.action) for move in legal]
        return choose_index(self.policy, observation, actions)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sdk.add_connection_args(parser)
    parser.add_argument("--policy", type=Path, default=DEFAULT_POLICY, help="a saved .npz")
    args = parser.parse_args(argv)
    sdk.serve(PolicyBot(LinearPolicy.load(args.policy)), args)


if __name__ == "__main__":
    main()
