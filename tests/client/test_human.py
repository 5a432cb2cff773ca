"""The ``human`` bot: a person (here, a pipe) plays a whole game at the terminal."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from arena.client.connection import Connection
from arena.client.matches import create_match, get_match
from arena.match.records import read_records, verify_record
from tests.client.helpers import (
    TOKEN,
    WAIT_S,
    admin_server,
    arena_process,
    finish,
    read_until,
)
from tests.wire.helpers import BotThread

ALWAYS_FIRST = "1\n" * 3000
"""More answers than any game asks: the person always takes the first move shown."""


def _play(tmp_path: Path, *extra: str) -> list[str]:
    return ["play", "zooloretto_mini", "--bots", "human,random", "--seed", "2",
            "--record", str(tmp_path / "rec.json"), *extra]  # fmt: skip


def test_a_person_plays_a_whole_game_against_random(tmp_path: Path) -> None:
    proc = arena_process(*_play(tmp_path), tmp_path=tmp_path)
    code, out, err = finish(proc, "x\n999\n?\n" + ALWAYS_FIRST)
    assert code == 0, err
    (record,) = read_records(tmp_path / "rec.json")
    assert verify_record(record).ok and record["events"] == []
    assert record["players"][0]["name"] == "human"
    decisions = sum(1 for s in record["steps"] if s["seat"] == 0)
    assert out.count("your move (1-") == decisions + 3  # 3 answers were asked again
    assert "'x' is not one of the legal moves" in out
    assert "there is no move 999: type a number from 1 to" in out
    assert out.count("=== Zooloretto Mini: your turn, seat 0") == decisions + 1  # ? redraws
    assert "legal moves:\n   1. " in out or "legal moves:\n  1. " in out
    assert "rank" in out  # the summary of arena play


def test_end_of_input_leaves_and_the_game_still_finishes(tmp_path: Path) -> None:
    code, out, err = finish(arena_process(*_play(tmp_path), tmp_path=tmp_path), "1\n")
    assert code == 0, err
    assert "you left the game" in out and "Traceback" not in err
    (record,) = read_records(tmp_path / "rec.json")
    kinds = [(e["seat"], e["kind"]) for e in record["events"]]
    assert kinds == [(0, "disconnect"), (0, "forfeit")]
    assert verify_record(record).ok


def test_ctrl_c_at_the_prompt_leaves_cleanly(tmp_path: Path) -> None:
    proc = arena_process(*_play(tmp_path), tmp_path=tmp_path)
    seen = read_until(proc, "your move")
    proc.send_signal(signal.SIGINT)
    code, out, err = finish(proc)
    out = seen + out
    assert code == 0, err
    assert "you left the game" in out and "Traceback" not in err
    (record,) = read_records(tmp_path / "rec.json")
    assert record["events"][0]["kind"] == "disconnect"


@pytest.mark.server
def test_a_person_joins_a_seat_of_a_server_match(tmp_path: Path) -> None:
    with admin_server() as server, Connection(server.address, TOKEN) as conn:
        match = create_match(conn, "zooloretto_mini", 2, seed=5, remember=False)
        person = arena_process(
            "match", "join", server.address, match.match_id, "--credential",
            match.credentials[0], tmp_path=tmp_path,
        )  # fmt: skip
        bot = BotThread(server.address, match.credentials[1])
        code, out, err = finish(person, "nonsense\n" + ALWAYS_FIRST)
        bot.join(WAIT_S)
        status = get_match(conn, match.match_id)
    assert code == 0, err
    assert f"joined zooloretto_mini match {match.match_id} as seat 0 of 2" in out
    assert "'nonsense' is not one of the legal moves" in out
    assert "game over:" in out and "you (seat 0) rank" in out
    assert status.status == "finished" and status.record is not None
    assert status.record["events"] == []
    decisions = sum(1 for s in status.record["steps"] if s["seat"] == 0)
    assert out.count("=== zooloretto_mini: your turn, seat 0") == decisions


@pytest.mark.server
def test_join_with_another_match_id_refuses_to_play(tmp_path: Path) -> None:
    with admin_server() as server, Connection(server.address, TOKEN) as conn:
        match = create_match(conn, "zooloretto_mini", 2, remember=False)
        person = arena_process(
            "match", "join", server.address, "not-this-one", "--credential",
            match.credentials[0], tmp_path=tmp_path,
        )  # fmt: skip
        code, out, err = finish(person, ALWAYS_FIRST)
    assert code == 2
    assert f"the credential is for match {match.match_id}, not not-this-one" in err
    assert "your turn" not in out and "Traceback" not in err
