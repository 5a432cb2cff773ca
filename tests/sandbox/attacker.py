"""A hostile command bot for the sandbox tests: it attacks the host, then plays.

``attacker.py --mode MODE [--target T] [--port P]`` (plus the arena's ``--address`` and
``--credential``). Each attack is bounded (a few seconds, a few thousand tries at most)
so that a sandbox that failed to contain it still lets the test finish and fail. What
the attack achieved is one line on stderr, ``RESULT {json}``, which the record keeps
(its ``stderr`` event). Modes:

- ``forkbomb``: forks children that sleep, until fork fails (at most 2000), then exits;
- ``memory``: allocates 16 MB blocks until MemoryError (at most 4 GB), and crashes with it;
- ``disk``: writes 1 MB chunks into files of its workdir, then ``/tmp``, until writing
  fails (at most 512 MB), then plays;
- ``network``: connects to 127.0.0.1:PORT (a listener of the test) and to the game
  server's TCP port, then plays (through the Unix socket it was given);
- ``secrets``: looks for the arena's secret (``--target`` is a 0600 file holding it,
  ``MENAGERIE_TEST_SECRET`` is in the arena's environment) in its environment,
  ``/proc/*/environ`` and ``/proc/*/cmdline``, and that file, then plays;
- ``write``: writes into ``--target`` (a world-writable folder of the host), its own
  script's folder, ``/var/tmp`` and its home, then plays;
- ``spin``: spins forever at its first turn;
- ``sigterm``: ignores SIGTERM, then spins forever at its first turn.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from bots import sdk

SECRET = "menagerie-test-secret-7f3a"


def report(**what: Any) -> None:
    print("RESULT " + json.dumps(what), file=sys.stderr, flush=True)


def forkbomb() -> None:
    forks, error = 0, ""
    for _ in range(2000):
        try:
            pid = os.fork()
        except OSError as exc:
            error = exc.strerror or str(exc)
            break
        if pid == 0:
            time.sleep(120)
            os._exit(0)
        forks += 1
    report(forks=forks, error=error)
    raise SystemExit(0)


def memory() -> None:
    blocks = []
    try:
        for _ in range(256):
            blocks.append(bytearray(16 << 20))
    except MemoryError:
        report(allocated_mb=16 * len(blocks))
        raise
    report(allocated_mb=16 * len(blocks))


def disk() -> None:
    written: dict[str, int] = {}
    errors: dict[str, str] = {}
    chunk = b"x" * (1 << 20)
    total = 0
    for where in (Path.cwd(), Path("/tmp")):
        for n in range(64):
            path = where / f"fill-{n}"
            try:
                with open(path, "wb") as fh:
                    for _ in range(16):
                        fh.write(chunk)
                        fh.flush()
                        total += 1
                        written[str(where)] = written.get(str(where), 0) + 1
            except OSError as exc:
                errors[str(where)] = exc.strerror or str(exc)
                if exc.strerror != "File too large":
                    break
            if total >= 512:
                break
    report(written_mb=written, total_mb=total, errors=errors, cwd=str(Path.cwd()))


def try_connect(port: int) -> str:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return "connected"
    except OSError as exc:
        return exc.strerror or str(exc)


def network(port: int, server_port: int) -> None:
    report(listener=try_connect(port), server_tcp=try_connect(server_port))


def secrets(target: str) -> None:
    found: list[str] = []
    if any(SECRET in v for v in os.environ.values()):
        found.append("environ")
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            for name in ("environ", "cmdline"):
                try:
                    if SECRET.encode() in Path(f"/proc/{entry}/{name}").read_bytes():
                        found.append(f"/proc/{entry}/{name}")
                except OSError:
                    pass
    try:
        if SECRET in Path(target).read_text():
            found.append(target)
        file_error = ""
    except OSError as exc:
        file_error = exc.strerror or str(exc)
    report(
        found=found,
        file_error=file_error,
        env=sorted(os.environ),
        pids=sum(e.isdigit() for e in os.listdir("/proc")),
    )


def write(target: str) -> None:
    places = {
        "target": Path(target) / "owned",
        "script_dir": Path(__file__).resolve().parent / "owned",
        "var_tmp": Path("/var/tmp/owned"),
        "home": Path(os.environ.get("HOME", ".")) / "owned",
    }
    out = {}
    for key, path in places.items():
        try:
            path.write_text("owned")
            out[key] = "written"
        except OSError as exc:
            out[key] = exc.strerror or str(exc)
    report(**out)


class Spinner:
    name = "spinner"

    def choose(self, observation: dict[str, Any], legal: list[Any], clock: sdk.Clock) -> object:
        while True:
            pass


class Player:
    name = "attacker"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def choose(self, observation: dict[str, Any], legal: list[Any], clock: sdk.Clock) -> object:
        return self.rng.randrange(len(legal))


def main() -> None:
    parser = argparse.ArgumentParser()
    sdk.add_connection_args(parser)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--target", default="")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--server-port", type=int, default=0)
    args = parser.parse_args()
    bot: Any = Player()
    if args.mode == "forkbomb":
        forkbomb()
    elif args.mode == "memory":
        memory()
    elif args.mode == "disk":
        disk()
    elif args.mode == "network":
        network(args.port, args.server_port)
    elif args.mode == "secrets":
        secrets(args.target)
    elif args.mode == "write":
        write(args.target)
    elif args.mode == "sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        bot = Spinner()
    elif args.mode == "spin":
        bot = Spinner()
    else:
        raise SystemExit(f"unknown mode {args.mode}")
    sdk.run(bot, args.address, args.credential)


if __name__ == "__main__":
    main()
