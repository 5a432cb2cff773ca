"""``arena bench arena``: tournament throughput on Ray vs sequential, logging overhead.

The same schedule (random bots, 2-player games) is played several ways:

- sequentially in this process without Ray (the worker's own code, ``play_batch``), and
  in a child process at the niceness Ray gives its workers;
- as a tournament on a local Ray with 1 worker, then with 2 workers (``--workers``
  chooses the counts), each with the journal and an MLflow SQLite store in a temporary
  directory. With ``--cluster`` the counts of 3 and more are played on a two-node
  local Ray cluster on this machine (``deploy.localstack.RayCluster``: ``ray start
  --block`` children with token authentication, stopped by their process ids), the
  head with 2 CPUs and the second node with the rest.

Games/s of a tournament count from the first task submitted to the last record
journaled (Ray start-up and the final rating fit are excluded; worker start-up is not:
each Ray session first plays a few warm-up tasks). Where the CPU goes is reported per
game: in the Ray workers, in the driver (journal, ratings, MLflow, Ray's client) and in
Ray's own processes (raylet, GCS, agents, idle workers), so that a gap to the
sequential rate points at its side. The logging share is the driver's wall time spent
on the journal (handing records to its writer thread, which fsyncs) and on MLflow
(handing work to its thread, and waiting for the final upload at the end) over the
tournament's wall time (with Ray already up); the busy time of the two threads is
reported too.

The 1- and 2-worker figures (the goals) and the sequential ones are repeated until the
2-worker speedup is stable; the other worker counts (the scaling curve) are measured
once. Goals: >= 1.8x the sequential rate with 2 workers, 1 worker close to 1.0x;
logging <= 1% of wall time. On 2 cores more than 2 workers cannot go past ~2x: the
curve says what they cost (games/s and CPU per game).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from arena.bench import report
from arena.errors import UserError
from arena.tournament.config import load_config
from arena.tournament.ray_runner import (
    WORKING_DIR_ENV,
    BatchResult,
    GameSetup,
    play_batch,
    ray_session,
    run_on_ray,
)
from arena.tournament.run import run_tournament
from arena.tournament.schedule import ScheduledGame
from arena.tournament.tracking import open_store
from engine import GAMES

ROSTER_SIZE = 5
"""Five copies of the bot (``--bot``, default random): 20 games a round."""

GOAL_WORKERS = (1, 2)
"""The worker counts of the goals: always measured, and repeated until stable."""

SEQUENTIAL_GAMES = 1500
"""At most this many games for each sequential measurement: a rate in one process
settles quickly, and the bench's wall time is mostly spent playing games."""

WARMUP_GAMES_PER_WORKER = 6
"""Games each worker plays in small tasks before a measurement (imports, caches)."""

STORE_TIMEOUT_S = 300.0
"""How long the MLflow store may take to be created (a busy machine is slow)."""

CLUSTER_HEAD_CPUS = 2
"""CPUs of the cluster's head node (``--cluster``); the second node has the rest."""


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


def _config(
    game: str, rounds: int, workers: int, tmp: Path, name: str, bot: str, address: str | None = None
) -> Any:
    return load_config(
        None,
        {
            "address": address,
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
    """Play the schedule (at most :data:`SEQUENTIAL_GAMES` of it) in one process without
    Ray (in chunks, records discarded); ``niceness`` > 0 runs it in a child process at
    that niceness (as Ray's workers)."""
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
    games = list(schedule)[:SEQUENTIAL_GAMES]
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


def _descendants_cpu(roots: Sequence[int]) -> dict[int, float]:
    """CPU seconds of every live process under ``roots`` (themselves included), by pid:
    the processes of a Ray session (Linux ``/proc``; empty elsewhere)."""
    parent: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parent[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    out: dict[int, float] = {}
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        out[pid] = _cpu_seconds(pid)
        todo.extend(children.get(pid, []))
    return out


def _warm_up(game: str, workers: int, tmp: Path, bot: str) -> set[int]:
    """Have every worker play a few games in small tasks (the interpreter's imports and
    caches are warm before the clock starts); returns the workers' pids."""
    cfg = _config(game, 1, workers, tmp, "warmup", bot)
    games = list(cfg.schedule(2, 1))
    wanted = WARMUP_GAMES_PER_WORKER * workers
    todo: list[ScheduledGame] = (games * (1 + wanted // len(games)))[:wanted]
    pids: set[int] = set()

    def done(result: BatchResult) -> None:
        pids.add(result.pid)

    def lost(batch: list[ScheduledGame], reason: str) -> None:
        raise UserError(f"the warm-up of the Ray workers failed: {reason}")

    setup = GameSetup(game, 2, {}, cfg.tournament_id)
    run_on_ray(setup, iter(todo), len(todo), workers, 2, done, lost)
    return pids


def bench_ray(
    game: str,
    rounds: int,
    workers: int,
    tmp: Path,
    bot: str,
    address: str | None = None,
    ray_roots: Sequence[int] = (),
) -> dict[str, float]:
    """One tournament on ``workers`` Ray CPUs: a local Ray started here, or the cluster at
    ``address`` (whose ``ray start`` processes are ``ray_roots``)."""
    roots = list(ray_roots) or [os.getpid()]
    with ray_session(workers, address, runtime_env={} if address else None):
        warm = _warm_up(game, workers, tmp, bot)
        cfg = _config(game, rounds, workers, tmp, f"ray{workers}", bot, address)
        open_store(cfg.tracking_uri).result(timeout=STORE_TIMEOUT_S)  # made once, not timed
        before = _descendants_cpu(roots)
        res = run_tournament(cfg, quiet=True)
        after = _descendants_cpu(roots)
        driver_cpu = res.play_cpu_seconds  # all driver threads, while the games are played
        workers_seen = set(res.worker_pids) | warm
        worker_cpu = sum(_cpu_seconds(p) - before.get(p, 0.0) for p in res.worker_pids)
        system_cpu = sum(
            cpu - before.get(pid, 0.0)
            for pid, cpu in after.items()
            if pid not in workers_seen and pid != os.getpid()
        )
    logging = res.journal_seconds + res.tracking_seconds
    played = max(res.played, 1)
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
        "worker_cpu_ms_per_game": 1000 * worker_cpu / played,
        "driver_cpu_ms_per_game": 1000 * driver_cpu / played,
        "ray_system_cpu_ms_per_game": 1000 * system_cpu / played,
    }


@contextlib.contextmanager
def local_cluster(workers: int, root: Path) -> Iterator[tuple[str, list[int]]]:
    """A two-node Ray cluster on this machine with ``workers`` CPUs in all (the head
    :data:`CLUSTER_HEAD_CPUS`, the second node the rest), token authentication on;
    yields its address and its ``ray start`` pids. This process's environment names
    the token while it is up (as a driver's must) and nothing is shipped to the
    workers (they run this checkout's installation). Stopped by pid, never otherwise."""
    try:
        from deploy.localstack import RayCluster
    except ImportError:
        checkout = Path(__file__).resolve().parents[2]
        if not (checkout / "deploy" / "localstack.py").exists():
            raise UserError(
                "--cluster needs a source checkout (deploy/localstack.py starts the cluster)"
            ) from None
        sys.path.append(str(checkout))
        from deploy.localstack import RayCluster

    head_cpus = min(CLUSTER_HEAD_CPUS, workers - 1)

    class SplitCluster(RayCluster):
        """The head with ``head_cpus``, the second node with the rest."""

        def start_node(self, node_env: dict[str, str] | None = None) -> None:
            self.cpus = workers - head_cpus
            super().start_node(node_env)

    root.mkdir(parents=True, exist_ok=True)  # the nodes' logs
    cluster = SplitCluster(root, cpus=head_cpus)
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", WORKING_DIR_ENV)}
    try:
        cluster.start()
        assert cluster.head is not None and cluster.node is not None
        os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=cluster.token)
        os.environ[WORKING_DIR_ENV] = "none"
        _forget_ray_token()
        yield cluster.address, [cluster.head.process.pid, cluster.node.process.pid]
    except RuntimeError as exc:
        raise UserError(f"could not start a local Ray cluster: {exc}") from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        _forget_ray_token()
        cluster.stop()


def _forget_ray_token() -> None:
    """Make Ray read its token again: a local Ray started earlier in this process left
    its own token cached (Ray 2.5x), which a cluster with another token refuses."""
    try:
        from ray._raylet import AuthenticationTokenLoader  # type: ignore[attr-defined]  # compiled, unannotated
    except ImportError:  # an older Ray: no token authentication, nothing cached
        return
    AuthenticationTokenLoader.instance().reset_cache()


def bench_workers(
    game: str, rounds: int, workers: int, tmp: Path, bot: str, cluster: bool
) -> dict[str, float]:
    """:func:`bench_ray` on a local Ray, or on a local two-node cluster (``cluster``)."""
    if not cluster:
        return bench_ray(game, rounds, workers, tmp, bot)
    with local_cluster(workers, tmp / f"cluster{workers}") as (address, roots):
        return {**bench_ray(game, rounds, workers, tmp, bot, address, roots), "nodes": 2.0}


def worker_niceness() -> int:
    """The niceness Ray gives its workers (``RAY_worker_niceness``, default 15)."""
    try:
        return int(os.environ.get("RAY_worker_niceness", "15"))  # noqa: SIM112  # Ray's own variable name
    except ValueError:
        return 15


def parse_workers(text: str) -> tuple[int, ...]:
    """``--workers 1,2,3,4`` -> (1, 2, 3, 4); the goal counts 1 and 2 are always in.

    >>> parse_workers("4,3"), parse_workers("")
    ((1, 2, 3, 4), (1, 2))
    """
    counts: set[int] = set(GOAL_WORKERS)
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            n = int(part)
        except ValueError:
            raise UserError(f"--workers: {part!r} is not a number of workers") from None
        if not 1 <= n <= 64:
            raise UserError(f"--workers: {n} is not between 1 and 64")
        counts.add(n)
    return tuple(sorted(counts))


def _ray_key(workers: int) -> str:
    """The JSON key of a worker count's figures (``ray_1_worker``, ``ray_2_workers``)."""
    return f"ray_{workers}_worker" + ("s" if workers > 1 else "")


def run_arena_bench(
    game: str | None,
    games: int,
    as_json: bool,
    bot: str = "random",
    repeats: int = 1,
    max_repeats: int = 1,
    earlier: Any = None,
    workers: Sequence[int] = GOAL_WORKERS,
    cluster: bool = False,
) -> dict[str, Any]:
    """Sequential, 1 and 2 Ray workers, repeated until the 2-worker speedup is stable
    (at least ``repeats``, at most ``max_repeats`` times; every figure is the median over
    the repeats), then every other count of ``workers`` once (on a local two-node
    cluster when ``cluster``: counts of 3 and more); text or JSON, with the change
    against ``earlier`` when given."""
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
    curve: dict[int, dict[str, float]] = {1: ray1, 2: ray2}
    failed: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="mnr-bench-") as tmp:
        for n in workers:
            if n in curve:
                continue
            if not as_json:
                print(f"  ... {n} workers{' on a two-node cluster' if cluster and n >= 3 else ''}")
            try:
                curve[n] = bench_workers(gid, rounds, n, Path(tmp), bot, cluster and n >= 3)
            except UserError as exc:  # the goal figures measured so far are kept
                failed[str(n)] = str(exc)
    for figures in curve.values():
        figures["speedup"] = figures["games_per_s"] / base
        figures["cpu_ms_per_game"] = (
            figures["worker_cpu_ms_per_game"]
            + figures["driver_cpu_ms_per_game"]
            + figures["ray_system_cpu_ms_per_game"]
        )
    out: dict[str, Any] = {
        "machine": info,
        "stability": verdict.as_json(),
        "game": gid,
        "bot": bot,
        "games": int(ray2["games"]),
        "sequential_games": int(seq["games"]),
        "cpus": os.cpu_count(),
        "load_average_1min": os.getloadavg()[0],
        "worker_niceness": nice,
        "sequential": seq,
        "sequential_at_worker_niceness": seq_nice,
        **{_ray_key(n): curve[n] for n in sorted(curve)},
        "speedup_1_worker": ray1["games_per_s"] / base,
        "speedup_2_workers": ray2["games_per_s"] / base,
        "speedup_2_workers_same_niceness": ray2["games_per_s"] / base_nice,
        "goal_speedup_2_workers": 1.8,
        "logging_share_max": max(ray1["logging_share"], ray2["logging_share"]),
        # what 2 workers would reach on 2 otherwise idle cores: the CPU a game costs
        # in a worker plus its share of the driver and of Ray's own processes, against
        # the sequential CPU cost
        "projected_speedup_2_workers_idle": min(
            2 * seq["cpu_ms_per_game"] / ray2["worker_cpu_ms_per_game"],
            2 * seq["cpu_ms_per_game"] / ray2["cpu_ms_per_game"],
        ),
        "goal_logging_share": 0.01,
        "failed_worker_counts": failed,
    }
    if as_json:
        report.finish(out, earlier, as_json)
        return out
    print(
        f"arena bench: {out['games']} games of {gid} ({bot} bots, 2 players; "
        f"{out['sequential_games']} sequentially); "
        f"{out['cpus']} CPUs, load average {out['load_average_1min']:.1f}"
    )
    cpu = seq["cpu_ms_per_game"]
    print(f"  sequential, no Ray            {base:8.1f} games/s  CPU per game {cpu:.2f} ms")
    if nice > 0:
        print(f"  sequential, no Ray, nice {nice:<3d}  {base_nice:8.1f} games/s (as Ray's workers)")
    for n in sorted(curve):
        r = curve[n]
        where = "cluster" if r.get("nodes") else "Ray"
        label = f"{where}, {n} worker{'s' if n > 1 else ' '}"
        print(
            f"  {label:<29s} {r['games_per_s']:8.1f} games/s  ({r['speedup']:.2f}x)  CPU per game "
            f"{r['cpu_ms_per_game']:.2f} ms = workers {r['worker_cpu_ms_per_game']:.2f} + driver "
            f"{r['driver_cpu_ms_per_game']:.2f} + Ray's processes "
            f"{r['ray_system_cpu_ms_per_game']:.2f}"
        )
    for n_text, why in failed.items():
        print(f"  {n_text} workers: not measured: {why}")
    for label, r in (("1 worker ", ray1), ("2 workers", ray2)):
        print(
            f"  logging, {label}: journal {r['journal_s']:.3f} s in the driver "
            f"+ {r['journal_thread_s']:.2f} s writing, "
            f"MLflow {r['tracking_driver_s']:.3f} s in the driver + "
            f"{r['tracking_thread_s']:.2f} s in its thread: "
            f"{100 * r['logging_share']:.2f}% of wall time"
        )
    print(
        f"  2 workers on 2 idle cores would reach "
        f"~{out['projected_speedup_2_workers_idle']:.2f}x (the CPU per game against the "
        f"sequential {seq['cpu_ms_per_game']:.2f} ms)"
    )
    print(
        f"  speedup with 2 workers: {out['speedup_2_workers']:.2f}x "
        f"({out['speedup_2_workers_same_niceness']:.2f}x vs the same niceness; goal >= 1.8x); "
        f"1 worker {out['speedup_1_worker']:.2f}x; "
        f"logging share: {100 * out['logging_share_max']:.2f}% (goal <= 1%)"
        f"{verdict.note()}"
    )
    report.finish(out, earlier, as_json)
    return out
