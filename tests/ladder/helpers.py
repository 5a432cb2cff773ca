"""The ladder runner's test kit: a ladder of bots, a runner, and the exactly-once audit."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from arena.ladder.hosting import LadderFiles, parse_location
from arena.ladder.rating import outcome_of
from arena.ladder.runner import LadderRunner, RunnerConfig, RunSummary
from arena.ladder.store import LadderStore
from arena.ladder.views import MatchInfo
from arena.match.records import verify_record
from arena.tournament.journal import read_journal
from bots.base import Turn

REPO = Path(__file__).resolve().parents[2]
FIRST = "py:tests.arena.helpers:FirstBot"
CRASH = "py:tests.arena.helpers:CrashBot"
EXITS = 'cmd:python -c "import sys; sys.exit(3)"'
"""A program that exits at once (never joins its game)."""
INTERRUPT = "py:tests.ladder.helpers:InterruptBot"


class InterruptBot:
    """Presses Ctrl-C at its first move (a KeyboardInterrupt in the middle of a game)."""

    name = "interrupt"
    version = "1"

    def choose(self, turn: Turn) -> int:
        raise KeyboardInterrupt


def make_ladder(
    store: LadderStore, bots: dict[str, str], *, name: str = "zoo", game: str = "dziobaki"
) -> str:
    """A 2-player ladder with ``bots`` (name -> spec) active."""
    store.create_ladder(name, game, 2)
    for bot, spec in bots.items():
        store.add_version(name, bot, spec=spec, status="active")
    return name


def run(
    store: LadderStore,
    ladder: str,
    home: Path,
    *,
    games: int | None,
    workers: int = 0,
    **kwargs: Any,
) -> RunSummary:
    """One run of a runner without MLflow unless ``tracking`` is given."""
    config = RunnerConfig(workers=workers, games=games, tracking=False)
    for key, value in kwargs.items():
        if key in RunnerConfig.__dataclass_fields__:
            setattr(config, key, value)
    extra = {k: v for k, v in kwargs.items() if k not in RunnerConfig.__dataclass_fields__}
    return LadderRunner(store, ladder, home=home, config=config, log=lambda _: None, **extra).run()


def audit(store: LadderStore, ladder: str, home: Path) -> list[MatchInfo]:
    """Check that every result was counted exactly once and none is lost; returns the
    done matches.

    - no match is left running; only done matches have rating history, and each has
      exactly one history row per seat;
    - every done match's record location names the ladder's records file and a game id
      in it; that record replays (``verify_record``), seats the match's versions in order
      and has the stored result;
    - the records file holds exactly the counted games (each id once).
    """
    files = LadderFiles.of(home, ladder)
    assert not store.matches(ladder, statuses=["running"])
    done = store.matches(ladder, statuses=["done"])
    versions = {v.id: v for v in store.versions(ladder)}
    rows: Counter[tuple[int, int]] = Counter()
    for v in versions:
        for entry in store.history(v):
            rows[(entry.match_id, v)] += 1
    assert sum(rows.values()) == sum(len(m.seats) for m in done)
    records = {r["game_id"]: r for r in read_journal(files.records)}
    lines = files.records.read_text().count("\n")
    assert lines == len(records), "a game id appears twice in the records file"
    counted: set[str] = set()
    for m in done:
        for v in m.seats:
            assert rows[(m.id, v)] == 1, (m.id, v)
        assert m.record_location is not None and m.result is not None
        path, gid = parse_location(m.record_location)
        assert Path(path) == files.records and gid in records, m.record_location
        record = records[gid]
        assert verify_record(record).ok, gid
        assert [p["name"] for p in record["players"]] == [versions[v].label for v in m.seats]
        assert outcome_of(record).effective_ranks == outcome_of(m.result).effective_ranks
        counted.add(gid)
    assert set(records) == counted
    return done


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The ``arena`` command line, as a user runs it (in the repository, with ``tests``
    importable for the ``py:`` test bots)."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env=cli_env(env),
    )


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("MENAGERIE_LADDER_DB", None)
    env.pop("MENAGERIE_LADDER_HOME", None)
    env.update(extra or {})
    return env
