"""``arena bench startup``: the wall time of a 2-game tournament, start to exit.

A small run is dominated by start-up, not by its games: the interpreter and the arena's
imports, MLflow's import and store (migrations when the SQLite file is new), the result
files. Each case runs ``arena tournament --game dziobaki --players 2 --bots
random,greedy`` as a fresh process in a temporary directory ``repeats`` times and
reports the median wall time and the CPU time (user + system) of the process:

- ``no-tracking``: ``--no-tracking``;
- ``tracking-existing``: MLflow's SQLite store ``mlflow.db`` already exists (the steady
  case: a new run in it);
- ``tracking-fresh``: no ``mlflow.db`` yet (MLflow creates and migrates it).

Goal (issue 19): ≤ 3 s wall with tracking into an existing store, on a 2-core machine.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

COMMAND = ["tournament", "--game", "dziobaki", "--players", "2", "--bots", "random,greedy", "-q"]
CASES = ("no-tracking", "tracking-existing", "tracking-fresh")
GOAL_SECONDS = 3.0
"""The goal for ``tracking-existing`` (wall, median)."""
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


def measure(repeats: int = 3) -> dict[str, Any]:
    """Median wall and CPU seconds of each case (see the module docstring)."""
    report: dict[str, Any] = {"repeats": repeats, "goal_seconds": GOAL_SECONDS}
    with tempfile.TemporaryDirectory(prefix="mnr-bench-startup-") as tmp:
        cwd = Path(tmp)
        for case in CASES:
            runs = []
            for _ in range(repeats):
                if case == "tracking-fresh":
                    (cwd / "mlflow.db").unlink(missing_ok=True)
                    shutil.rmtree(cwd / "mlartifacts", ignore_errors=True)
                elif case == "tracking-existing" and not (cwd / "mlflow.db").exists():
                    _run_once(cwd, tracking=True)  # create the store first
                runs.append(_run_once(cwd, tracking=case != "no-tracking"))
            report[case] = {
                "wall_seconds": round(statistics.median(w for w, _ in runs), 3),
                "cpu_seconds": round(statistics.median(c for _, c in runs), 3),
            }
    report["goal_met"] = report["tracking-existing"]["wall_seconds"] <= GOAL_SECONDS
    report["cpus"] = os.cpu_count()
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return report


def run_startup_bench(repeats: int, as_json: bool) -> None:
    report = measure(repeats)
    if as_json:
        print(json.dumps(report, indent=1))
        return
    print(f"2-game tournament, start to exit (median of {repeats}):")
    for case in CASES:
        r = report[case]
        print(f"  {case:<18} {r['wall_seconds']:6.2f} s wall  {r['cpu_seconds']:6.2f} s CPU")
    verdict = "met" if report["goal_met"] else "NOT met"
    print(
        f"goal ≤ {GOAL_SECONDS:g} s wall with tracking into an existing store: {verdict} "
        f"(load average {report['load_average'][0]} on {report['cpus']} CPUs)"
    )
