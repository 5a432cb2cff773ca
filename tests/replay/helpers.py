"""Records for the replay tests: real games between seeded bots, made in-process."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import engine
from arena.match.runner import MatchConfig, MatchSpec, play_match
from bots.base import Turn

GAMES = tuple(engine.GAMES)  # every registered game: a new game is covered by registering it


class Named:
    """A seeded random bot with a chosen name."""

    version = "1"

    def __init__(self, name: str) -> None:
        self.name = name

    def choose(self, turn: Turn) -> int:
        return turn.rng.randrange(len(turn.legal))


class Flaky(Named):
    """Answers an out-of-range index on every ``every``-th turn (an ``illegal`` event)."""

    def __init__(self, name: str, every: int = 3) -> None:
        super().__init__(name)
        self.every = every
        self.turns = 0

    def choose(self, turn: Turn) -> int:
        self.turns += 1
        if self.turns % self.every == 0:
            return len(turn.legal) + 5
        return super().choose(turn)


def play(
    game: str,
    names: list[str],
    seed: int,
    flaky: int | None = None,
    tournament_id: str | None = None,
) -> dict[str, Any]:
    """A finished game between random bots named ``names`` (seat ``flaky`` misbehaves)."""
    bots = [Flaky(n) if i == flaky else Named(n) for i, n in enumerate(names)]
    gid = f"{game[:4]}-{seed:04d}-{'-'.join(names)}"
    spec = MatchSpec(game, len(names), seed, {}, tournament_id, f"m-{gid}", gid)
    return play_match(spec, bots, MatchConfig(on_failure="random"))


def write_jsonl(records: list[dict[str, Any]], path: Path) -> Path:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return path


def tampered_journal(
    records: list[dict[str, Any]], path: Path, k: int = 3
) -> tuple[Path, dict[str, Any]]:
    """``records`` written to ``path`` with record ``k``'s score edited after the game (it
    does not replay); returns the path and the tampered record."""
    tampered = copy.deepcopy(records)
    bad = tampered[k]
    bad["result"]["scores"][0] += 7
    return write_jsonl(tampered, path), bad


def arena(*args: str, stdin: str | None = None) -> Any:
    """``arena ARGS`` in-process: ``tests.cli.run_cli`` (a CliResult), under the name these
    tests import."""
    from tests.cli import run_cli

    return run_cli(*args, input=stdin)


def log_run(records: list[dict[str, Any]], tmp: Path, parts: int = 2) -> tuple[str, str]:
    """An MLflow run in a fresh SQLite store holding ``records`` as the arena logs them
    (``records/part-NNNNN.jsonl``); returns (tracking URI, run id)."""
    from mlflow import MlflowClient

    uri = f"sqlite:///{tmp / 'mlflow.db'}"
    client = MlflowClient(tracking_uri=uri)
    exp = client.create_experiment("replay-tests", artifact_location=(tmp / "art").as_uri())
    run = client.create_run(exp, run_name="t-replay")
    size = max(1, -(-len(records) // parts))
    for i in range(0, len(records), size):
        part = tmp / f"part-{i // size:05d}.jsonl"
        write_jsonl(records[i : i + size], part)
        client.log_artifact(run.info.run_id, str(part), "records")
    client.set_terminated(run.info.run_id)
    return uri, run.info.run_id
