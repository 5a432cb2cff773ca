"""``arena ladder`` run as a user runs it: the command line in a subprocess, a real
SQLite database, real runner processes stopped by real signals.

What is proved: the commands do what they say (create, submit, list, status, standings,
history with ids that ``arena replay`` opens, retire, run); every mistake is one clear line
and exit status 2; a second runner is refused while the first holds the ladder; Ctrl-C
stops a runner cleanly (exit 0, lease released, nothing left running); a runner killed with
SIGKILL and restarted counts every match exactly once and loses none.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.ladder.store import LadderStore
from arena.sandbox.limits import SandboxLimits
from tests.ladder.helpers import FIRST, REPO, arena, audit, cli_env

SLOW = "py:tests.arena.helpers:SlowRandom:ms=4"
"""A random bot that takes a few ms per move: a runner always has a game in flight."""
BOUND_S = 120.0
"""How long a test waits for a runner to reach a point (generous: the machine is busy)."""


@pytest.fixture
def ladder_dir(tmp_path: Path) -> Iterator[Path]:
    """A folder with a ladder ``zoo`` of dziobaki: random, greedy and two slow randoms."""
    db = tmp_path / "ladder.db"
    with LadderStore(str(db)) as store:
        store.create_ladder("zoo", "dziobaki", 2)
        for name, spec in (("rnd", "random"), ("grd", "greedy"), ("s1", SLOW), ("s2", SLOW)):
            store.add_version("zoo", name, spec=spec, status="active")
    yield tmp_path


def flags(folder: Path) -> list[str]:
    return ["--db", str(folder / "ladder.db")]


def home(folder: Path) -> list[str]:
    return ["--home", str(folder / "home")]


def start_runner(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    cmd = [
        sys.executable, "-m", "arena.cli", "ladder", "run", "zoo", *flags(folder), *home(folder),
        "--no-tracking", "--quiet", *args,
    ]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=REPO, env=cli_env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for(what: str, check: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        if check():
            return
        if proc.poll() is not None:
            pytest.fail(f"the runner exited before {what}: {proc.communicate()[1]}")
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"no {what} within {BOUND_S:g} s")


def done(folder: Path) -> int:
    with LadderStore(str(folder / "ladder.db")) as store:
        return store.match_counts("zoo")["done"]


def lease_holder(folder: Path) -> str | None:
    with LadderStore(str(folder / "ladder.db")) as store:
        lease = store.lease("zoo")
        return None if lease is None else lease.holder


# ---------------------------------------------------------------------------
# The commands
# ---------------------------------------------------------------------------


def test_a_ladder_from_create_to_replay(tmp_path: Path) -> None:
    db = flags(tmp_path)
    out = arena("ladder", "create", "dziobaki", "--players", "2", "--move-ms", "5000", *db)
    assert out.returncode == 0 and "created ladder dziobaki-2p" in out.stdout, out.stderr
    for name, spec in (("rnd", "random"), ("grd", "greedy"), ("first", FIRST)):
        out = arena("ladder", "submit", "dziobaki-2p", "--name", name, spec, "--owner", "me", *db)
        assert out.returncode == 0 and f"{name}@1 passed validation and is active" in out.stdout
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "main.py").write_text("from bots.random_client import main\nmain()\n")
    out = arena(
        "ladder", "submit", "dziobaki-2p", "--name", "files", str(bot), *db, *home(tmp_path)
    )
    assert out.returncode == 0, out.stderr
    assert "entry 'python main.py'" in out.stdout and "files@1 passed validation" in out.stdout

    ladders = json.loads(arena("ladder", "list", "--json", *db).stdout)
    assert [(x["ladder"], x["game"], x["players"], x["move_ms"]) for x in ladders] == [
        ("dziobaki-2p", "dziobaki", 2, 5000)
    ]
    assert ladders[0]["versions"] == {"active": 4}

    out = arena("ladder", "run", "dziobaki-2p", "--workers", "0", "--games", "8",
                "--no-tracking", *db, *home(tmp_path))  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "8 matches counted" in out.stderr and "grd@1" in out.stdout

    standings = json.loads(arena("ladder", "standings", "dziobaki-2p", "--json", *db).stdout)
    assert standings["matches"]["done"] == 8
    rows = standings["rows"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4] and sum(r["games"] for r in rows) == 16
    assert all(r["provisional"] for r in rows)  # 4 games each: far from placed
    page = tmp_path / "standings.html"
    batch = arena(
        "ladder", "standings", "dziobaki-2p", "--batch", "--json", "--html", str(page), *db
    )
    assert all("bt_rating" in r and r["bt_low"] <= r["bt_rating"] <= r["bt_high"]
               for r in json.loads(batch.stdout)["rows"])  # fmt: skip
    assert "batch Plackett-Luce" in page.read_text()
    table = arena("ladder", "standings", "dziobaki-2p", "--batch", *db).stdout
    assert "BT rating" in table and "ordinal" in table

    status = json.loads(arena("ladder", "status", "grd", "--json", *db).stdout)
    assert [(s["label"], s["status"], s["owner"], s["games"]) for s in status] == [
        ("grd@1", "active", "me", 4)
    ]
    history = json.loads(arena("ladder", "history", "grd@1", "--json", *db).stdout)
    assert history["games"] == 4 and len(history["history"]) == 4
    last = history["history"][-1]
    replay = arena("replay", last["records"], last["game_id"], "--steps")
    assert replay.returncode == 0 and "score" in replay.stdout, replay.stderr
    text = arena("ladder", "history", "grd", *db).stdout
    assert f"arena replay {last['records']} {last['game_id']}" in text

    out = arena("ladder", "retire", "grd", *db)
    assert out.returncode == 0 and "retired grd@1" in out.stdout
    status = json.loads(arena("ladder", "status", "grd@1", "--json", *db).stdout)
    assert (status[0]["status"], status[0]["reason"]) == ("retired", "retired by its owner")
    labels = [r["label"] for r in json.loads(arena("ladder", "standings", "dziobaki-2p",
                                                   "--json", *db).stdout)["rows"]]  # fmt: skip
    assert "grd@1" not in labels and len(labels) == 3


def test_a_ladder_keeps_its_own_sandbox_limits_and_lists_them(tmp_path: Path) -> None:
    db = flags(tmp_path)
    tight = '{"processes": 24, "address_space_mb": 1024}'
    out = arena("ladder", "create", "dziobaki", "--players", "2", "--sandbox", tight, *db)
    assert out.returncode == 0, out.stderr
    assert 'sandbox {"address_space_mb": 1024, "processes": 24}' in out.stdout
    assert arena("ladder", "create", "dziobaki", "--players", "2", "--name", "free",
                 *db).returncode == 0  # fmt: skip
    listed = {x["ladder"]: x["sandbox"] for x in json.loads(arena("ladder", "list", "--json",
                                                                  *db).stdout)}  # fmt: skip
    assert listed == {"dziobaki-2p": {"address_space_mb": 1024, "processes": 24}, "free": {}}
    table = arena("ladder", "list", *db).stdout
    assert "processes" in table and "defaults" in table  # (rich may wrap the cell)
    with LadderStore(str(tmp_path / "ladder.db")) as store:
        limits = store.ladder("dziobaki-2p").sandbox
        assert (limits.processes, limits.address_space_mb) == (24, 1024)
        assert limits.open_files == 256  # the rest: the defaults
        assert store.ladder("free").sandbox == SandboxLimits()


def test_a_submission_that_fails_validation_is_broken_with_its_reason(tmp_path: Path) -> None:
    db = flags(tmp_path)
    assert arena("ladder", "create", "dziobaki", "--players", "2", *db).returncode == 0
    out = arena("ladder", "submit", "dziobaki-2p", "--name", "quits",
                'cmd:python -c "import sys; sys.exit(3)"', *db)  # fmt: skip
    assert out.returncode == 1 and "quits@1 is broken: validation failed" in out.stdout
    status = arena("ladder", "status", "quits", *db).stdout
    assert "broken: validation failed: joins" in status and "exited with code 3" in status
    standings = arena("ladder", "standings", "dziobaki-2p", *db).stdout
    assert "broken: validation failed" in standings


def test_mistakes_are_one_clear_line_and_exit_status_2(tmp_path: Path) -> None:
    db = flags(tmp_path)
    assert (
        arena("ladder", "create", "dziobaki", "--players", "2", "--name", "zoo", *db).returncode
        == 0
    )
    assert arena("ladder", "submit", "zoo", "--name", "r", "random", "--no-validate",
                 *db).returncode == 0  # fmt: skip
    big = tmp_path / "big"
    big.mkdir()
    (big / "bot.py").write_text("x" * 5000)
    unsafe = tmp_path / "unsafe"
    unsafe.mkdir()
    (unsafe / "bot.py").write_text("print(1)\n")
    (unsafe / "secret").symlink_to("/etc/passwd")
    two = tmp_path / "two"
    two.mkdir()
    (two / "a.py").write_text("")
    (two / "b.py").write_text("")
    cases: list[tuple[list[str], str, dict[str, str] | None]] = [
        (["ladder", "standings", "nope", *db], "no ladder named 'nope' (ladders: zoo)", None),
        (["ladder", "status", "ghost", *db], "no bot 'ghost' on any ladder", None),
        (["ladder", "history", "r@7", *db], "has no version 7", None),
        (["ladder", "submit", "zoo", "--name", "r", "--version", "1", "greedy", *db],
         "r@1 already exists on ladder 'zoo'", None),
        (["ladder", "submit", "zoo", "--name", "big", str(big), *db, *home(tmp_path)],
         "over the size limit of 1000 bytes", {"MENAGERIE_LADDER_MAX_BYTES": "1000"}),
        (["ladder", "submit", "zoo", "--name", "unsafe", str(unsafe), *db, *home(tmp_path)],
         "a symbolic link that leads outside the submission", None),
        (["ladder", "submit", "zoo", "--name", "two", str(two), *db, *home(tmp_path)],
         "no entry command: give --cmd", None),
        (["ladder", "submit", "zoo", "--name", "m", str(tmp_path / "missing"), *db],
         "no such file or folder", None),
        (["ladder", "submit", "zoo", "--name", "bad name", "random", *db],
         "bot name 'bad name'", None),
        (["ladder", "submit", "zoo", "--name", "x", "alphazero:x=1", *db], "no such file", None),
        (["ladder", "create", "chess", "--players", "2", *db], "unknown game", None),
        (["ladder", "create", "dziobaki", "--players", "2", "--name", "zoo", *db],
         "a ladder named 'zoo' already exists", None),
        (["ladder", "list", "--db", "postgresql+psycopg://ladder@127.0.0.1:1/none"],
         "is locked or unreachable", None),
        (["ladder", "run", "zoo", "--games", "2", "--forever", *db], "not both", None),
        (["ladder", "create", "dziobaki", "--players", "2", "--sandbox", '{"procs": 9}', *db],
         "--sandbox: unknown sandbox setting(s) procs; known: address_space_mb", None),
        (["ladder", "create", "dziobaki", "--players", "2", "--sandbox", '{"processes": 0}',
          *db], "sandbox limit processes must be an integer in 4..4096, not 0", None),
        (["ladder", "create", "dziobaki", "--players", "2", "--sandbox", "processes=8", *db],
         "--sandbox is not valid JSON", None),
    ]  # fmt: skip
    for args, message, env in cases:
        proc = arena(*args, env=env)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr, args


# ---------------------------------------------------------------------------
# Runners: one at a time, Ctrl-C, SIGKILL
# ---------------------------------------------------------------------------


def test_a_second_runner_is_refused_while_the_first_drives_the_ladder(ladder_dir: Path) -> None:
    first = start_runner(ladder_dir, "--workers", "0", "--forever")
    try:
        wait_for("the lease", lambda: lease_holder(ladder_dir) is not None, first)
        second = arena("ladder", "run", "zoo", "--workers", "0", "--games", "2", "--no-tracking",
                       *flags(ladder_dir), *home(ladder_dir))  # fmt: skip
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert f"ladder 'zoo' is driven by {lease_holder(ladder_dir)}" in second.stderr
        assert first.poll() is None  # the first goes on
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=BOUND_S)
    assert first.returncode == 0


def test_ctrl_c_stops_a_runner_cleanly(ladder_dir: Path) -> None:
    runner = start_runner(ladder_dir, "--workers", "0", "--forever")
    wait_for("3 matches", lambda: done(ladder_dir) >= 3, runner)
    runner.send_signal(signal.SIGINT)
    _, err = runner.communicate(timeout=BOUND_S)
    assert runner.returncode == 0, err
    assert "stopping: the matches in flight finish" in err and "stopped by SIGINT" in err
    assert lease_holder(ladder_dir) is None
    with LadderStore(str(ladder_dir / "ladder.db")) as store:
        audit(store, "zoo", ladder_dir / "home")  # nothing running, every result once

    # twice: whether the game in flight was abandoned (back to the queue) or had finished
    # (the second Ctrl-C came while the runner was releasing), the stop is clean
    # (test_runner.py interrupts a game in flight deterministically)
    runner = start_runner(ladder_dir, "--workers", "0", "--forever")
    before = done(ladder_dir)
    wait_for("more matches", lambda: done(ladder_dir) >= before + 2, runner)
    runner.send_signal(signal.SIGINT)
    runner.send_signal(signal.SIGINT)
    _, err = runner.communicate(timeout=BOUND_S)
    assert runner.returncode == 0, err
    assert "Traceback" not in err
    assert lease_holder(ladder_dir) is None
    with LadderStore(str(ladder_dir / "ladder.db")) as store:
        audit(store, "zoo", ladder_dir / "home")


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_runner_killed_and_restarted_counts_every_match_once(
    ladder_dir: Path, workers: str, request: pytest.FixtureRequest
) -> None:
    env = None
    if workers != "0":
        env = {"RAY_ADDRESS": request.getfixturevalue("ray_cluster")}
    runner = start_runner(ladder_dir, "--workers", workers, "--forever", env=env)
    wait_for("5 matches", lambda: done(ladder_dir) >= 5, runner)
    runner.send_signal(signal.SIGKILL)
    runner.wait(timeout=BOUND_S)
    assert runner.returncode == -signal.SIGKILL
    assert lease_holder(ladder_dir) is not None  # a dead runner's lease, still live
    with LadderStore(str(ladder_dir / "ladder.db")) as store:
        in_flight = {m.id for m in store.matches("zoo", statuses=["running"])}
        before = store.match_counts("zoo")["done"]

    restarted = start_runner(ladder_dir, "--workers", workers, "--games", "6", env=env)
    _, err = restarted.communicate(timeout=BOUND_S * 2)
    assert restarted.returncode == 0, err
    assert "is gone: taking over" in err
    if in_flight:
        assert "recovered a dead runner's matches" in err
    with LadderStore(str(ladder_dir / "ladder.db")) as store:
        matches = {m.id: m for m in store.matches("zoo")}
        # what the dead runner had in flight was counted from its record or played again
        assert all(matches[i].status in ("done", "queued") for i in in_flight)
        assert store.match_counts("zoo")["done"] >= before + 6
        audit(store, "zoo", ladder_dir / "home")
    assert lease_holder(ladder_dir) is None


def test_bench_ladder_reports_its_figures() -> None:
    quick = ("--repeats", "1", "--max-repeats", "1")  # repeats: tests/bench/test_benches.py
    proc = arena("bench", "ladder", "--no-throughput", *quick, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert set(report["matchmaking"]["sizes"]) == {"10", "100", "1000"}
    assert report["commit_sqlite"]["backend"] == "sqlite"
    assert [p["players"] for p in report["placement"]] == [2, 3, 4]
    text = arena("bench", "ladder", "--no-throughput", *quick).stdout
    assert "per decision" in text and "commit per result (sqlite" in text
    assert os.path.exists(REPO / "arena" / "bench" / "ladder.py")
