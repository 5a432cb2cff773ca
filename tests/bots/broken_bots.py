"""Deliberately broken command bots for the tests of ``arena bot check``.

``broken_bots.py --mode MODE`` (plus the arena's ``--address``/``--credential``); every
mode plays random legal moves except for its one defect:

- ``never-join``: never connects (it sleeps; a bot stuck before it joins);
- ``crash-at-game-over``: plays well, then raises in its GameOver hook (exit status 1);
- ``hang-after-close``: plays well and exits after a finished game, but when the game
  ends otherwise (GameOver "aborted", or the stream fails with UNAVAILABLE) it waits
  forever for the server to come back.

Late and illegal moves come from ``tests/wire/scripted_bot.py`` (modes ``slow`` and
``index``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bots import sdk


class Broken:
    name = "broken"
    version = "1"

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.rng = random.Random(0)

    def choose(self, observation: dict, legal: list[sdk.LegalMove], clock: sdk.Clock) -> int:
        return self.rng.randrange(len(legal))

    def on_game_over(self, result: sdk.GameResult) -> None:
        if self.mode == "crash-at-game-over":
            raise RuntimeError("broken bot: crash at game over")


def hang(why: str) -> None:
    print(f"broken bot: {why}; waiting for the server to come back", file=sys.stderr, flush=True)
    while True:
        time.sleep(3600)


def main() -> None:
    parser = argparse.ArgumentParser()
    sdk.add_connection_args(parser)
    parser.add_argument("--mode", required=True)
    args = parser.parse_args()
    if args.mode == "never-join":
        hang("never joined")
    bot = Broken(args.mode)
    try:
        result = sdk.run(bot, args.address, args.credential)
    except sdk.SdkError as exc:
        if args.mode == "hang-after-close":
            hang(f"the stream failed ({exc.code})")
        raise
    if args.mode == "hang-after-close" and result.status != "finished":
        hang(f"the game was {result.status}")


if __name__ == "__main__":
    main()
