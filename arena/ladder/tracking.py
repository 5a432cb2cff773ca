"""MLflow tracking of a ladder: one run per ladder, kept up to date by its runner.

There are no seasons yet: a ladder is one MLflow run (named ``ladder-<name>``, in the
experiment ``menagerie-ladder`` unless told otherwise), created by the first runner and
continued by every later one (the run id is kept in the ladder's ``tracking.json``). It
is written by the tournaments' run writer (:class:`arena.tournament.tracking.RunTracker`:
one background thread, batched, resumable; a tracking store that is down never holds up
the games, the records file is the source of truth):

- params: the ladder's settings; tags: game, players, record format, code version;
- metrics ``rating/<bot>.v<version>/mu`` and ``rating/<bot>.v<version>/ordinal`` (μ and
  the conservative ordinal μ − 3σ) with step = the ladder's counted match number, every
  ten matches (``arena.ladder.runner.METRIC_EVERY``) for the versions that played in
  them (``@`` is not allowed in an MLflow metric name, so ``bot@3`` is written ``bot.v3``);
- artifacts: ``records/part-NNNNN.jsonl`` (the ladder's records file in order, ≤ 500
  records per part, each uploaded once), ``standings.csv|md|html`` (refreshed every so
  often and when the runner stops) and ``replays/`` (self-contained viewers of the latest
  game of every active version).
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.ladder.hosting import LadderFiles
from arena.ladder.views import LadderInfo
from arena.match.records import FORMAT
from arena.tournament.journal import Journal
from arena.tournament.ratings import Point
from arena.tournament.tracking import RunTracker, default_tracking_uri

EXPERIMENT = "menagerie-ladder"


def metric_name(label: str, what: str) -> str:
    """The metric key of ``what`` (``mu`` or ``ordinal``) of version ``label``.

    >>> metric_name("greedy@2", "mu")
    'rating/greedy.v2/mu'
    """
    bot, _, version = label.rpartition("@")
    safe = re.sub(r"[^\w.\- ]+", "_", bot or label)
    return f"rating/{safe}.v{version}/{what}" if bot else f"rating/{safe}/{what}"


class LadderTracker(RunTracker):
    """A ladder's MLflow run (see the module docstring).

    Points are ``(match number, μ by label, ordinal by label)``, one per counted match
    with the seats it changed; :meth:`publish` queues files or folders to upload with the
    next sync (standings, viewers)."""

    def __init__(
        self,
        ladder: LadderInfo,
        files: LadderFiles,
        journal: Journal,
        *,
        uri: str | None = None,
        experiment: str = EXPERIMENT,
        log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
    ) -> None:
        super().__init__(uri or default_tracking_uri(), files.tracking_state, journal, log)
        self.ladder = ladder
        self.experiment = experiment
        self._publish_lock = threading.Lock()
        self._to_publish: dict[str, Path] = {}

    def run_identity(self) -> tuple[str, str, dict[str, str]]:
        lad = self.ladder
        tags = {
            "game": lad.game,
            "players": str(lad.players),
            "format": FORMAT,
            "ladder": lad.name,
            "tournament_format": "ladder: continuous matchmaking of duplicate sets, "
            "OpenSkill Plackett-Luce ratings",
        }
        return self.experiment, f"ladder-{lad.name}", tags

    def run_params(self) -> dict[str, str]:
        lad = self.ladder
        return {
            "ladder": lad.name,
            "game": lad.game,
            "players": str(lad.players),
            "options": json.dumps(lad.options, sort_keys=True),
            "move_ms": str(lad.move_ms),
            "failure_policy": lad.failure_policy,
            "mu": str(lad.rating.mu),
            "sigma": str(lad.rating.sigma),
            "beta": str(lad.rating.beta),
            "tau": str(lad.rating.tau),
            "provisional_sigma": str(lad.rating.provisional_sigma),
            "broken_after": str(lad.broken_after),
            "max_attempts": str(lad.max_attempts),
            "placement_games": str(lad.placement_games),
        }

    def point_metrics(self, point: Point, timestamp_ms: int) -> list[Any]:
        from mlflow.entities import Metric

        step, mus, ordinals = point
        return [
            Metric(metric_name(label, "mu"), round(mu, 4), timestamp_ms, step)
            for label, mu in mus.items()
        ] + [
            Metric(metric_name(label, "ordinal"), round(value, 4), timestamp_ms, step)
            for label, value in ordinals.items()
        ]

    def publish(self, paths: Sequence[Path]) -> None:
        """Upload these files (or folders, under their name) with the next sync."""
        with self._publish_lock:
            for path in paths:
                self._to_publish[str(path)] = path

    def _sync(self, journal_len: int, points: Sequence[Point], final: bool = False) -> None:
        super()._sync(journal_len, points, final)
        with self._publish_lock:
            paths, self._to_publish = list(self._to_publish.values()), {}
        client = self._client
        try:
            for path in paths:
                if path.is_dir():
                    client.log_artifacts(self.run_id, str(path), path.name)
                elif path.exists():
                    client.log_artifact(self.run_id, str(path))
        except Exception:
            self.publish(paths)  # again with the next sync
            raise
