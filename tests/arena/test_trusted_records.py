"""Journals that refuse what is not theirs: foreign lines, records that do not verify,
bad bytes; MLflow uploads tracked by game id; ``arena sync``'s store.

Real records (games played in-process), a real SQLite MLflow store, the real CLI."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.config import load_config
from arena.tournament.journal import Journal, read_journal
from arena.tournament.ratings import GameSummary
from arena.tournament.run import recorded_tracking_uri, verified_summaries
from arena.tournament.tracking import Tracker
from tests.cli import run_cli
from tests.replay.helpers import play

OWN = "t-own"


def records(tid: str | None, n: int, seed: int = 0) -> list[dict[str, Any]]:
    names = [("alice", "bob"), ("bob", "alice")]
    return [play("dziobaki", list(names[i % 2]), seed + i, tournament_id=tid) for i in range(n)]


def write(path: Path, recs: list[dict[str, Any]], extra: bytes = b"") -> Path:
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in recs) + extra)
    return path


def test_a_journal_refuses_the_lines_of_another_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own, foreign = records(OWN, 3), records("t-other", 4, seed=50)
    path = write(tmp_path / "journal.jsonl", [own[0], *foreign, own[1], own[2]])
    seen: list[str] = []
    with Journal(path, lambda r: seen.append(r["game_id"]), owner=OWN) as j:
        assert len(j) == 3 and seen == [r["game_id"] for r in own]
        assert dict(j.foreign) == {"t-other": 4}
    err = capsys.readouterr().err
    assert "4 line(s) are not of tournament t-own (4 of t-other)" in err and "refused" in err
    assert [r["game_id"] for r in read_journal(path, OWN)] == [r["game_id"] for r in own]
    assert len(path.read_bytes().splitlines()) == 7  # refused, not destroyed


def test_a_record_that_does_not_verify_is_named_and_left_out(tmp_path: Path) -> None:
    recs = records(OWN, 3)
    bad = copy.deepcopy(recs[1])
    bad["standing"]["ranks"] = list(reversed(bad["standing"]["ranks"]))  # altered ranks
    bad["result"]["ranks"] = list(reversed(bad["result"]["ranks"]))
    path = write(tmp_path / "journal.jsonl", [recs[0], bad, recs[2]])
    warnings: list[str] = []
    summaries: list[GameSummary] = []
    with Journal(path, verified_summaries(summaries, warnings.append), owner=OWN) as j:
        assert len(j) == 3  # still the journal's: it is not played again
    assert [s.game_id for s in summaries] == [recs[0]["game_id"], recs[2]["game_id"]]
    assert len(warnings) == 1 and bad["game_id"] in warnings[0] and "result differs" in warnings[0]


def test_a_tournament_dir_is_rated_from_its_own_verified_records(tmp_path: Path) -> None:
    (tmp_path / "tournament.json").write_text(json.dumps({"tournament_id": OWN}))
    write(tmp_path / "journal.jsonl", [*records(OWN, 4), *records("t-other", 3, seed=9)])
    proc = run_cli("ratings", str(tmp_path), "--json", "--crosstable")
    assert proc.exit_code == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert sum(r["games"] for r in data["leaderboard"]) == 2 * 4
    assert data["crosstable"][0] == ["bot", *(r["bot"] for r in data["leaderboard"])]
    assert "not of tournament t-own" in proc.stderr


def test_a_bad_byte_is_a_bad_line_everywhere(tmp_path: Path) -> None:
    recs = records(OWN, 2)
    path = write(tmp_path / "journal.jsonl", recs[:1], b'{"game_id": "x\xff"}\n')
    write_more = path.read_bytes() + json.dumps(recs[1]).encode() + b"\n"
    path.write_bytes(write_more)
    proc = run_cli("verify", str(path))
    assert proc.exit_code == 1 and "Traceback" not in proc.stderr
    assert "FAIL" in proc.stdout and ":2: not UTF-8 text" in proc.stdout
    assert "2 of 3 record(s) verified" in proc.stdout
    with Journal(path, owner=OWN) as j:
        assert len(j) == 2 and j.bad_lines == 1
    assert len(list(read_journal(path))) == 2
    proc = run_cli("ratings", str(path), "--json")
    assert proc.exit_code != 0 and "Traceback" not in proc.stderr and "UTF-8" in proc.stderr


def uploaded(uri: str, run_id: str, tmp: Path) -> list[str]:
    from mlflow import MlflowClient

    local = MlflowClient(tracking_uri=uri).download_artifacts(run_id, "records", str(tmp))
    return [
        json.loads(line)["game_id"]
        for part in sorted(Path(local).glob("*.jsonl"))
        for line in part.read_text().splitlines()
    ]


def test_uploads_are_tracked_by_game_id(tmp_path: Path) -> None:
    """A middle line corrupted after its part went up shifts no index: every game is in
    MLflow once (by index, one would be there twice and one missing)."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    cfg = load_config(
        None,
        {"game": "dziobaki", "bots": ["random", "greedy"], "tracking_uri": uri, "out": "x"},
    )
    out = tmp_path / "out"
    out.mkdir()
    lines = [(f"g{i}", json.dumps({"game_id": f"g{i}", "i": i})) for i in range(5)]
    path = out / "journal.jsonl"
    with Journal(path) as j:
        j.append(lines[:3])
        tracker = Tracker(cfg, out, j, log=lambda s: None)
        assert tracker.sync_now([], [], False) and tracker.uploaded_now == 3
        run_id = tracker.run_id
    raw = path.read_bytes().split(b"\n")
    raw[1] = b"\xff" + raw[1][1:]  # g1's line goes bad after it was uploaded
    path.write_bytes(b"\n".join(raw))
    with Journal(path) as j:
        assert len(j) == 2
        j.append(lines[3:])
        tracker = Tracker(cfg, out, j, log=lambda s: None)
        assert tracker.sync_now([], [], False) and tracker.uploaded_now == 2
        assert tracker.run_id == run_id
    assert sorted(uploaded(uri, str(run_id), tmp_path / "dl")) == [f"g{i}" for i in range(5)]
    assert recorded_tracking_uri(out) == uri  # what `arena sync` writes to


def test_sync_names_the_store_it_writes_to_and_refuses_to_guess(tmp_path: Path) -> None:
    assert recorded_tracking_uri(tmp_path) is None
    state = {"sqlite:///a.db": {"run_id": "r1"}, "http://x:5000": {"run_id": None}}
    (tmp_path / "tracking.json").write_text(json.dumps(state))
    assert recorded_tracking_uri(tmp_path) == "sqlite:///a.db"
    state["http://x:5000"]["run_id"] = "r2"
    (tmp_path / "tracking.json").write_text(json.dumps(state))
    with pytest.raises(Exception, match="tracked in 2 stores"):
        recorded_tracking_uri(tmp_path)
