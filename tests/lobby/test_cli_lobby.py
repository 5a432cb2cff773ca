"""The lobby from the command line: submit --remote, token, run --serve, revoke (the
commands in-process; the remote bot in its own process)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli import CliResult
from tests.lobby.kit import python_bot, stop

pytestmark = [pytest.mark.server]


def test_remote_bot_from_the_command_line(
    tmp_path: Path, free_port: int, run_cli: Callable[..., CliResult]
) -> None:
    db = ["--db", str(tmp_path / "ladder.db")]
    assert (
        run_cli("ladder", "create", "dziobaki", "--players", "2", "--name", "zoo", *db).exit_code
        == 0
    )
    assert run_cli("ladder", "submit", "zoo", "--name", "rnd", "random", *db).exit_code == 0
    remote = run_cli("ladder", "submit", "zoo", "--name", "far", "--remote", *db)
    assert remote.exit_code == 0 and "a remote bot, active" in remote.stdout, remote.stderr
    bad = run_cli("ladder", "submit", "zoo", "--name", "far", "--remote", "random", *db)
    assert bad.exit_code != 0 and "give no program" in bad.stderr
    issued = run_cli("ladder", "token", "far", *db)
    token = issued.stdout.strip()
    assert issued.exit_code == 0 and token.startswith("mnrb_"), issued.stderr
    assert "shown only now" in issued.stderr
    serve = f"127.0.0.1:{free_port}"
    bot = python_bot(serve, token)  # it retries until the runner listens
    try:
        ran = run_cli(
            "ladder", "run", "zoo", "--serve", serve, "--games", "6", "--workers", "0",
            "--no-tracking", "--quiet", "--home", str(tmp_path / "home"), *db,
        )  # fmt: skip
    finally:
        bot_err = stop(bot)
    assert ran.exit_code == 0, ran.stderr + bot_err
    assert f"lobby at {serve}" in ran.stderr and "6 matches counted" in ran.stderr, ran.stderr
    status = run_cli("ladder", "status", "far", "--json", *db)
    assert '"games": 6' in status.stdout, status.stdout
    assert "remote (connects to the lobby with a token)" in status.stdout
    listed = run_cli("ladder", "token", "far", "--list", *db)
    assert "token 1: created" in listed.stdout and "live" in listed.stdout
    revoked = run_cli("ladder", "revoke", "far", "--all", *db)
    assert revoked.exit_code == 0 and "revoked token(s) 1 of bot far" in revoked.stdout
    neither = run_cli("ladder", "revoke", "far", *db)
    assert neither.exit_code != 0 and "give --token-id ID or --all" in neither.stderr
