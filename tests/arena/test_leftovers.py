"""No leftovers: a command bot dies with the process that started it; a local Ray's
temp dir goes when its driver goes, even a SIGKILLed one; a Ray that cannot start is one
clear error line."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WAIT_S = 60.0
"""The bound of a wait for a process to go: reached only if it never goes."""


def _gone(pid: int) -> bool:
    """Dead or a zombie (reaped by whoever inherited it)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_a_command_bot_dies_with_the_worker_that_started_it() -> None:
    """A worker started a command bot (its own session, as in a match) and is SIGKILLed
    before it could clean up: the bot goes too (it used to live on for minutes)."""
    worker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time\n"
            "from arena.match.cmdbots import BotProcess\n"
            "bot = BotProcess(0, 'cmd:sleepy', "
            "[sys.executable, '-c', 'import time; time.sleep(600)'], dict(os.environ))\n"
            "print(bot.proc.pid, flush=True)\n"
            "time.sleep(600)\n",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        bot = int(worker.stdout.readline())
        assert not _gone(bot)
        assert os.getsid(bot) == bot  # its own session: only the death signal reaches it
        worker.send_signal(signal.SIGKILL)
        worker.wait(WAIT_S)
        deadline = time.monotonic() + WAIT_S
        while not _gone(bot) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(bot), f"the bot {bot} outlived its SIGKILLed worker"
    finally:
        worker.kill()
        worker.wait(WAIT_S)


def _arena(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=REPO,
        env={**os.environ, **env, "RAY_ADDRESS": ""},
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )


def _users(base: Path) -> list[int]:
    """Live processes that name ``base`` on their command line (a Ray left behind)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(base).encode() in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return [p for p in pids if not _gone(p)]


@pytest.mark.server
def test_a_local_ray_that_cannot_start_is_one_clear_line(tmp_path: Path) -> None:
    """Ray fails to start (here: its socket paths too long for AF_UNIX, as real as a
    start-up timeout on a busy machine): one ``error:`` line saying what to try, no
    traceback, and the private temp dir is gone."""
    base = tmp_path / ("deep" * 30)
    args = ["tournament", "--game", "dziobaki", "--players", "2", "--bots", "random,greedy"]
    proc = _arena(
        *args, "--workers", "1", "--no-tracking", "--out", str(tmp_path / "out"),
        env={"MENAGERIE_RAY_TMP": str(base)},
    )  # fmt: skip
    _, err = proc.communicate(timeout=WAIT_S * 3)
    assert proc.returncode == 2, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "could not start a local Ray" in errors[0], err
    assert "--workers 0" in errors[0] and "Traceback" not in err
    assert not list(base.glob("mnr-ray-*")), "the temp dir of the failed start is left"


@pytest.mark.server
def test_a_sigkilled_drivers_ray_temp_dir_is_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A driver SIGKILLed while its local Ray plays leaves its temp dir (nothing runs in
    a killed process); the next start sweeps it, and leaves a live driver's dir alone."""
    import tempfile

    from arena.tournament.ray_temp import OWNER_FILE, private_temp_dir, sweep_dead

    base = Path(tempfile.mkdtemp(prefix="mnrt", dir="/tmp"))  # short: Ray's socket paths
    monkeypatch.setenv("MENAGERIE_RAY_TMP", str(base))
    try:
        args = ["tournament", "--game", "dziobaki", "--players", "2"]
        driver = _arena(
            *args, "--bots", "ismcts:iterations=300,greedy", "--rounds", "50",
            "--workers", "1", "--no-tracking", "--out", str(tmp_path / "out"),
            env={"MENAGERIE_RAY_TMP": str(base)},
        )  # fmt: skip
        assert driver.stderr is not None
        deadline = time.monotonic() + WAIT_S * 3
        while time.monotonic() < deadline:
            line = driver.stderr.readline()
            assert line, "the driver ended before it played"
            if "playing" in line:
                break
        (left,) = base.glob("mnr-ray-*")
        assert (left / OWNER_FILE).exists()
        driver.send_signal(signal.SIGKILL)
        driver.wait(WAIT_S)
        assert left.exists()  # nothing ran in the killed driver
        deadline = time.monotonic() + WAIT_S
        while _users(left) and time.monotonic() < deadline:  # Ray follows its driver
            time.sleep(0.2)
        with private_temp_dir() as mine:  # another driver's start sweeps the dead one's
            assert not left.exists(), "a SIGKILLed driver's Ray temp dir was not swept"
            assert sweep_dead(mine.parent) == [] and mine.exists()  # a live one stays
        assert not mine.exists()
    finally:
        for pid in _users(base):  # a Ray that did not follow its driver: ours, ended
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(base, ignore_errors=True)
