"""Start a submitted archive's bot: ``python -m arena.ladder.launch``.

    python -m arena.ladder.launch --archives DIR --cache DIR --sha SHA256 -- ENTRY...

unpacks the archive ``DIR/<sha256>.tar.gz`` into ``CACHE/<sha256>/`` (verified, once, see
:func:`arena.ladder.submission.unpack`), changes into that folder and replaces itself with
the entry command (a leading ``python``/``python3`` is this interpreter, as for every
``cmd:`` bot). Whatever follows ``--`` is the entry command and the arguments the arena
appends (``--address``, ``--credential``), passed on unchanged. A problem with the archive
is one line on stderr and exit status 2, which the arena records with the match (and
validation reports to the author).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from arena.ladder.errors import SubmissionError
from arena.ladder.submission import unpack


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--" not in args:
        print("arena.ladder.launch: expected -- ENTRY COMMAND", file=sys.stderr)
        raise SystemExit(2)
    cut = args.index("--")
    parser = argparse.ArgumentParser(prog="python -m arena.ladder.launch")
    parser.add_argument("--archives", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--sha", required=True)
    opts = parser.parse_args(args[:cut])
    command = args[cut + 1 :]
    if not command:
        print("arena.ladder.launch: the entry command is empty", file=sys.stderr)
        raise SystemExit(2)
    try:
        folder = unpack(opts.sha, opts.cache, opts.archives)
    except SubmissionError as exc:
        print(f"arena.ladder.launch: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if command[0] in ("python", "python3"):
        command[0] = sys.executable
    os.chdir(folder)
    program = command[0]
    if "/" not in program and shutil.which(program) is None:
        print(f"arena.ladder.launch: {program!r}: command not found", file=sys.stderr)
        raise SystemExit(2)
    try:
        os.execvp(program, command)
    except OSError as exc:
        print(f"arena.ladder.launch: cannot start {program!r}: {exc.strerror}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
