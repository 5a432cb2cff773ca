"""Hostile command bots against the sandbox (issue 17, part 2): each attack is contained,
recorded with its seat (and failure kind where it fails), the match finishes and replays,
and the host is unchanged (no process of the bot's uid left, no file it wrote, its
workdir gone).

The attacker (``tests/sandbox/attacker.py``) is a real program started by
``arena.match.cmdbots`` as a tournament starts it; it reports what each attack achieved
on stderr (``RESULT {...}``), which the record keeps. Network use is loopback only.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match.cmdbots import open_bots
from arena.match.records import verify_record
from arena.match.runner import MatchConfig, MatchSpec
from arena.sandbox import SandboxLimits, probe, socket_path
from tests.procs import processes_of
from tests.sandbox.attacker import SECRET

pytestmark = pytest.mark.server  # bot programs against a game server

ATTACKER = f"cmd:{sys.executable} {Path(__file__).with_name('attacker.py')}"
SPEC = MatchSpec("zooloretto_mini", 2, seed=4, options={"start_player": 0})
LIMITS = SandboxLimits()
TIGHT = SandboxLimits(address_space_mb=512, processes=24, file_size_mb=8, disk_mb=24)
"""Limits an attack runs into (a gRPC bot needs more than these to play)."""


def test_the_machine_can_sandbox() -> None:
    """The rest of this file is about the sandbox itself: it must be there (root, Linux)."""
    assert probe().usable, probe().problem


def play(
    mode: str, extra: str = "", move_ms: float = 20_000, limits: SandboxLimits = LIMITS
) -> tuple[dict[str, Any], Any]:
    """A match of the attacker (seat 0) against a random bot; checks what every match
    must show, returns (record, the attacker's BotProcess)."""
    from arena.server.app import GameServer

    server = GameServer()
    server.start("127.0.0.1", 0, unix_path=socket_path())
    try:
        specs = [f"{ATTACKER} --mode {mode} --server-port {server.port} {extra}", "random"]
        config = MatchConfig(move_ms=move_ms)
        with open_bots(specs, SPEC, config, server=server, sandbox=limits) as session:
            record = session.play()
            (bot,) = session.processes
    finally:
        server.stop(grace_s=0.0)
    assert server.unix_path is not None and not os.path.exists(server.unix_path)
    assert verify_record(record).ok, "the match finished and replays"
    assert bot.exited.is_set(), "the bot's process is reaped"
    assert bot.launch is not None
    assert processes_of(bot.launch.uid) == [], "nothing of the bot is left running"
    assert not bot.launch.workdir.exists(), "its workdir is removed"
    return record, bot


def result_of(record: dict[str, Any]) -> dict[str, Any]:
    """The attacker's RESULT line, from the record's stderr event of seat 0."""
    (event,) = [e for e in record["events"] if e["kind"] == "stderr" and e["seat"] == 0]
    lines = [ln for ln in event["reason"].splitlines() if ln.startswith("RESULT ")]
    assert lines, event["reason"]
    return dict(json.loads(lines[-1][len("RESULT ") :]))


def kinds(record: dict[str, Any], seat: int = 0) -> list[str]:
    return [e["kind"] for e in record["events"] if e["seat"] == seat and e["kind"] != "stderr"]


def test_fork_bomb_stops_at_the_process_limit() -> None:
    record, _ = play("forkbomb", limits=TIGHT)
    result = result_of(record)
    assert 0 < result["forks"] < TIGHT.processes, result
    assert result["error"] == "Resource temporarily unavailable"
    assert kinds(record) == ["disconnect", "forfeit"], "it exited: its seat disconnected"
    assert kinds(record, 1) == []


def test_unbounded_allocation_fails_at_the_address_space_limit() -> None:
    record, _ = play("memory", limits=TIGHT)
    result = result_of(record)
    assert result["allocated_mb"] < TIGHT.address_space_mb, result
    assert kinds(record) == ["disconnect", "forfeit"]
    assert "MemoryError" in record["events"][0]["reason"]
    usage = record["usage"][0]
    assert usage["peak_kb"] is not None
    assert result["allocated_mb"] * 1024 * 0.8 < usage["peak_kb"] < TIGHT.address_space_mb * 1024
    assert usage["cpu_ms"] > 0


def test_filling_the_disk_stops_at_its_own_tmpfs() -> None:
    before = set(os.listdir("/tmp"))
    record, bot = play("disk", limits=TIGHT)
    result = result_of(record)
    assert result["total_mb"] <= TIGHT.disk_mb, result
    assert set(result["errors"].values()) <= {"File too large", "No space left on device"}
    assert result["cwd"] == str(bot.launch.workdir)
    assert kinds(record) == [], "then it played its game to the end"
    assert not [n for n in set(os.listdir("/tmp")) - before if n.startswith("fill-")]


@pytest.fixture
def listener() -> Iterator[tuple[int, list[int]]]:
    """A loopback TCP listener of the test; yields (port, accepted-connection count)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.settimeout(0.2)
    accepted: list[int] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            accepted.append(1)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield sock.getsockname()[1], accepted
    stop.set()
    thread.join(2)
    sock.close()


def test_no_network_but_the_game_server(listener: tuple[int, list[int]]) -> None:
    port, accepted = listener
    record, _ = play("network", f"--port {port}")
    result = result_of(record)
    assert result["listener"] == "Network is unreachable", result
    assert result["server_tcp"] == "Network is unreachable", result
    assert accepted == []
    assert kinds(record) == [], "it played its game through the Unix socket"


def test_arena_environment_and_files_are_out_of_reach(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MENAGERIE_TEST_SECRET", SECRET)
    folder = Path(tempfile.mkdtemp(dir=Path.cwd(), prefix=".sandbox-secret-"))
    try:
        secret = folder / "secret.txt"
        secret.write_text(SECRET)
        secret.chmod(0o600)  # as the arena keeps its database and tokens
        record, _ = play("secrets", f"--target {secret}")
    finally:
        for name in os.listdir(folder):
            (folder / name).unlink()
        folder.rmdir()
    result = result_of(record)
    assert result["found"] == [], result
    assert result["file_error"] == "Permission denied"
    assert set(result["env"]) <= {
        "PATH",
        "HOME",
        "TMPDIR",
        "LANG",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "PYTHONDONTWRITEBYTECODE",
        "MENAGERIE_ADDRESS",
        "MENAGERIE_CREDENTIAL",
        "MENAGERIE_SEAT",
        "MENAGERIE_GAME",
        "LC_CTYPE",
    }, result["env"]
    assert result["pids"] < 10, "it sees only its own processes"
    assert SECRET not in json.dumps(record)
    assert kinds(record) == []


def test_writes_outside_its_directory_fail() -> None:
    open_dir = Path(tempfile.mkdtemp(dir=Path.cwd(), prefix=".sandbox-open-"))
    open_dir.chmod(0o777)  # even a folder anyone may write to
    try:
        record, _ = play("write", f"--target {open_dir}")
        assert list(open_dir.iterdir()) == []
    finally:
        for p in open_dir.iterdir():
            p.unlink()
        open_dir.rmdir()
    result = result_of(record)
    assert result["target"] == "Read-only file system", result
    assert result["script_dir"] == "Read-only file system", result
    assert result["var_tmp"] == "written" and result["home"] == "written", "its own places"
    assert not Path("/var/tmp/owned").exists()
    assert not Path(__file__).with_name("owned").exists()
    assert kinds(record) == []


@pytest.mark.parametrize("mode", ["spin", "sigterm"])
def test_a_spinning_bot_times_out_and_is_killed(mode: str) -> None:
    record, bot = play(mode, move_ms=500)
    assert kinds(record) == ["timeout", "forfeit"]
    assert kinds(record, 1) == []
    assert bot.killed_because.startswith("timeout"), bot.killed_because
    assert record["usage"][0]["cpu_ms"] > 100, "it spun until killed"
