"""Small tournaments are played in this process, without Ray (no ``server`` marker: no
Ray, no MLflow here), and say so; ``--resume`` continues what was run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.tournament.journal import read_journal

BASE = ["tournament", "--game", "dziobaki", "--players", "2", "--bots", "random,greedy"]


def test_a_small_run_is_played_in_this_process(tmp_path: Path, run_cli: Any) -> None:
    """A fresh process (this test's may hold the session's Ray, which a small run would
    use) plays a 2-game tournament without Ray; ``--workers 0`` asks for it."""
    out = tmp_path / "auto"
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *BASE, "--no-tracking", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "playing 2 games in this process (at most 8 games" in done.stderr
    assert "games 2/2 (100%)" in done.stderr  # piped: a plain progress line
    records = list(read_journal(out / "journal.jsonl"))
    assert len(records) == 2
    assert (out / "leaderboard.md").exists()

    out0 = tmp_path / "zero"
    proc = run_cli(*BASE, "--rounds", "5", "--workers", "0", "--no-tracking", "--out", out0)
    assert proc.exit_code == 0, proc.stderr
    assert "playing 10 games in this process (--workers 0)" in proc.stderr
    assert len(list(read_journal(out0 / "journal.jsonl"))) == 10
    # the same games, wherever they are played
    by_id = {r["game_id"]: r["digest"] for r in read_journal(out0 / "journal.jsonl")}
    assert all(by_id[r["game_id"]] == r["digest"] for r in records)


def test_resume_without_rounds_continues_the_run_it_resumes(tmp_path: Path, run_cli: Any) -> None:
    """The file says 1 round, the run was made with --rounds 3: ``--resume`` announces
    and rates the same 6 games (it used to announce 2 while rating the journal's 6)."""
    yaml = tmp_path / "t.yaml"
    yaml.write_text(
        "game: dziobaki\nplayers: 2\nroster: [random, greedy]\ntracking: false\nworkers: 0\n"
    )
    proc = run_cli("tournament", yaml, "--rounds", "3", cwd=tmp_path)
    assert proc.exit_code == 0, proc.stderr
    proc = run_cli("tournament", yaml, "--resume", cwd=tmp_path)
    assert proc.exit_code == 0, proc.stderr
    assert "6 games; resuming: 6 already" in " ".join(proc.stderr.split()), proc.stderr
    assert "6 games of dziobaki (6 scheduled)" in proc.stdout, proc.stdout

    proc = run_cli(
        "tournament", yaml, cwd=tmp_path
    )  # the file's 1 round, explicitly: the rest is noted
    assert proc.exit_code == 0, proc.stderr
    assert "2 games; resuming: 2 already" in " ".join(proc.stderr.split())
    assert "also holds 4 game(s) outside this schedule" in " ".join(proc.stderr.split())
    assert os.listdir(tmp_path / "tournaments")


def test_piped_progress_is_a_line_every_few_seconds() -> None:
    """Without a terminal the bar is not drawn: plain lines say how far the run is (at
    most every ``line_every`` seconds, and at the end)."""
    import io

    from rich.console import Console

    from arena.tournament.ratings import Tally
    from arena.tournament.reporter import Reporter

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False, width=200)
    kw: dict[str, Any] = {"total": 10, "already": 2, "remaining": 8, "board_every": 100}
    reporter = Reporter(console, show_bar=False, live_tables=False, line_every=0.0, **kw)
    tally = Tally(["a", "b"])
    with reporter:
        for played in range(1, 9):
            reporter.on_games(1, played, 0, tally)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 8 and lines[0].startswith("games 3/10 (30%)")
    assert lines[-1].startswith("games 10/10 (100%)")

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False, width=200)
    reporter = Reporter(console, show_bar=False, live_tables=False, line_every=3600.0, **kw)
    with reporter:
        for played in range(1, 9):
            reporter.on_games(1, played, 0, tally)
    assert [line.split(",")[0] for line in buf.getvalue().splitlines()] == ["games 10/10 (100%)"]
