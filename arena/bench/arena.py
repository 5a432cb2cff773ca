"""``arena bench arena``: tournament throughput on Ray vs sequential, logging overhead.

The same schedule (random bots, 2-player games) is played three ways:

- sequentially in this process without Ray (the worker's own code, ``play_batch``);
- as a tournament on a local Ray with 1 worker, then with 2 workers, each with the
  journal and an MLflow SQLite store in a temporary directory.

Games/s of a tournament count from the first task submitted to the last record
journaled (Ray start-up and the final rating fit are excluded; worker start-up is not:
each Ray session first plays a small warm-up tournament). The logging share is the
driver's wall time spent on the journal (handing records to its writer thread, which
fsyncs) and on MLflow (handing work to its thread, and waiting for the final upload at
the end) over the tournament's wall time (with Ray already up); the busy time of the
two threads is reported too.
Goals: ≥ 1.8× the sequential rate with 2 workers; logging ≤ 1% of wall time.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.bench import report
from arena.tournament.config import load_config
from arena.tournament.ray_runner import GameSetup, play_batch, ray_session
from arena.tournament.run import run_tournament
from engine import GAMES

ROSTER_SIZE = 5
"""Five copies of the bot (``--bot``, default random): 20 games a round."""


def _pick_game(game: str | None) -> str:
    if game is not None:
        return game
    for gid in ("zooloretto_mini", "manatee_sanctuary", "carson_city_zoo"):
        if gid in GAMES:
            return gid
    return next(iter(GAMES))


def _rounds_for(games: int, bots: int) -> int:
    per_round = bots * (bots - 1)  # 2-player groups x 2 rotations
    return max(1, round(games / per_round))


def _config(game: str, rounds: int, workers: int, tmp: Path, name: str, bot: str) -> Any:
    return load_config(
        None,
        {
            "game": game,
            "bots": [bot] * ROSTER_SIZE,
            "players": 2,
            "rounds": rounds,
            "seed": 1,
            "workers": workers,
            "name": name,
            "tracking_uri": f"sqlite:///{tmp / 'mlflow.db'}",
            "experiment": "bench",
            "out": str(tmp / name),
        },
    )


def bench_sequential(game: str, rounds: int, bot: str, niceness: int = 0) -> dict[str, float]:
    """Play the schedule in one process without Ray (in chunks, records discarded);
    ``niceness`` > 0 runs it in a child process at that niceness (as Ray's workers)."""
    if niceness > 0:
        import concurrent.futures
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(
            1, mp_context=ctx, initializer=os.nice, initargs=(niceness,)
        ) as pool:
            return pool.submit(bench_sequential, game, rounds, bot, 0).result()
    cfg = _config(game, rounds, 1, Path(tempfile.gettempdir()), "seq", bot)
    schedule = cfg.schedule(2, rounds)
    games = list(schedule)
    setup = GameSetup(game, 2, {}, cfg.tournament_id)
    play_batch(setup, games[:20])  # warm caches
    played = 0
    t0, cpu0 = time.perf_counter(), time.process_time()
    for i in range(0, len(games), 100):
        played += len(play_batch(setup, games[i : i + 100]).lines)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    return {
        "games": played,
        "seconds": seconds,
        "games_per_s": played / seconds,
        "cpu_ms_per_game": 1000 * cpu / max(played, 1),
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a local process (0 if it is gone or not local)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def bench_ray(game: str, rounds: int, workers: int, tmp: Path, bot: str) -> dict[str, float]:
    with ray_session(workers):
        warm = run_tournament(_config(game, 1, workers, tmp, f"warmup{workers}", bot), quiet=True)
        before = {pid: _cpu_seconds(pid) for pid in warm.worker_pids}
        cfg = _config(game, rounds, workers, tmp, f"ray{workers}", bot)
        res = run_tournament(cfg, quiet=True)
        driver_cpu = res.play_cpu_seconds  # all driver threads, while the games are played
        worker_cpu = sum(_cpu_seconds(p) - before.get(p, 0.0) for p in res.worker_pids)
    logging = res.journal_seconds + res.tracking_seconds
    return {
        "games": res.played,
        "seconds": res.play_seconds,
        "tournament_seconds": res.seconds,
        "games_per_s": res.played / res.play_seconds,
        "journal_s": res.journal_seconds,
        "journal_thread_s": res.journal_thread_seconds,
        "tracking_driver_s": res.tracking_seconds,
        "tracking_thread_s": res.tracking_thread_seconds,
        "logging_share": logging / res.seconds,
        "tracked": float(res.tracked),
        "worker_cpu_ms_per_game": 1000 * worker_cpu / max(res.played, 1),
        "driver_cpu_ms_per_game": 1000 * driver_cpu / max(res.played, 1),
    }


def worker_niceness() -> int:
    """The niceness Ray gives its workers (``RAY_worker_niceness``, default 15)."""
    try:
        return int(os.environ.get("RAY_worker_niceness", "15"))  # noqa: SIM112  # Ray's own variable name
    except ValueError:
        return 15


def run_arena_bench(
    game: str | None,
    games: int,
    as_json: bool,
    bot: str = "random",
    repeats: int = 1,
    max_repeats: int = 1,
    earlier: Any = None,
) -> dict[str, Any]:
    """Sequential, 1 and 2 Ray workers, repeated until the 2-worker speedup is stable
    (at least ``repeats``, at most ``max_repeats`` times; every figure is the median over
    the repeats); text or JSON, with the change against ``earlier`` when given."""
    gid = _pick_game(game)
    rounds = _rounds_for(games, ROSTER_SIZE)
    nice = worker_niceness()
    info = report.machine()
    if not as_json:
        print(report.header_line(info), flush=True)
    runs: list[dict[str, dict[str, float]]] = []

    def measure() -> float:
        seq = bench_sequential(gid, rounds, bot)
        seq_nice = bench_sequential(gid, rounds, bot, nice) if nice > 0 else seq
        with tempfile.TemporaryDirectory(prefix="mnr-bench-") as tmp:
            ray1 = bench_ray(gid, rounds, 1, Path(tmp), bot)
            ray2 = bench_ray(gid, rounds, 2, Path(tmp), bot)
        runs.append({"seq": seq, "seq_nice": seq_nice, "ray1": ray1, "ray2": ray2})
        return ray2["games_per_s"] / seq["games_per_s"]

    verdict, _ = report.until_stable(
        measure, repeats, max(repeats, max_repeats), window=min(report.WINDOW, max(repeats, 2))
    )
    medians = report.median_figures(runs)
    seq, seq_nice, ray1, ray2 = (
        medians["seq"],
        medians["seq_nice"],
        medians["ray1"],
        medians["ray2"],
    )
    base = seq["games_per_s"]
    base_nice = seq_nice["games_per_s"]
    out: dict[str, Any] = {
        "machine": info,
        "stability": verdict.as_json(),
        "game": gid,
        "bot": bot,
        "games": int(seq["games"]),
        "cpus": os.cpu_count(),
        "load_average_1min": os.getloadavg()[0],
        "worker_niceness": nice,
        "sequential": seq,
        "sequential_at_worker_niceness": seq_nice,
        "ray_1_worker": ray1,
        "ray_2_workers": ray2,
        "speedup_1_worker": ray1["games_per_s"] / base,
        "speedup_2_workers": ray2["games_per_s"] / base,
        "speedup_2_workers_same_niceness": ray2["games_per_s"] / base_nice,
        "goal_speedup_2_workers": 1.8,
        "logging_share_max": max(ray1["logging_share"], ray2["logging_share"]),
        # what 2 workers would reach on 2 otherwise idle cores: the CPU a game costs
        # in a worker plus its share of the driver, against the sequential CPU cost
        "projected_speedup_2_workers_idle": min(
            2 * seq["cpu_ms_per_game"] / ray2["worker_cpu_ms_per_game"],
            2
            * seq["cpu_ms_per_game"]
            / (ray2["worker_cpu_ms_per_game"] + ray2["driver_cpu_ms_per_game"]),
        ),
        "goal_logging_share": 0.01,
    }
    if as_json:
        report.finish(out, earlier, as_json)
        return out
    print(
        f"arena bench: {out['games']} games of {gid} ({bot} bots, 2 players); "
        f"{out['cpus']} CPUs, load average {out['load_average_1min']:.1f}"
    )
    print(f"  sequential, no Ray            {base:8.1f} games/s")
    if nice > 0:
        print(f"  sequential, no Ray, nice {nice:<3d}  {base_nice:8.1f} games/s (as Ray's workers)")
    for label, r in (("Ray, 1 worker ", ray1), ("Ray, 2 workers", ray2)):
        print(
            f"  {label}                {r['games_per_s']:8.1f} games/s  "
            f"({r['games_per_s'] / base:.2f}x; journal {r['journal_s']:.3f} s in the driver "
            f"+ {r['journal_thread_s']:.2f} s writing, "
            f"MLflow {r['tracking_driver_s']:.3f} s in the driver + "
            f"{r['tracking_thread_s']:.2f} s in its thread: "
            f"{100 * r['logging_share']:.2f}% of wall time)"
        )
    print(
        f"  CPU per game: {seq['cpu_ms_per_game']:.2f} ms sequential; in Ray workers "
        f"{ray1['worker_cpu_ms_per_game']:.2f} ms (1) / {ray2['worker_cpu_ms_per_game']:.2f} ms"
        f" (2) + driver {ray2['driver_cpu_ms_per_game']:.2f} ms: 2 workers on 2 idle cores "
        f"would reach ~{out['projected_speedup_2_workers_idle']:.2f}x"
    )
    print(
        f"  speedup with 2 workers: {out['speedup_2_workers']:.2f}x "
        f"({out['speedup_2_workers_same_niceness']:.2f}x vs the same niceness; goal >= 1.8x); "
        f"logging share: {100 * out['logging_share_max']:.2f}% (goal <= 1%)"
        f"{verdict.note()}"
    )
    report.finish(out, earlier, as_json)
    return out
