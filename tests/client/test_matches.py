"""``arena match create|get|list`` against a real game server (embedded, loopback)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from arena.match.records import read_records, verify_record
from tests.cli import CliResult, run_cli
from tests.client.helpers import TOKEN, WAIT_S, admin_server
from tests.wire.helpers import BotThread


def _cli(*args: str, tmp_path: Path) -> CliResult:
    return run_cli(
        *args,
        env={"MENAGERIE_MATCH_HISTORY": str(tmp_path / "m.jsonl"), "MENAGERIE_ADMIN_TOKEN": ""},
    )


def test_create_get_list_a_match_played_by_two_bots(tmp_path: Path) -> None:
    with admin_server() as server:
        created = _cli(
            "match", "create", "zooloretto_mini", "--players", "2", "--address", server.address,
            "--admin-token", TOKEN, "--seed", "7", "--names", "ann,bob", "--json",
            tmp_path=tmp_path,
        )  # fmt: skip
        assert created.exit_code == 0, created.stderr
        info = json.loads(created.stdout)
        match_id = info["match_id"]
        credentials = [s["credential"] for s in info["seats"]]
        assert [s["seat"] for s in info["seats"]] == [0, 1] and all(credentials)

        waiting = _cli(
            "match", "get", server.address, match_id, "--admin-token", TOKEN, tmp_path=tmp_path
        )
        assert waiting.exit_code == 0, waiting.stderr
        assert f"match {match_id}: waiting" in waiting.stdout

        bots = [BotThread(server.address, c) for c in credentials]
        for bot in bots:
            bot.join(WAIT_S)
            assert bot.result is not None, bot.error

        record_path = tmp_path / "rec.json"
        done = _cli(
            "match", "get", server.address, match_id, "--admin-token", TOKEN,
            "--record", str(record_path), tmp_path=tmp_path,
        )  # fmt: skip
        assert done.exit_code == 0, done.stderr
        assert f"match {match_id}: finished" in done.stdout
        assert "rank 1" in done.stdout and "ann" in done.stdout and "bob" in done.stdout
        (record,) = read_records(record_path)
        assert record["seed"] == 7 and verify_record(record).ok

        listed = _cli("match", "list", server.address, "--admin-token", TOKEN, tmp_path=tmp_path)
        assert listed.exit_code == 0, listed.stderr
        assert f"{match_id}  finished  zooloretto_mini" in listed.stdout
        other = _cli(
            "match",
            "list",
            server.address,
            "nope",
            "--admin-token",
            TOKEN,
            "--json",
            tmp_path=tmp_path,
        )
        assert json.loads(other.stdout)[0]["status"] == "unknown"


@pytest.mark.parametrize(
    ("token", "expected"),
    [("wrong", "the admin token was refused"), ("", "no admin token given")],
)
def test_create_match_with_a_wrong_or_missing_token_says_so(
    tmp_path: Path, token: str, expected: str
) -> None:
    with admin_server() as server:
        result = _cli(
            "match", "create", "dziobaki", "--players", "2", "--address", server.address,
            "--admin-token", token, tmp_path=tmp_path,
        )  # fmt: skip
        assert server.hub.tables == {}
    assert result.exit_code == 2
    assert expected in result.stderr and "MENAGERIE_ADMIN_TOKEN" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_requests_get_clear_errors(tmp_path: Path) -> None:
    with admin_server() as server:
        unknown = _cli(
            "match",
            "get",
            server.address,
            "no-such-match",
            "--admin-token",
            TOKEN,
            tmp_path=tmp_path,
        )
        bad_game = _cli(
            "match", "create", "chess", "--players", "2", "--address", server.address,
            "--admin-token", TOKEN, tmp_path=tmp_path,
        )  # fmt: skip
        bad_players = _cli(
            "match", "create", "dziobaki", "--players", "9", "--address", server.address,
            "--admin-token", TOKEN, tmp_path=tmp_path,
        )  # fmt: skip
    assert unknown.exit_code == 2 and "has no match 'no-such-match'" in unknown.stderr
    assert (
        bad_game.exit_code == 2
        and "refused CreateMatch" in bad_game.stderr
        and "chess" in bad_game.stderr
    )
    assert bad_players.exit_code == 2 and "for 1-4 players, got 9" in bad_players.stderr
    for result in (unknown, bad_game, bad_players):
        assert "Traceback" not in result.stderr


def test_an_unreachable_server_is_named(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nobody listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{sock.getsockname()[1]}"
        result = _cli("match", "get", address, "x", "--admin-token", TOKEN, tmp_path=tmp_path)
        bad_address = _cli("match", "list", "nowhere", tmp_path=tmp_path)
    assert result.exit_code == 2 and f"cannot reach the game server at {address}" in result.stderr
    assert bad_address.exit_code == 2 and "HOST:PORT" in bad_address.stderr
