"""Ladder measurements for ``arena bench ladder``: matchmaking time per decision, database
commit time per result, games until a new version leaves provisional status.

Each function returns a JSON-able dict; none asserts anything about time (tests never do).
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


def bench_commit(url: str | None = None, matches: int = 60, players: int = 2) -> dict[str, Any]:
    """Time :meth:`LadderStore.commit_result` (one transaction: match, ratings, history,
    failure streaks) on the database at ``url`` (default: a fresh SQLite file)."""
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
            for _ in range(-(-matches // players)):
                store.queue_set(name, rng.sample(ids, players), seed=rng.randrange(2**31))
            lease = store.acquire_lease(name, "bench", 600)
            samples: list[float] = []
            for match in store.claim(lease, matches):
                ranks = list(range(1, players + 1))
                rng.shuffle(ranks)
                started = time.perf_counter()
                store.commit_result(match.id, {"ranks": ranks}, f"bench:{match.id}", lease=lease)
                samples.append(time.perf_counter() - started)
            store.release(lease)
            backend = store.engine.dialect.name
        finally:
            store.close()
    return {"backend": backend, "commits": len(samples), **_summary(samples, 1e3, "ms")}


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


def bench_ladder(postgres_url: str | None = None) -> dict[str, Any]:
    """Everything above (PostgreSQL commits too when a URL is given)."""
    report: dict[str, Any] = {
        "matchmaking": bench_matchmaking(),
        "commit_sqlite": bench_commit(None),
        "placement": [bench_placement(k) for k in (2, 3, 4)],
    }
    if postgres_url:
        report["commit_postgresql"] = bench_commit(postgres_url)
    return report
