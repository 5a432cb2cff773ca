"""Ladder measurements for ``arena bench ladder``: matchmaking time per decision, database
commit time per result, games until a new version leaves provisional status, and the
ladder runner's games/s against a tournament's on the same bots and Ray workers.

Each function returns a JSON-able dict; none asserts anything about time (tests never do).
:func:`bench_ladder` repeats the timing figures until stable (:mod:`arena.bench.report`).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bench import report
from arena.ladder.matchmaking import Candidate, MatchmakingSettings, duplicate_set, pick_group
from arena.ladder.rating import RatingSettings, Skill, rate


def _summary(samples_s: Sequence[float], unit: float, name: str) -> dict[str, float]:
    ordered = sorted(samples_s)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {
        f"median_{name}": round(statistics.median(ordered) * unit, 3),
        f"p95_{name}": round(p95 * unit, 3),
        f"max_{name}": round(ordered[-1] * unit, 3),
    }


def bench_matchmaking(
    sizes: Sequence[int] = (10, 100, 1000),
    players: int = 2,
    decisions: int = 300,
    recent_sets: int = 50,
    seed: int = 0,
) -> dict[str, Any]:
    """Time :func:`pick_group` on synthetic ladders of ``sizes`` active versions.

    Each ladder is played forward: after every decision the picked versions get their k
    games, so the window and recency move as on a real ladder."""
    settings = MatchmakingSettings()
    out: dict[str, Any] = {"players": players, "decisions": decisions, "sizes": {}}
    for n in sizes:
        rng = random.Random(f"{seed}:{n}")
        mus = [rng.gauss(25.0, 4.0) for _ in range(n)]
        sigmas = [rng.uniform(1.5, 8.0) for _ in range(n)]
        games = [rng.randrange(settings.spread_bound(players)) + 100 for _ in range(n)]
        recent: list[tuple[int, ...]] = []
        samples: list[float] = []
        for d in range(decisions):
            field = [Candidate(i, mus[i], sigmas[i], games[i]) for i in range(n)]
            started = time.perf_counter()
            group = pick_group(field, players, seed=d, recent=recent[-recent_sets:])
            samples.append(time.perf_counter() - started)
            assert group is not None
            for v in group:
                games[v] += players
            recent.append(group)
        out["sizes"][str(n)] = _summary(samples, 1e6, "us")
    return out


def bench_commit(
    url: str | None = None, matches: int = 60, players: int = 2, batch: int = 64
) -> dict[str, Any]:
    """Time :meth:`LadderStore.commit_result` (one transaction: match, ratings, history,
    failure streaks) on the database at ``url`` (default: a fresh SQLite file), and
    :meth:`LadderStore.commit_results` with ``batch`` results per transaction (what the
    runner does with the games of a Ray task)."""
    from arena.ladder.store import LadderStore

    with tempfile.TemporaryDirectory(prefix="ladder-bench-") as tmp:
        store = LadderStore(url or str(Path(tmp) / "ladder.db"))
        try:
            name = f"bench-{uuid.uuid4().hex[:8]}"
            store.create_ladder(name, "bench", players)
            ids = [
                store.add_version(name, f"bot{i}", spec="random", status="active").id
                for i in range(max(players, 4))
            ]
            rng = random.Random(0)
            sets = -(-(matches + 4 * batch) // players)
            store.queue_sets(
                name, [(rng.sample(ids, players), rng.randrange(2**31)) for _ in range(sets)]
            )
            lease = store.acquire_lease(name, "bench", 600)

            def ranks() -> list[int]:
                order = list(range(1, players + 1))
                rng.shuffle(order)
                return order

            samples: list[float] = []
            for match in store.claim(lease, matches):
                started = time.perf_counter()
                store.commit_result(match.id, {"ranks": ranks()}, f"bench:{match.id}", lease=lease)
                samples.append(time.perf_counter() - started)
            batched: list[float] = []
            for _ in range(4):
                claimed = store.claim(lease, batch)
                started = time.perf_counter()
                store.commit_results(
                    [(m.id, {"ranks": ranks()}, f"bench:{m.id}") for m in claimed], lease=lease
                )
                batched.append((time.perf_counter() - started) / max(len(claimed), 1))
            store.release(lease)
            backend = store.engine.dialect.name
        finally:
            store.close()
    return {
        "backend": backend,
        "commits": len(samples),
        **_summary(samples, 1e3, "ms"),
        "batch": batch,
        "batched_ms_per_result": round(statistics.median(batched) * 1e3, 3),
    }


def bench_placement(
    players: int = 2, field_size: int = 20, trials: int = 50, seed: int = 0
) -> dict[str, Any]:
    """Games until a new version's σ falls to the provisional threshold (β), simulated.

    A settled field (σ = 2) of true skills N(25, 4²) and a newcomer of a random true skill
    play groups of ``players`` whose ranks come from performances N(skill, β²) (the
    model's own assumption); the newcomer plays every game, as its placement burst does."""
    settings = RatingSettings()
    rng = random.Random(seed)
    needed: list[int] = []
    for _ in range(trials):
        true = [rng.gauss(25.0, 4.0) for _ in range(field_size)]
        field = [Skill(t + rng.gauss(0, 1.0), 2.0) for t in true]
        new_true = rng.gauss(25.0, 4.0)
        new = settings.initial()
        games = 0
        while new.provisional(settings.provisional_sigma) and games < 500:
            others = rng.sample(range(field_size), players - 1)
            for seats in duplicate_set([-1, *others]):
                perf = [rng.gauss(new_true if s < 0 else true[s], settings.beta) for s in seats]
                ranks = [1 + sum(1 for q in perf if q > p) for p in perf]
                skills = [new if s < 0 else field[s] for s in seats]
                rated = rate(settings, skills, ranks)
                new = rated[seats.index(-1)]
                games += 1
                if not new.provisional(settings.provisional_sigma):
                    break
        needed.append(games)
    return {
        "players": players,
        "threshold_sigma": round(settings.provisional_sigma, 3),
        "median_games": statistics.median(needed),
        "max_games": max(needed),
    }


def bench_throughput(
    game: str | None = None,
    bot: str = "random",
    games: int = 1000,
    workers: int = 2,
    in_flight: int | None = None,
) -> dict[str, Any]:
    """Ladder games/s against tournament games/s: the same five copies of ``bot``, the
    same game, 2-player games, on one local Ray with ``workers`` workers.

    The tournament is ``arena bench arena``'s (a warm-up tournament, then a round robin of
    about ``games`` games, journaled and tracked in MLflow); the ladder then plays as many
    games with its runner (SQLite store, records file, MLflow), on the same warm workers.
    Both rates count from the first game handed to Ray to the last result made durable
    (the tournament: journaled; the ladder: journaled and committed)."""
    from arena.bench.arena import ROSTER_SIZE, _pick_game, _rounds_for, bench_ray
    from arena.ladder.runner import LadderRunner, RunnerConfig
    from arena.ladder.store import LadderStore
    from arena.tournament.ray_runner import ray_session

    gid = _pick_game(game)
    rounds = _rounds_for(games, ROSTER_SIZE)
    with tempfile.TemporaryDirectory(prefix="ladder-bench-") as tmp, ray_session(workers):
        tournament = bench_ray(gid, rounds, workers, Path(tmp), bot)
        store = LadderStore(str(Path(tmp) / "ladder.db"))
        try:
            store.create_ladder("bench", gid, 2)
            for i in range(ROSTER_SIZE):
                store.add_version("bench", f"bot{i}", spec=bot, status="active")
            config = RunnerConfig(
                workers=workers,
                games=int(tournament["games"]),
                in_flight=in_flight,
                tracking_uri=f"sqlite:///{Path(tmp) / 'mlflow.db'}",
                experiment="bench",
                refresh_s=3600.0,
            )
            cpu0 = time.process_time()
            runner = LadderRunner(
                store, "bench", home=Path(tmp) / "home", config=config, log=_quiet
            )
            summary = runner.run()
            driver_cpu = time.process_time() - cpu0
        finally:
            store.close()
    ladder: dict[str, Any] = {
        "in_flight": in_flight,
        "games": summary.counted,
        "seconds": summary.play_seconds,
        "games_per_s": summary.games_per_s,
        "driver_cpu_ms_per_game": 1000 * driver_cpu / max(summary.counted, 1),
        "tracked": summary.tracked,
    }
    return {
        "game": gid,
        "bot": bot,
        "workers": workers,
        "tournament": {
            k: tournament[k] for k in ("games", "seconds", "games_per_s", "driver_cpu_ms_per_game")
        },
        "ladder": ladder,
        "ratio": ladder["games_per_s"] / tournament["games_per_s"],
        "goal_ratio": 0.9,
    }


def _quiet(_text: str) -> None:
    pass


HEADLINE = (
    "matchmaking.sizes.10.median_us",
    "matchmaking.sizes.100.median_us",
    "matchmaking.sizes.1000.median_us",
    "commit_sqlite.median_ms",
    "commit_sqlite.batched_ms_per_result",
)
"""The timing figures repeated until stable (PostgreSQL's commits too, with a URL)."""


def bench_ladder(
    postgres_url: str | None = None,
    *,
    game: str | None = None,
    bot: str = "random",
    games: int = 1000,
    workers: int = 2,
    throughput: bool = True,
    repeats: int = 3,
    max_repeats: int = 6,
    throughput_repeats: int = 2,
) -> dict[str, Any]:
    """Everything above (PostgreSQL commits too when a URL is given), with the machine's
    cores and load. Matchmaking and commit times are repeated together until their
    medians are stable (at least ``repeats``, at most ``max_repeats`` times; every figure
    is the median over the repeats); the throughput ratio (two Ray runs of ``games``
    games each) at most ``throughput_repeats`` times; placement is a seeded simulation,
    the same every run, so it runs once."""
    info = report.machine()

    def timings() -> dict[str, Any]:
        run = {"matchmaking": bench_matchmaking(), "commit_sqlite": bench_commit(None)}
        if postgres_url:
            run["commit_postgresql"] = bench_commit(postgres_url)
        return run

    headline = list(HEADLINE)
    if postgres_url:
        headline += ["commit_postgresql.median_ms", "commit_postgresql.batched_ms_per_result"]
    timed = report.repeat_until_stable(timings, headline, repeats, max(repeats, max_repeats))
    out: dict[str, Any] = {
        "machine": info,
        **_whole_numbers(timed.medians()),
        "stability": timed.as_json(),
        "placement": [bench_placement(k) for k in (2, 3, 4)],
    }
    if throughput:
        moved = report.repeat_until_stable(
            lambda: bench_throughput(game, bot, games, workers), ["ratio"], 1, throughput_repeats
        )
        out["throughput"] = _whole_numbers(moved.medians())
        out["throughput_stability"] = moved.as_json()
    return out


COUNTS = frozenset({"players", "decisions", "commits", "batch", "games", "workers", "tracked"})
"""Figures that are counts: after the median over repeats, still printed as integers."""


def _whole_numbers(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the counts of :data:`COUNTS` (made floats by the median) as ints."""
    return {
        k: _whole_numbers(v)
        if isinstance(v, dict)
        else int(v)
        if k in COUNTS and isinstance(v, float)
        else v
        for k, v in data.items()
    }


def print_report(data: dict[str, Any]) -> None:
    """``arena bench ladder`` without ``--json`` (after the machine line)."""
    mm = data["matchmaking"]
    print(f"matchmaking, {mm['players']} players, {mm['decisions']} decisions (goal <= 1 ms):")
    for n, row in mm["sizes"].items():
        print(
            f"  {int(n):>5} active versions: median {row['median_us']:8.1f} us, "
            f"p95 {row['p95_us']:8.1f} us, max {row['max_us']:8.1f} us per decision"
        )
    for key in ("commit_sqlite", "commit_postgresql"):
        if key in data:
            c = data[key]
            print(
                f"commit per result ({c['backend']}, {c['commits']} results): median "
                f"{c['median_ms']:.2f} ms, p95 {c['p95_ms']:.2f} ms, max {c['max_ms']:.2f} ms; "
                f"{c['batched_ms_per_result']:.3f} ms per result in batches of {c['batch']} "
                "(as the runner commits)"
            )
    print(f"  (medians of {_repeats(data['stability'])} repeats){_note(data['stability'])}")
    for p in data["placement"]:
        print(
            f"games until a new version leaves provisional (sigma <= "
            f"{p['threshold_sigma']}), {p['players']} players: median {p['median_games']}, "
            f"max {p['max_games']} (simulated)"
        )
    if "throughput" in data:
        t = data["throughput"]
        tour, lad = t["tournament"], t["ladder"]
        print(
            f"games/s, {t['game']}, five {t['bot']} bots, 2 players, {t['workers']} workers: "
            f"tournament {tour['games_per_s']:.1f} ({tour['games']} games), ladder "
            f"{lad['games_per_s']:.1f} ({lad['games']} games): {t['ratio']:.2f}x "
            f"(goal >= {t['goal_ratio']}x); driver CPU per game: tournament "
            f"{tour['driver_cpu_ms_per_game']:.2f} ms, "
            f"ladder {lad['driver_cpu_ms_per_game']:.2f} ms "
            f"(median of {_repeats(data['throughput_stability'])} repeats)"
            f"{_note(data['throughput_stability'])}"
        )


def _repeats(stability: dict[str, Any]) -> int:
    return max(int(s["repeats"]) for s in stability.values())


def _note(stability: dict[str, Any]) -> str:
    """The warning naming the figures of ``stability`` (a JSON ``stability``) that did
    not settle; empty when all did."""
    moving = [key for key, s in stability.items() if not s["stable"]]
    if not moving:
        return ""
    return f" [NOT STABLE after {_repeats(stability)} repeats: {', '.join(moving)}]"


def run_ladder_bench(
    postgres_url: str | None,
    *,
    as_json: bool,
    earlier: Any = None,
    **settings: Any,
) -> dict[str, Any]:
    """``arena bench ladder``: the machine line and the figures, or JSON; with the change
    of every figure against ``earlier`` (an earlier run's JSON) when given. ``settings``
    are :func:`bench_ladder`'s keywords."""
    if not as_json:
        print(report.header_line(report.machine()), flush=True)
    out = bench_ladder(postgres_url, **settings)
    if not as_json:
        print_report(out)
    report.finish(out, earlier, as_json)
    return out
