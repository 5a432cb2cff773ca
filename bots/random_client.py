"""The ``random`` bot as a gRPC client program (a command bot).

``python -m bots.random_client --address HOST:PORT --credential SECRET [--seed S]``
(or ``MENAGERIE_ADDRESS``/``MENAGERIE_CREDENTIAL`` in the environment). It plays one
seat of one match with uniformly random legal moves, using only the legal action list,
so it plays every game.
"""

from __future__ import annotations

import argparse
import random

from bots import sdk
from wire.convert import JSON


class RandomClient:
    """Uniform over the legal actions (seeded when ``seed`` is given)."""

    name = "random"
    version = "1"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(
        self, observation: dict[str, JSON], legal: list[sdk.LegalMove], clock: sdk.Clock
    ) -> int:
        return self.rng.randrange(len(legal))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sdk.add_connection_args(parser)
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    args = parser.parse_args(argv)
    sdk.serve(RandomClient(args.seed), args)


if __name__ == "__main__":
    main()
