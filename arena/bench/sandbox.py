"""``arena bench sandbox``: what the sandbox of command bots costs.

1. ``startup``: wall time of starting a program and seeing it exit, in the sandbox
   (``arena.sandbox.Launch``: namespaces, private uid, tmpfs, rlimits) and without it,
   for ``/bin/true`` (the sandbox's own cost, in ms) and for a Python program that
   imports what an SDK bot imports (``grpc``, ``bots.sdk``): the start-up a bot author
   sees. Goal: the bot's ratio at most :data:`STARTUP_GOAL`.
2. ``per_move``: real matches of ``cmd:python -m bots.random_client`` against an
   in-process random bot, sandboxed and not (``open_bots(trusted=True)``), alternating;
   the median of the command bot's move times (``steps[].ms``: from the server sending
   its Turn to receiving its Move, over the Unix socket or TCP loopback). Goal: ratio
   at most :data:`MOVE_GOAL`.

Medians over the repeats; the machine must be able to sandbox (root, Linux).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from typing import Any

from arena.errors import UserError
from arena.match.cmdbots import open_bots
from arena.match.runner import MatchConfig, MatchSpec
from arena.sandbox import Launch, SandboxLimits, probe

STARTUP_GOAL = 1.2
MOVE_GOAL = 1.1
BOT_IMPORTS = "import grpc, bots.sdk"
MATCH_BOT = f"cmd:{sys.executable} -m bots.random_client --seed 1"


def _time_run(argv: list[str], sandboxed: bool) -> float:
    """Seconds from starting ``argv`` to its exit (in the sandbox or not)."""
    if sandboxed:
        with Launch.prepare(argv, {}, SandboxLimits()) as launch:
            t0 = time.perf_counter()
            subprocess.run(launch.argv, env=launch.env, check=True, timeout=60)
            return time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, timeout=60)
    return time.perf_counter() - t0


def startup(repeats: int) -> dict[str, Any]:
    """Median start-to-exit ms of ``/bin/true`` and of a bot's imports, both ways."""
    out: dict[str, Any] = {}
    for label, argv in (("true", ["/bin/true"]), ("bot", [sys.executable, "-c", BOT_IMPORTS])):
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(repeats):
            for sandboxed in (False, True):  # alternate: drift of a busy machine hits both
                times[sandboxed].append(_time_run(argv, sandboxed) * 1000)
        plain, boxed = statistics.median(times[False]), statistics.median(times[True])
        out[label] = {
            "plain_ms": round(plain, 2),
            "sandboxed_ms": round(boxed, 2),
            "ratio": round(boxed / plain, 3),
        }
    return out


def per_move(games: int, game: str) -> dict[str, Any]:
    """Median move ms of a command bot over ``games`` matches each way."""
    moves: dict[bool, list[float]] = {True: [], False: []}
    for seed in range(games):
        for sandboxed in (False, True):
            spec = MatchSpec(game, 2, seed=seed)
            with open_bots(
                [MATCH_BOT, "random"], spec, MatchConfig(), trusted=not sandboxed
            ) as session:
                record = session.play()
            moves[sandboxed].extend(
                float(s["ms"]) for s in record["steps"] if s["seat"] == 0 and "ms" in s
            )
    plain, boxed = statistics.median(moves[False]), statistics.median(moves[True])
    return {
        "game": game,
        "moves": len(moves[True]),
        "plain_ms": round(plain, 4),
        "sandboxed_ms": round(boxed, 4),
        "ratio": round(boxed / plain, 3),
    }


def run_sandbox_bench(repeats: int, games: int, game: str, as_json: bool) -> dict[str, Any]:
    support = probe()
    if not support.usable:
        raise UserError(f"cannot benchmark the sandbox here: {support.problem}")
    report = {
        "startup": startup(repeats),
        "per_move": per_move(games, game),
        "goals": {"startup_ratio": STARTUP_GOAL, "move_ratio": MOVE_GOAL},
    }
    if as_json:
        print(json.dumps(report, indent=1))
        return report
    for label, row in report["startup"].items():
        goal = f" (goal <= {STARTUP_GOAL}x)" if label == "bot" else ""
        print(
            f"start-up {label:>4}: {row['plain_ms']:8.2f} ms plain, "
            f"{row['sandboxed_ms']:8.2f} ms sandboxed: {row['ratio']:.2f}x{goal}"
        )
    pm = report["per_move"]
    print(
        f"per move ({pm['game']}, {pm['moves']} moves): {pm['plain_ms']:.3f} ms plain, "
        f"{pm['sandboxed_ms']:.3f} ms sandboxed: {pm['ratio']:.2f}x (goal <= {MOVE_GOAL}x)"
    )
    return report
