"""A scripted command bot for the wire tests: plays random moves, misbehaves on cue.

``scripted_bot.py --mode MODE [--at N] [--sleep S] [--code C]`` (plus the arena's
``--address``/``--credential``). At its N-th turn (1-based) it:

- ``good``: never misbehaves;
- ``index``: answers index 999 (out of range);
- ``action``: answers a typed action that is not legal (or malformed);
- ``slow``: sleeps S seconds, then answers;
- ``silent``: never answers (sleeps);
- ``exit``: writes to stderr and exits with code C;
- ``close``: closes its stream but stays alive (60 s: the arena must kill it);
- ``crash``: raises an exception (traceback on stderr, exit 1);
- ``child``: (at start) leaves a ``sleep`` child behind, its pid and start time (clock
  ticks after boot, field 22 of ``/proc/PID/stat``) written to ``--pidfile``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bots import sdk


class CloseStream(Exception):
    pass


class Scripted:
    name = "scripted"
    version = "7"

    def __init__(self, mode: str, at: int, sleep: float, code: int) -> None:
        self.mode, self.at, self.sleep, self.code = mode, at, sleep, code
        self.turns = 0
        self.rng = random.Random(0)

    def choose(self, observation: dict, legal: list, clock: sdk.Clock) -> object:
        self.turns += 1
        if self.turns == self.at:
            mode = self.mode
            if mode == "index":
                return 999
            if mode == "action":
                return {"kind": "take_truck", "truck": "T9"}
            if mode == "slow":
                time.sleep(self.sleep)
            elif mode == "silent":
                time.sleep(3600)
            elif mode == "exit":
                print("scripted bot: exiting on purpose", file=sys.stderr, flush=True)
                os._exit(self.code)
            elif mode == "close":
                raise CloseStream()
            elif mode == "crash":
                raise RuntimeError("scripted crash")
        return self.rng.randrange(len(legal))


def main() -> None:
    parser = argparse.ArgumentParser()
    sdk.add_connection_args(parser)
    parser.add_argument("--mode", default="good")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--sleep", type=float, default=1.0)
    parser.add_argument("--code", type=int, default=3)
    parser.add_argument("--pidfile", default="")
    args = parser.parse_args()
    if args.mode == "child":
        import subprocess

        child = subprocess.Popen(["sleep", "60"])
        stat = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        Path(args.pidfile).write_text(f"{child.pid} {stat[19]}")
    bot = Scripted(args.mode, args.at, args.sleep, args.code)
    try:
        sdk.run(bot, args.address, args.credential)
    except CloseStream:
        time.sleep(60)


if __name__ == "__main__":
    main()
