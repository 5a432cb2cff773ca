"""``arena bench startup``: the wall time of a 2-game tournament, start to exit.

A small run is dominated by start-up, not by its games: the interpreter and the arena's
imports, MLflow's import and store (migrations when the SQLite file is new), the result
files. Each case runs ``arena tournament --game dziobaki --players 2 --bots
random,greedy`` as a fresh process in a temporary directory until its wall time is
stable (:mod:`arena.bench.report`: at least ``--repeats``, at most ``--max-repeats``
runs) and reports the median wall time and CPU time (user + system) of the process:

- ``no-tracking``: ``--no-tracking``;
- ``tracking-existing``: MLflow's SQLite store ``mlflow.db`` already exists (the steady
  case: a new run in it);
- ``tracking-fresh``: no ``mlflow.db`` yet (MLflow creates and migrates it).

Goal (issue 19): ≤ 3 s wall with tracking into an existing store, on a 2-core machine.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bench import report

COMMAND = ["tournament", "--game", "dziobaki", "--players", "2", "--bots", "random,greedy", "-q"]
CASES = ("no-tracking", "tracking-existing", "tracking-fresh")
GOAL_SECONDS = 3.0
"""The goal for ``tracking-existing`` (wall, median)."""
MAX_REPEATS = 5
"""Default bound on the runs of one case (each is a fresh process of a few seconds)."""
TIMEOUT_SECONDS = 300.0
"""A run that takes longer than this is a failure, not a figure."""


def _run_once(cwd: Path, tracking: bool) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``arena tournament`` process in ``cwd``."""
    shutil.rmtree(cwd / "tournaments", ignore_errors=True)
    args = [sys.executable, "-c", "from arena.cli.app import main; main()", *COMMAND]
    if not tracking:
        args.append("--no-tracking")
    env = {k: v for k, v in os.environ.items() if k not in ("MLFLOW_TRACKING_URI", "RAY_ADDRESS")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"arena tournament failed ({proc.returncode}): {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _case_run(cwd: Path, case: str) -> tuple[float, float]:
    """One run of ``case`` in ``cwd``, after putting the MLflow store in the state the
    case asks for."""
    if case == "tracking-fresh":
        (cwd / "mlflow.db").unlink(missing_ok=True)
        shutil.rmtree(cwd / "mlartifacts", ignore_errors=True)
    elif case == "tracking-existing" and not (cwd / "mlflow.db").exists():
        _run_once(cwd, tracking=True)  # create the store first (not timed)
    return _run_once(cwd, tracking=case != "no-tracking")


def measure(
    repeats: int = 3,
    max_repeats: int = MAX_REPEATS,
    cases: Sequence[str] = CASES,
    show: bool = False,
) -> dict[str, Any]:
    """Median wall and CPU seconds of each case (see the module docstring), each case run
    until its wall time is stable (at least ``repeats``, at most ``max_repeats`` runs;
    :mod:`arena.bench.report`); with ``show``, each case's line is printed when it is done."""
    out: dict[str, Any] = {"machine": report.machine(), "goal_seconds": GOAL_SECONDS}
    if show:
        print(report.header_line(out["machine"]), flush=True)
        print("2-game tournament, start to exit (median of the runs):", flush=True)
    with tempfile.TemporaryDirectory(prefix="mnr-bench-startup-") as tmp:
        cwd = Path(tmp)
        for case in cases:
            runs: list[tuple[float, float]] = []

            def once(case: str = case, runs: list[tuple[float, float]] = runs) -> float:
                runs.append(_case_run(cwd, case))
                return runs[-1][0]

            verdict, _ = report.until_stable(
                once, repeats, max_repeats, window=report.window_for(max_repeats)
            )
            row = {
                "wall_seconds": round(verdict.median, 3),
                "cpu_seconds": round(statistics.median(c for _, c in runs), 3),
                "stability": verdict.as_json(),
            }
            out[case] = row
            if show:
                print(
                    f"  {case:<18} {row['wall_seconds']:6.2f} s wall  "
                    f"{row['cpu_seconds']:6.2f} s CPU  ({verdict.repeats} runs){verdict.note()}",
                    flush=True,
                )
    if "tracking-existing" in out:
        out["goal_met"] = out["tracking-existing"]["wall_seconds"] <= GOAL_SECONDS
        if show:
            print(
                f"goal ≤ {GOAL_SECONDS:g} s wall with tracking into an existing store: "
                f"{'met' if out['goal_met'] else 'NOT met'}"
            )
    return out


def run_startup_bench(
    repeats: int,
    as_json: bool,
    max_repeats: int = MAX_REPEATS,
    earlier: Any = None,
    cases: Sequence[str] = CASES,
) -> dict[str, Any]:
    """``arena bench startup``: text (each case as it is measured) or JSON, with the
    change of every figure against ``earlier`` (an earlier run's JSON) when given."""
    out = measure(repeats, max_repeats, cases, show=not as_json)
    report.finish(out, earlier, as_json)
    return out
