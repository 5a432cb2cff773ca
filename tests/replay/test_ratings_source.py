"""``arena ratings`` reads its SOURCE like ``arena games/stats/export``: every record is
verified, and one that does not replay is named on stderr and left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.replay.helpers import arena, tampered_journal


def rated_games(stdout: str) -> int:
    """Seat-games in a ``--json`` leaderboard (each game counts once per player)."""
    return sum(row["games"] for row in json.loads(stdout))


def test_ratings_leave_out_a_record_that_does_not_replay(
    league: list[dict[str, Any]], tmp_path: Path
) -> None:
    path, bad = tampered_journal(league, tmp_path / "journal.jsonl")  # a score edited
    proc = arena("ratings", str(path), "--json")
    assert proc.exit_code == 0, proc.stderr
    assert rated_games(proc.stdout) == 2 * (len(league) - 1)
    assert f"game {bad['game_id']} left out" in proc.stderr and "result differs" in proc.stderr
    assert f"1 of {len(league)} records" in proc.stderr

    proc = arena("ratings", str(tmp_path), "--json")  # the tournament dir
    assert proc.exit_code == 0 and rated_games(proc.stdout) == 2 * (len(league) - 1)


@pytest.mark.slow
@pytest.mark.xdist_group("mlflow")
def test_ratings_of_an_mlflow_run(logged_run: tuple[str, str, list[dict[str, Any]]]) -> None:
    uri, run_id, records = logged_run
    proc = arena("ratings", run_id, "--tracking-uri", uri, "--json")
    assert proc.exit_code == 0, proc.stderr
    assert rated_games(proc.stdout) == sum(int(r["num_players"]) for r in records)
    assert "left out" not in proc.stderr
