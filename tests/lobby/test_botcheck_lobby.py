"""``arena bot check --lobby``: a good lobby bot passes all four checks; a program that
never opens the lobby stream fails the first and skips the rest."""

from __future__ import annotations

import json

import pytest

from tests.ladder.helpers import arena

pytestmark = [pytest.mark.server]


def test_lobby_check_passes_the_sdk_bot() -> None:
    proc = arena(
        "bot", "check", "--lobby", "--json", "--game", "dziobaki", "python -m bots.random_client"
    )
    report = json.loads(proc.stdout)
    checks = {c["check"]: c["status"] for c in report["games"][0]["checks"]}
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert checks == {
        "lobby_connect": "pass",
        "lobby_games": "pass",
        "lobby_reconnect": "pass",
        "lobby_revoke": "pass",
    }


def test_lobby_check_fails_a_bot_that_never_connects() -> None:
    proc = arena(
        "bot",
        "check",
        "--lobby",
        "--json",
        "--game",
        "dziobaki",
        "--join-timeout",
        "1",
        'python -c "import time; time.sleep(30)"',
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    checks = {c["check"]: c for c in json.loads(proc.stdout)["games"][0]["checks"]}
    assert checks["lobby_connect"]["status"] == "fail"
    assert "not online within 1 s" in checks["lobby_connect"]["detail"]
    assert {checks[c]["status"] for c in ("lobby_games", "lobby_reconnect", "lobby_revoke")} == {
        "skip"
    }
