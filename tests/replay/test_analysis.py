"""`arena games SOURCE`, `arena stats`, `arena export`: listing, statistics, notebooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from arena.errors import UserError
from arena.replay.analysis import bot_stats, export, filter_games, lost, seat_rows
from arena.stats import percentile
from tests.replay.helpers import arena, tampered_journal, write_jsonl


def test_filters(league: list[dict[str, Any]]) -> None:
    assert len(filter_games(league, game="panorama")) == 6
    carol = filter_games(league, bot="carol")
    assert len(carol) == 8
    carol_lost = filter_games(league, bot="carol", only_lost=True)
    assert carol_lost and all(lost(r, "carol") for r in carol_lost)
    assert {r["game_id"] for r in carol_lost} < {r["game_id"] for r in carol}
    with pytest.raises(UserError, match="--lost needs --bot"):
        filter_games(league, only_lost=True)


def test_bot_stats(league: list[dict[str, Any]]) -> None:
    stats = {s.bot: s for s in bot_stats(league)}
    assert set(stats) == {"alice", "bob", "carol"}
    for name, st in stats.items():
        seats = [(r, s) for r in league for s, p in enumerate(r["players"]) if p["name"] == name]
        assert st.games == len(seats) == 8
        scores = [float(r["result"]["scores"][s]) for r, s in seats]
        assert st.mean_score == pytest.approx(sum(scores) / len(scores))
        moves = [st_["ms"] for r, s in seats for st_ in r["steps"] if st_["seat"] == s]
        assert len(st.move_ms) == len(moves)
        pct = st.ms_percentiles()
        assert pct["p50"] is not None and pct["p50"] <= pct["p90"] <= pct["max"]  # type: ignore[operator]  # with moves, none is None
    assert stats["carol"].failures["illegal"] > 0 and not stats["alice"].failures
    assert stats["alice"].mean("plains") is not None  # panorama category
    assert stats["alice"].mean("meadows_koala") is not None  # dziobaki category
    assert percentile([3.0, 1.0, 2.0], 100) == 3.0


def test_export_parquet_and_csv(league: list[dict[str, Any]], tmp_path: Path) -> None:
    rows = seat_rows(league)
    assert len(rows) == 2 * len(league)
    assert export(league, tmp_path / "g.parquet") == len(rows)
    table = pq.read_table(tmp_path / "g.parquet")
    assert table.num_rows == len(rows)
    cols = set(table.column_names)
    assert {"game_id", "seat", "bot", "score", "rank", "ms_p50", "illegal", "bd_plains"} <= cols
    data = table.to_pylist()
    first = league[0]
    mine = [r for r in data if r["game_id"] == first["game_id"]]
    assert [r["score"] for r in mine] == [float(x) for x in first["result"]["scores"]]
    assert [r["bot"] for r in mine] == [p["name"] for p in first["players"]]
    dz = [r for r in data if r["game"] == "dziobaki"]
    assert all(r["bd_plains"] is None for r in dz)
    assert export(league, tmp_path / "g.csv") == len(rows)
    assert pcsv.read_csv(tmp_path / "g.csv").num_rows == len(rows)
    with pytest.raises(UserError, match=r"\.parquet or \.csv"):
        export(league, tmp_path / "g.xlsx")


def test_cli_games_stats_export(league: list[dict[str, Any]], tmp_path: Path) -> None:
    path = write_jsonl(league, tmp_path / "journal.jsonl")
    proc = arena("games")  # the registered games, as before
    assert proc.exit_code == 0 and "zooloretto_mini" in proc.stdout
    proc = arena("games", str(path), "--bot", "carol", "--lost", "--json")
    assert proc.exit_code == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert {g["game_id"] for g in listed} == {
        r["game_id"] for r in filter_games(league, bot="carol", only_lost=True)
    }
    assert all(g["events"] for g in listed if "carol" in g["players"])
    proc = arena("games", str(path), "--game", "dziobaki")
    # (the table's title wraps at the table's width, which the file's path may pass)
    assert proc.exit_code == 0 and "6 of 12 games" in " ".join(proc.stdout.split())
    assert league[0]["game_id"] in proc.stdout and "illegal" in proc.stdout
    proc = arena("games", "--lost")
    assert proc.exit_code == 2 and "give a run id or file" in proc.stderr
    proc = arena("stats", str(path), "--json")
    assert proc.exit_code == 0, proc.stderr
    stats = {s["bot"]: s for s in json.loads(proc.stdout)}
    assert stats["carol"]["failures"]["illegal"] > 0
    assert set(stats["alice"]["move_ms"]) == {"p50", "p90", "p99", "max"}
    proc = arena("stats", str(path))
    assert proc.exit_code == 0 and "mean score by category" in proc.stdout
    proc = arena("export", str(path), "--out", str(tmp_path / "x.csv"), "--bot", "alice")
    assert proc.exit_code == 0 and "16 rows (8 games x seats)" in proc.stdout


@pytest.mark.slow
@pytest.mark.xdist_group("mlflow")
def test_cli_on_an_mlflow_run(logged_run: tuple[str, str, list[dict[str, Any]]]) -> None:
    uri, run_id, records = logged_run
    proc = arena("games", run_id, "--tracking-uri", uri, "--json")
    assert proc.exit_code == 0, proc.stderr
    assert [g["game_id"] for g in json.loads(proc.stdout)] == [r["game_id"] for r in records]


def test_a_tournament_dir_with_a_torn_journal(league: list[dict[str, Any]], tmp_path: Path) -> None:
    from arena.replay.sources import load_source

    journal = write_jsonl(league, tmp_path / "journal.jsonl")
    with open(journal, "a") as fh:
        fh.write('{"format": "menagerie.record/1", "game": "pano')  # a driver killed mid-write
    loaded = load_source(str(tmp_path))
    assert [r["game_id"] for r in loaded.records] == [r["game_id"] for r in league]


def test_a_record_that_does_not_replay_is_reported_and_left_out(
    league: list[dict[str, Any]], tmp_path: Path
) -> None:
    path, bad = tampered_journal(league, tmp_path / "journal.jsonl")
    proc = arena("games", str(path), "--json")
    assert proc.exit_code == 0, proc.stderr
    assert bad["game_id"] not in {g["game_id"] for g in json.loads(proc.stdout)}
    assert f"game {bad['game_id']} left out" in proc.stderr and "result differs" in proc.stderr
    assert f"1 of {len(league)} records" in proc.stderr
    proc = arena("stats", str(path), "--json")
    assert proc.exit_code == 0 and "left out" in proc.stderr
    proc = arena("export", str(path), "--out", str(tmp_path / "x.csv"))
    assert proc.exit_code == 0 and f"({len(league) - 1} games x seats)" in proc.stdout
