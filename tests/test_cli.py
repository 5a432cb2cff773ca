"""The first `arena` commands, run as a user runs them: games, play, verify, bench engine."""

from __future__ import annotations

import json
import re
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
        (["play", "dziobaki", "--players", "7", "--bots", "random,greedy"], "1-4 players, got 7"),
        (
            ["play", "dziobaki", "--bots", "ismcts:iterations=abc,random"],
            "parameter 'iterations' must be int, got 'abc'",
        ),
        (
            ["play", "dziobaki", "--bots", "ismcts:iters=9,random"],
            "unknown parameter 'iters'; valid parameters: iterations, ms, c",
        ),
        (
            ["play", "dziobaki", "--bots", "random", "--options", "board_side"],
            "'board_side' is not key=value",
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
        "--max-repeats",
        "2",
        "--json",
    )
    assert proc.exit_code == 0, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    assert [r["players"] for r in rows] == [2, 3, 4, 5]
    assert all(r["decisions_per_s"] > 0 and r["trivial_ratio"] > 0 for r in rows)


def test_papercuts_of_a_newcomer(tmp_path: Path, run_cli: Any) -> None:
    """``--options key=value`` (the form ``arena games`` shows) plays like the JSON form;
    ``--version`` answers; a flag's help shows no value type; ``arena ratings`` of an
    unknown run creates no ``mlflow.db``; ``py:<module>:<Class>`` finds ``./module.py``."""
    records = []
    for n, options in enumerate(("board_side=B,all_together=true", '{"board_side": "B"}')):
        path = tmp_path / f"{n}.json"
        proc = run_cli(
            "play", "dziobaki", "--bots", "random", "--players", "2",
            "--options", options, "--record", path,
        )  # fmt: skip
        assert proc.exit_code == 0, proc.stderr
        records.append(next(read_records(path)))
    assert records[0]["options"] == {"board_side": "B", "all_together": True}
    assert records[1]["options"]["board_side"] == "B"
    assert run_cli("games").stdout.count("--options board_side=A") == 1

    proc = run_cli("--version")
    assert proc.exit_code == 0 and proc.stdout.startswith("menagerie ")
    help_text = run_cli("ratings", "--help").stdout
    assert "--json" in help_text and "<bool>" not in help_text

    proc = run_cli("ratings", "0123456789abcdef", cwd=tmp_path, env={"MLFLOW_TRACKING_URI": ""})
    assert proc.exit_code == 2 and "no tracking store" in proc.stderr, proc.stderr
    assert not (tmp_path / "mlflow.db").exists()

    (tmp_path / "pc_local_bot.py").write_text(
        "class LocalBot:\n"
        "    name = 'local'\n"
        "    def __init__(self, pick: int = 0) -> None:\n"
        "        self.pick = pick\n"
        "    def choose(self, turn):\n"
        "        return self.pick\n"
    )
    out = tmp_path / "local.json"
    args = ["play", "dziobaki", "--bots", "py:pc_local_bot:LocalBot,random", "--record", out]
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.exit_code == 0, proc.stderr
    assert next(read_records(out))["players"][0]["name"] == "local"
    proc = run_cli(*args[:3], "py:pc_local_bot:LocalBot:pick=x,random", cwd=tmp_path)
    assert proc.exit_code == 2 and "'pick' must be int, got 'x'" in proc.stderr


def test_a_bot_log_is_not_a_failure() -> None:
    """A command bot's stderr, kept after a normal exit, is a log: not counted or shown as
    a failure by ``arena games``/``stats`` (an illegal move still is)."""
    from arena.match.records import is_failure
    from arena.replay.analysis import event_summary

    log = {"step": 3, "seat": 1, "kind": "stderr", "reason": "the process exited with code 0"}
    bad = {"step": 2, "seat": 0, "kind": "illegal", "reason": "index 9"}
    assert not is_failure(log) and is_failure(bad)
    assert event_summary({"events": [log]}) == ""
    assert event_summary({"events": [log, bad]}) == "illegal@0"


def test_tournament_help_lists_every_yaml_key(run_cli: Any) -> None:
    from arena.tournament.config import TournamentConfig

    out = run_cli("tournament", "--help").stdout
    paragraph = out.split("The YAML keys", 1)[1].split("╭", 1)[0]  # not the flags' panel
    listed = set(re.findall(r"\w+", paragraph))
    missing = [key for key in TournamentConfig.model_fields if key not in listed]
    assert not missing, f"`arena tournament --help` does not list the YAML keys {missing}"
