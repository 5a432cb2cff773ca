"""No leftovers: a command bot dies with the process that started it; a local Ray's
temp dir goes when its driver goes, even a SIGKILLed one; a Ray that cannot start is one
clear error line."""

from __future__ import annotations

import os
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
