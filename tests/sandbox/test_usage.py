"""Accounting (issue 17, part 5): each bot's CPU time and peak memory per game are in the
record's ``usage`` and in ``arena stats``: a sandboxed command bot's from its processes,
an in-process bot's CPU time from its decisions."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.match.records import read_records

pytestmark = pytest.mark.server  # a command bot against the embedded game server

CMD = f"cmd:{sys.executable} -m bots.random_client --seed 2"


def test_usage_is_recorded_and_shown_by_stats(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    record_file = tmp_path / "game.json"
    played = run_cli(
        "play", "dziobaki", "--bots", f"{CMD},random", "--seed", "3", "--record", str(record_file)
    )
    assert played.exit_code == 0, played.stderr
    (record,) = read_records(record_file)
    command, in_process = record["usage"]
    assert command["seat"] == 0 and command["cpu_ms"] > 0, "a Python program costs CPU"
    assert command["peak_kb"] > 10_000, "an interpreter with gRPC is more than 10 MB"
    assert in_process["seat"] == 1 and in_process["cpu_ms"] >= 0
    assert in_process["peak_kb"] is None, "not measurable inside the arena's process"

    shown = run_cli("stats", str(record_file), "--json")
    assert shown.exit_code == 0, shown.stderr
    by_bot = {s["bot"]: s for s in json.loads(shown.stdout)}
    assert by_bot[CMD]["cpu_ms_per_game"] == round(command["cpu_ms"], 3)
    assert by_bot[CMD]["peak_kb"] == command["peak_kb"]
    assert by_bot["random"]["peak_kb"] is None

    table = run_cli("stats", str(record_file))
    assert table.exit_code == 0 and "cpu ms/game" in table.stdout and "peak MB" in table.stdout
    assert f"{command['peak_kb'] / 1024:.1f}" in table.stdout
