"""The first `arena` commands, run as a user runs them: games, play, verify, bench engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.match.records import read_records, verify_record


def test_games_lists_every_registered_game_with_options(run_cli: Any) -> None:
    from engine import GAMES

    out = run_cli("games").stdout
    for game in GAMES.values():
        assert game.id in out
        for key in game.option_specs:
            assert key in out
    data = json.loads(run_cli("games", "--json").stdout)
    assert {g["id"] for g in data} == set(GAMES)
    dziobaki = next(g for g in data if g["id"] == "dziobaki")
    assert dziobaki["options"]["board_side"]["accepts"] == '"A" | "B"'
    assert """--options '{"board_side": "A"}'""" in out  # the form `play --options` takes


def test_play_writes_a_record_that_verifies_and_is_reproducible(
    tmp_path: Path, run_cli: Any
) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path in (a, b):
        proc = run_cli(
            "play",
            "zooloretto_mini",
            "--players",
            "3",
            "--bots",
            "random",
            "--seed",
            "11",
            "--record",
            str(path),
        )
        assert proc.exit_code == 0, proc.stderr
    ra, rb = next(read_records(a)), next(read_records(b))
    assert [s["action"] for s in ra["steps"]] == [s["action"] for s in rb["steps"]]
    assert ra["digest"] == rb["digest"]
    assert verify_record(ra).ok
    proc = run_cli("verify", str(a))
    assert proc.exit_code == 0 and "1 of 1 record(s) verified" in proc.stdout


def test_show_renders_each_step_from_a_seat(tmp_path: Path, run_cli: Any) -> None:
    proc = run_cli(
        "play",
        "zooloretto_mini",
        "--players",
        "2",
        "--bots",
        "random,random",
        "--seed",
        "3",
        "--show",
        "1",
    )
    assert proc.exit_code == 0, proc.stderr
    assert proc.stdout.count("--- step ") > 50
    assert "seat 0" in proc.stdout and "T1" in proc.stdout


def test_verify_names_the_step_of_a_tampered_record(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "g.json"
    assert (
        run_cli(
            "play",
            "zooloretto_mini",
            "--players",
            "2",
            "--bots",
            "random",
            "--seed",
            "5",
            "--record",
            str(path),
        ).exit_code
        == 0
    )
    record = json.loads(path.read_text())
    # Swap a legal decision for another legal one of the same kind: replay still runs,
    # but the state no longer matches the recorded checkpoints.
    from engine import GAMES

    game = GAMES["zooloretto_mini"]
    state = game.new_game(2, record["options"])
    for k, step in enumerate(record["steps"]):
        action = game.action_from_json(step["action"])
        legal = state.legal_actions()
        others = [x for x in legal if x != action and x.KIND == action.KIND]
        if step["seat"] != "chance" and others:
            record["steps"][k]["action"] = others[0].to_json()
            break
        state.apply(action)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    proc = run_cli("verify", str(bad))
    assert proc.exit_code == 1
    assert "FAIL" in proc.stdout and "step" in proc.stdout
    assert not verify_record(record).ok


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "--bots", "random"], "unknown game 'chess'"),
        (["play", "zooloretto_mini", "--players", "9", "--bots", "random"], "2-5 players"),
        (
            [
                "play",
                "zooloretto_mini",
                "--players",
                "2",
                "--bots",
                "random",
                "--options",
                '{"colour": 1}',
            ],
            "no option 'colour'",
        ),
        (
            [
                "play",
                "zooloretto_mini",
                "--players",
                "2",
                "--bots",
                "random",
                "--options",
                '{"start_player": 5}',
            ],
            "option 'start_player'",
        ),
        (
            ["play", "zooloretto_mini", "--players", "2", "--bots", "random", "--options", "{oops"],
            "--options is not valid JSON",
        ),
        (
            ["play", "zooloretto_mini", "--players", "2", "--bots", "random,alphazero"],
            "unknown bot 'alphazero'",
        ),
    ],
)
def test_user_errors_are_one_clear_line(args: list[str], message: str, run_cli: Any) -> None:
    proc = run_cli(*args)
    assert proc.exit_code == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_corrupt_and_truncated_records_are_reported(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "g.json"
    assert (
        run_cli(
            "play",
            "zooloretto_mini",
            "--players",
            "2",
            "--bots",
            "random",
            "--seed",
            "2",
            "--record",
            str(path),
        ).exit_code
        == 0
    )
    truncated = tmp_path / "truncated.json"
    truncated.write_text(path.read_text()[:2000])
    proc = run_cli("verify", str(truncated))
    assert proc.exit_code == 2 and "truncated or corrupt" in proc.stderr
    assert "Traceback" not in proc.stderr
    record = json.loads(path.read_text())
    record["steps"][5]["action"] = {"kind": "teleport"}
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(record))
    proc = run_cli("verify", str(broken))
    assert proc.exit_code == 1 and "step 6" in proc.stdout and "unknown action kind" in proc.stdout
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps({"format": "menagerie.record/1"}))
    proc = run_cli("verify", str(missing))
    assert proc.exit_code == 2 and "missing field" in proc.stderr


def test_bench_engine_reports_every_player_count(run_cli: Any) -> None:
    proc = run_cli(
        "bench",
        "engine",
        "--game",
        "zooloretto_mini",
        "--seconds",
        "0.05",
        "--repeats",
        "1",
        "--json",
    )
    assert proc.exit_code == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["players"] for r in rows] == [2, 3, 4, 5]
    assert all(r["decisions_per_s"] > 0 and r["trivial_ratio"] > 0 for r in rows)
