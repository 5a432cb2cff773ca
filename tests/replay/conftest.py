"""Fixtures of the replay tests: one game per registered game, a small tournament."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replay.helpers import GAMES, play


@pytest.fixture(scope="session")
def game_records() -> dict[str, dict[str, Any]]:
    """One finished 3-player game of every game (seat 1 makes illegal moves)."""
    return {g: play(g, ["alice", "bob", "carol"], seed=7, flaky=1) for g in GAMES}


@pytest.fixture(scope="session")
def league() -> list[dict[str, Any]]:
    """Twelve 2-player Dziobaki and Panorama games among three bots, one of them flaky."""
    records = []
    pairs = [("alice", "bob"), ("bob", "carol"), ("carol", "alice")]
    for seed in range(2):
        for game in ("dziobaki", "panorama"):
            for a, b in pairs:
                flaky = 0 if a == "carol" else (1 if b == "carol" else None)
                records.append(play(game, [a, b], seed, flaky=flaky, tournament_id="t-league"))
    return records


@pytest.fixture(scope="session")
def logged_run(
    game_records: dict[str, dict[str, Any]],
    league: list[dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[str, str, list[dict[str, Any]]]:
    """One MLflow run (fresh SQLite store) holding every game of the two fixtures above,
    in two ``records/part-*.jsonl`` artifacts: (tracking URI, run id, records)."""
    from tests.replay.helpers import log_run

    records = [*game_records.values(), *league]
    uri, run_id = log_run(records, tmp_path_factory.mktemp("mlflow"))
    return uri, run_id, records
