"""`arena replay` in the terminal: every step, any seat's view, events, verification."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.errors import UserError
from arena.replay.model import UnverifiedRecord, load_replay, parse_seat
from arena.replay.sources import load_game, pick_game, run_record
from arena.replay.terminal import interactive, print_frame, print_steps
from engine import get_game
from tests.replay.helpers import GAMES, arena, write_jsonl


def _text(fn: Any, *args: Any) -> str:
    buf = io.StringIO()
    fn(Console(file=buf, width=200, highlight=False), *args)
    return buf.getvalue()


@pytest.mark.parametrize("game", GAMES)
def test_replay_has_every_state_and_readable_steps(
    game: str, game_records: dict[str, dict[str, Any]]
) -> None:
    record = game_records[game]
    rp = load_replay(record)
    assert rp.last == len(record["steps"]) and len(rp.states) == rp.last + 1
    g = get_game(game)
    for step, raw in zip(rp.steps, record["steps"], strict=True):
        assert step.text == str(g.action_from_json(raw["action"]))
    assert rp.states[-1].is_terminal() and rp.states[0].history == []
    mid = rp.last // 2
    for seat in (None, 0, 1, 2):
        assert rp.render(mid, seat) == rp.states[mid].render(seat)
    # events sit on the step they happened at
    flagged = {e["step"] for e in record["events"]}
    assert set(rp.event_steps()) == flagged


def test_steps_output_lists_every_step_events_and_final_score(
    game_records: dict[str, dict[str, Any]],
) -> None:
    record = game_records["panorama"]
    out = _text(print_steps, load_replay(record))
    lines = out.splitlines()
    for k in (1, len(record["steps"])):
        assert any(line.lstrip().startswith(f"{k} ") for line in lines)
    assert out.count("! illegal (seat 1)") == len(record["events"])
    assert "final score" in out
    for score in record["result"]["scores"]:
        assert str(score) in out


def test_frame_shows_what_that_seat_knew(game_records: dict[str, dict[str, Any]]) -> None:
    record = game_records["manatee_sanctuary"]
    rp = load_replay(record)
    k = next(
        k
        for k in range(rp.last)
        if rp.states[k].render(0) != rp.states[k].render(None)
        and rp.states[k].render(0) != rp.states[k].render(1)
    )
    for seat in (None, 0, 1):
        out = _text(print_frame, rp, k, seat)
        assert rp.states[k].render(seat) in out
        assert f"step {k}/{rp.last}" in out
    assert "final score" in _text(print_frame, rp, rp.last, None)


def test_interactive_commands(game_records: dict[str, dict[str, Any]]) -> None:
    rp = load_replay(game_records["dziobaki"])
    commands = iter(["n", "", "p", "j 10", "s 2", "e", "s -", "x", "j end", "n", "f", "q"])
    buf = io.StringIO()
    interactive(Console(file=buf, width=200), rp, None, read=lambda _p: next(commands))
    out = buf.getvalue()
    assert "step 1/" in out and "step 2/" in out
    assert f"step 10/{rp.last}  view: seat 2 (carol)" in out
    first_event = rp.event_steps()[0] if rp.event_steps()[0] > 10 else rp.event_steps()[1]
    assert f"step {first_event}/{rp.last}" in out
    assert "(this is the last step)" in out
    assert "n/Enter next" in out  # help after an unknown command
    assert rp.render(10, 2) in out


def test_interactive_ends_on_end_of_input(game_records: dict[str, dict[str, Any]]) -> None:
    rp = load_replay(game_records["dziobaki"])
    prompts: list[str] = []

    def eof(prompt: str) -> str:
        prompts.append(prompt)
        raise EOFError

    buf = io.StringIO()
    assert interactive(Console(file=buf, width=200), rp, 0, read=eof) is None
    assert prompts == [f"[0/{rp.last}] > "]  # asked once, then returned instead of looping
    out = buf.getvalue()
    assert f"step 0/{rp.last}" in out and rp.render(0, 0) in out  # the first frame was shown
    assert out.endswith("\n")  # and the line after the prompt was ended


def test_a_record_that_does_not_verify_is_never_shown(
    game_records: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    bad = copy.deepcopy(game_records["zooloretto_mini"])
    # swap two decisions of seat 0: the replay goes wrong at the first of them
    steps = bad["steps"]
    i = next(i for i, s in enumerate(steps) if s["seat"] == 0 and s["action"]["kind"] == "place")
    j = next(
        j
        for j in range(i + 1, len(steps))
        if steps[j]["seat"] == 0 and steps[j]["action"] != steps[i]["action"]
    )
    steps[i], steps[j] = steps[j], steps[i]
    with pytest.raises(UnverifiedRecord, match=r"does not verify: (step|state differs)"):
        load_replay(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    proc = arena("replay", str(path), "--steps")
    assert proc.exit_code == 1
    assert "does not verify" in proc.stderr and "step" in proc.stderr
    assert proc.stdout == ""
    scores = copy.deepcopy(game_records["panorama"])
    scores["result"]["scores"][0] += 1
    path.write_text(json.dumps(scores))
    proc = arena("replay", str(path), "--html", str(tmp_path / "v.html"))
    assert proc.exit_code == 1 and "result differs" in proc.stderr
    assert not (tmp_path / "v.html").exists()


def test_cli_replay_file_at_and_seat(
    game_records: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    record = game_records["carson_city_zoo"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    rp = load_replay(record)
    proc = arena("replay", str(path), "--at", "5", "--seat", "1")
    assert proc.exit_code == 0, proc.stderr
    assert rp.render(5, 1) in proc.stdout and "view: seat 1 (bob)" in proc.stdout
    proc = arena("replay", str(path), "--at", "-1")
    assert proc.exit_code == 0 and "final score" in proc.stdout
    proc = arena("replay", str(path))  # stdin is not a terminal: all steps
    assert proc.exit_code == 0 and f"{rp.last} steps" in proc.stdout
    for args, message in (
        (["--seat", "3"], "seat must be 0..2"),
        (["--at", "9999"], "--at must be a step"),
    ):
        proc = arena("replay", str(path), *args)
        assert proc.exit_code == 2 and message in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_game_ids_in_a_multi_game_file(
    game_records: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    records = list(game_records.values())
    path = write_jsonl(records, tmp_path / "journal.jsonl")
    with pytest.raises(UserError, match="give a GAME_ID"):
        load_game(str(path), None)
    assert load_game(str(path), records[2]["game_id"]) == records[2]
    assert load_game(str(path), "pano")["game"] == "panorama"
    with pytest.raises(UserError, match="no game 'nope'"):
        pick_game(records, "nope", "x")
    with pytest.raises(UserError, match="no such file"):
        load_game(str(tmp_path / "missing.jsonl"), None)
    assert parse_seat("spectator", 3) is None and parse_seat("2", 3) == 2


@pytest.mark.slow
@pytest.mark.xdist_group("mlflow")
def test_replay_from_an_mlflow_run(logged_run: tuple[str, str, list[dict[str, Any]]]) -> None:
    uri, run_id, records = logged_run
    target = records[3]
    assert run_record(run_id, target["game_id"], uri) == target
    assert run_record(run_id, target["game_id"][:9], uri) == target
    with pytest.raises(UserError, match="ambiguous"):
        run_record(run_id, target["game_id"][:6], uri)
    with pytest.raises(UserError, match="no game 'zzz'"):
        run_record(run_id, "zzz", uri)
    proc = arena("replay", run_id, target["game_id"], "--at", "end", "--tracking-uri", uri)
    assert proc.exit_code == 0, proc.stderr
    assert f"{target['game']} game {target['game_id']}" in proc.stdout
    assert "final score" in proc.stdout
    with pytest.raises(UserError, match="give the GAME_ID"):
        load_game(run_id, None, uri)
    with pytest.raises(UserError, match="neither a record file nor an MLflow run"):
        load_game("0123456789abcdef", "x", uri)
