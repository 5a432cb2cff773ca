"""``arena tournament --gauntlet NEW``: NEW plays every other roster bot, nothing else.

Run as a user runs it (the command line, a subprocess) on the session's Ray.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from arena.match.records import verify_record
from arena.tournament.journal import read_journal
from tests.arena.helpers import pick_game

GAME = pick_game()
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.server
@pytest.mark.xdist_group("ray")
def test_gauntlet_from_the_command_line(tmp_path: Path, ray_cluster: str) -> None:
    out = tmp_path / "out"
    cmd = [
        sys.executable, "-m", "arena.cli", "tournament", "--game", GAME,
        "--bots", "random,py:tests.arena.helpers:FirstBot,random", "--gauntlet", "greedy",
        "--rounds", "2", "--seed", "5", "--no-tracking", "--no-progress", "--quiet",
        "--out", str(out),
    ]  # fmt: skip
    env = {**os.environ, "RAY_ADDRESS": ray_cluster, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = list(read_journal(out / "journal.jsonl"))
    # greedy (added to the roster by --gauntlet) against each of the 3 others, in both
    # seats, twice: 3 pairings x 2 rotations x 2 rounds
    assert len(records) == 12
    names = [tuple(p["name"] for p in r["players"]) for r in records]
    assert all("greedy" in pair for pair in names)
    opponents = Counter(n for pair in names for n in pair if n != "greedy")
    assert len(opponents) == 3 and set(opponents.values()) == {4}  # never each other
    seats = Counter(pair.index("greedy") for pair in names)
    assert seats == {0: 6, 1: 6}
    assert all(verify_record(r).ok for r in records)
    assert "gauntlet" in (out / "config.yaml").read_text()


def test_gauntlet_of_a_bot_not_in_a_config_roster_is_one_clear_line(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(f"game: {GAME}\nroster: [random, greedy]\ngauntlet: nobody\n")
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", str(config), "--no-tracking"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "'nobody' is not a roster bot" in proc.stderr
    assert "Traceback" not in proc.stderr
