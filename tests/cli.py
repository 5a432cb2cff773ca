"""The one way tests run the ``arena`` command line: in-process, with Typer's CliRunner.

``run_cli("play", "dziobaki", "--bots", "random")`` runs ``arena play dziobaki --bots
random`` as ``arena.cli.app.main`` would (every command registered, a bare ``--show``
normalised) and returns ``CliResult(exit_code, stdout, stderr)``. An exception that
escapes a command is a crash, as it would be in a real process: exit code 1 and the
traceback at the end of ``stderr`` (so ``"Traceback" not in result.stderr`` still
checks that a user error is one clear line).

Tests get it as the ``run_cli`` fixture (``tests/conftest.py``). Only a test that needs a
real process (a server it signals, a driver it kills) starts ``python -m arena.cli``.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def _app() -> tuple[Any, Any]:
    """The Typer app (every command registered) and the argv fixer of ``main``."""
    # Imported lazily (the command modules import their heavy parts when they run).
    from arena.cli.app import app
    from arena.cli.play import normalise_show

    return app, normalise_show


def run_cli(
    *args: str | os.PathLike[str],
    input: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
) -> CliResult:
    """``arena ARGS`` in this process; ``input`` is its stdin, ``cwd`` its working dir."""
    from typer.testing import CliRunner

    app, normalise = _app()
    argv = normalise([str(a) for a in args])
    runner = CliRunner()
    with contextlib.chdir(Path(cwd)) if cwd is not None else contextlib.nullcontext():
        result = runner.invoke(app, argv, input=input, env=env, catch_exceptions=True)
    stderr = result.stderr
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        stderr += "".join(traceback.format_exception(exc))
    return CliResult(result.exit_code, result.stdout, stderr)
