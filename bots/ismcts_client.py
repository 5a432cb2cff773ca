"""The ``ismcts`` (or ``greedy``) bot as a gRPC client program (a command bot).

``python -m bots.ismcts_client --address HOST:PORT --credential SECRET [--iterations N |
--ms M] [--bot greedy] [--seed S]`` (address and credential may come from
``MENAGERIE_ADDRESS``/``MENAGERIE_CREDENTIAL``), or as a seat of an arena match::

    arena play panorama --players 2 \\
        --bots "cmd:python -m bots.ismcts_client --iterations 200,greedy"

It is an ordinary SDK bot (:mod:`bots.sdk`): over the wire it receives only its
observation and the legal actions, while the search needs a full game state to draw
determinizations from. Each turn it rebuilds one with the engine's
``game.from_observation`` (everything the observation shows as shown, everything hidden
drawn at random), then the in-process bot plays on it exactly as it would in the arena.
If a state cannot be rebuilt (an observation the engine rejects, or legal actions that
differ from the server's), that one move is a random legal move, reported on stderr.
"""

from __future__ import annotations

import argparse
import random
import sys

from bots import sdk
from bots.base import Bot, Turn
from bots.registry import REFERENCE_BOTS, load_class
from engine import GAMES, Game
from engine.core import JSON


class WireSearchBot:
    """Plays one seat over the wire with an in-process bot on rebuilt states."""

    def __init__(self, bot: Bot, spec: str, seed: int | None = None) -> None:
        self.bot = bot
        self.name = spec
        self.version = "1"
        self.seed = seed
        self.rng = random.Random(seed)
        self.info: sdk.MatchInfo | None = None
        self.fallbacks = 0
        self.turns = 0

    def on_start(self, info: sdk.MatchInfo) -> None:
        self.info = info
        if self.seed is None:  # reproducible by default: the match's seed and this seat
            self.rng = random.Random(f"{info.seed}:{info.seat}")

    def choose(
        self, observation: dict[str, JSON], legal: list[sdk.LegalMove], clock: sdk.Clock
    ) -> int:
        """The index of the chosen legal action."""
        assert self.info is not None, "a turn before MatchStart"
        self.turns += 1
        game: Game = GAMES[self.info.game]
        try:
            state = game.from_observation(
                self.info.num_players, self.info.options, self.info.seat, observation, self.rng
            )
            actions = state.legal_actions()
            if [a.to_json() for a in actions] != [m.action for m in legal]:
                raise ValueError("the rebuilt state's legal actions differ from the server's")
        except (ValueError, NotImplementedError) as exc:
            self.fallbacks += 1
            print(f"ismcts client: turn {self.turns}: {exc}; random move", file=sys.stderr)
            return self.rng.randrange(len(legal))
        turn = Turn(
            game,
            self.info.seat,
            self.info.num_players,
            self.info.options,
            observation,
            actions,
            self.rng,
            clock.remaining_ms(),
            determinization=state,
        )
        choice = self.bot.choose(turn)
        return choice if isinstance(choice, int) else actions.index(choice)

    def on_game_over(self, result: sdk.GameResult) -> None:
        print(
            f"ismcts client: game over, ranks {result.ranks}; {self.fallbacks} of "
            f"{self.turns} moves without a rebuilt state",
            file=sys.stderr,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sdk.add_connection_args(parser)
    parser.add_argument(
        "--bot",
        default="ismcts",
        choices=sorted(REFERENCE_BOTS),
        help="in-process reference bot: ismcts or greedy",
    )
    parser.add_argument("--iterations", type=int, default=None, help="ISMCTS iterations")
    parser.add_argument("--ms", type=float, default=None, help="ISMCTS time per move (ms)")
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the bot's RNG (default: the match's)"
    )
    args = parser.parse_args(argv)
    params: dict[str, float] = {}
    if args.bot == "ismcts":
        params = {k: v for k, v in (("iterations", args.iterations), ("ms", args.ms)) if v}
    spec = args.bot  # the name the bot plays under, as an arena spec
    if params:
        spec += ":" + ",".join(f"{k}={v}" for k, v in params.items())
    bot = load_class(REFERENCE_BOTS[args.bot])(**params)
    sdk.serve(WireSearchBot(bot, spec, args.seed), args)


if __name__ == "__main__":
    main()
