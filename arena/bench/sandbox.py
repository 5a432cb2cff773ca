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

Each ratio is repeated until stable (:mod:`arena.bench.report`: pairs of runs, one each
way, until the median of the pairs' ratios settles; ``--repeats``/``--max-repeats``
start-up pairs, ``--games``/``--max-games`` match pairs). The machine must be able to
sandbox (root, Linux).
"""

from __future__ import annotations

import itertools
import statistics
import subprocess
import sys
import time
from typing import Any

from arena.bench import report
from arena.errors import UserError
from arena.match.cmdbots import open_bots
from arena.match.runner import MatchConfig, MatchSpec
from arena.sandbox import Launch, SandboxLimits, probe

STARTUP_GOAL = 1.2
MOVE_GOAL = 1.1
MAX_STARTUPS = 20
"""Default bound on the start-up pairs (plain and sandboxed) of each program."""
MAX_GAMES = 8
"""Default bound on the match pairs (plain and sandboxed) of the per-move figure."""
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


def startup(repeats: int, max_repeats: int | None = None) -> dict[str, Any]:
    """Start-to-exit ms of ``/bin/true`` and of a bot's imports, both ways: pairs of runs
    (plain then sandboxed: drift of a busy machine hits both) until the median of the
    pairs' ratios is stable (at least ``repeats``, at most ``max_repeats`` pairs). The
    times are the medians of each way's runs; the ratio is the median of the pairs'."""
    bound = max(repeats, max_repeats if max_repeats is not None else MAX_STARTUPS)
    out: dict[str, Any] = {}
    for label, argv in (("true", ["/bin/true"]), ("bot", [sys.executable, "-c", BOT_IMPORTS])):
        times: dict[bool, list[float]] = {True: [], False: []}

        def pair(argv: list[str] = argv, times: dict[bool, list[float]] = times) -> float:
            for sandboxed in (False, True):
                times[sandboxed].append(_time_run(argv, sandboxed) * 1000)
            return times[True][-1] / times[False][-1]

        verdict, _ = report.until_stable(pair, repeats, bound)
        out[label] = {
            "plain_ms": round(statistics.median(times[False]), 2),
            "sandboxed_ms": round(statistics.median(times[True]), 2),
            "ratio": round(verdict.median, 3),
            "stability": verdict.as_json(),
        }
    return out


def _match_move_ms(game: str, seed: int, sandboxed: bool) -> list[float]:
    """The command bot's move times (ms) in one match."""
    spec = MatchSpec(game, 2, seed=seed)
    with open_bots([MATCH_BOT, "random"], spec, MatchConfig(), trusted=not sandboxed) as session:
        record = session.play()
    return [float(s["ms"]) for s in record["steps"] if s["seat"] == 0 and "ms" in s]


def per_move(games: int, game: str, max_games: int | None = None) -> dict[str, Any]:
    """A command bot's move ms, plain and sandboxed: pairs of matches (one each way, the
    same seed) until the median of the pairs' ratios (of their median move times) is
    stable (at least ``games``, at most ``max_games`` pairs). The times are the medians of
    every move each way; the ratio is the median of the pairs'."""
    bound = max(games, max_games if max_games is not None else MAX_GAMES)
    moves: dict[bool, list[float]] = {True: [], False: []}
    seeds = itertools.count()

    def pair() -> float:
        seed = next(seeds)
        plain = _match_move_ms(game, seed, sandboxed=False)
        boxed = _match_move_ms(game, seed, sandboxed=True)
        moves[False].extend(plain)
        moves[True].extend(boxed)
        return statistics.median(boxed) / statistics.median(plain)

    verdict, _ = report.until_stable(pair, games, bound, window=report.window_for(bound))
    return {
        "game": game,
        "moves": len(moves[True]),
        "plain_ms": round(statistics.median(moves[False]), 4),
        "sandboxed_ms": round(statistics.median(moves[True]), 4),
        "ratio": round(verdict.median, 3),
        "stability": verdict.as_json(),
    }


def run_sandbox_bench(
    repeats: int,
    games: int,
    game: str,
    as_json: bool,
    max_repeats: int | None = None,
    max_games: int | None = None,
    earlier: Any = None,
) -> dict[str, Any]:
    """``arena bench sandbox``: text (each part as it is measured) or JSON, with the
    change of every figure against ``earlier`` (an earlier run's JSON) when given."""
    support = probe()
    if not support.usable:
        raise UserError(f"cannot benchmark the sandbox here: {support.problem}")
    info = report.machine()
    if not as_json:
        print(report.header_line(info), flush=True)
    out: dict[str, Any] = {"machine": info, "startup": startup(repeats, max_repeats)}
    if not as_json:
        for label, row in out["startup"].items():
            goal = f" (goal <= {STARTUP_GOAL}x)" if label == "bot" else ""
            print(
                f"start-up {label:>4}: {row['plain_ms']:8.2f} ms plain, "
                f"{row['sandboxed_ms']:8.2f} ms sandboxed: {row['ratio']:.2f}x{goal}"
                f"{report.Stability.from_json(row['stability']).note()}",
                flush=True,
            )
    pm = out["per_move"] = per_move(games, game, max_games)
    out["goals"] = {"startup_ratio": STARTUP_GOAL, "move_ratio": MOVE_GOAL}
    if not as_json:
        print(
            f"per move ({pm['game']}, {pm['moves']} moves): {pm['plain_ms']:.3f} ms plain, "
            f"{pm['sandboxed_ms']:.3f} ms sandboxed: {pm['ratio']:.2f}x (goal <= {MOVE_GOAL}x)"
            f"{report.Stability.from_json(pm['stability']).note()}"
        )
    report.finish(out, earlier, as_json)
    return out
