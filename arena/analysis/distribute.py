"""Analysing many games: in this process, or one Ray task per game.

The analyser is named by its spec and budget strings (not passed as an object), so a Ray
worker builds its own from the same text; a decision's RNG depends only on the seed, the
game id and the step (:func:`arena.analysis.evaluate.decision_rng`), so where a game is
analysed does not change its annotations: the Ray result equals the sequential one (but
for the ``ms`` timings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.analysis.analysers import make_analyser
from arena.analysis.evaluate import Annotation, analyse_record


def analyse_one(
    record: Mapping[str, Any], spec: str, budget: str | None, seed: int, seat: int | None
) -> list[dict[str, Any]]:
    """The annotations of one game as JSON (what a Ray task returns)."""
    analyser = make_analyser(spec, budget)
    return [a.to_json() for a in analyse_record(record, analyser, seed, seat)]


def analyse_many(
    records: Sequence[Mapping[str, Any]],
    spec: str,
    budget: str | None,
    seed: int,
    seat: int | None = None,
    workers: int = 0,
    address: str | None = None,
    done: Callable[[Mapping[str, Any], list[Annotation]], None] | None = None,
) -> list[list[Annotation]]:
    """Per game of ``records`` (in order), its annotations; ``workers`` > 0 analyses on
    Ray (a private local Ray with that many CPUs, or the cluster at ``address`` /
    ``RAY_ADDRESS``, as tournaments do: ``arena.tournament.ray_runner.ray_session``).
    ``done`` is told of each game as its annotations arrive."""
    make_analyser(spec, budget)  # a bad spec fails here, before any worker starts
    out: list[list[Annotation]] = []
    if workers <= 0:
        for record in records:
            anns = [Annotation.from_json(a) for a in analyse_one(record, spec, budget, seed, seat)]
            if done is not None:
                done(record, anns)
            out.append(anns)
        return out
    import ray

    from arena.tournament.ray_runner import ray_session

    with ray_session(workers, address):
        remote = ray.remote(num_cpus=1)(analyse_one)
        refs = [remote.remote(record, spec, budget, seed, seat) for record in records]
        for record, ref in zip(records, refs, strict=True):
            anns = [Annotation.from_json(a) for a in ray.get(ref, timeout=3600)]
            if done is not None:
                done(record, anns)
            out.append(anns)
    return out
