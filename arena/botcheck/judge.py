"""Judging the runs of one game (five checks), and the report on the terminal."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from arena.botcheck.model import (
    CLOSE_HOW,
    CheckConfig,
    CheckResult,
    Report,
    Run,
    last_line,
)
from arena.match.cmdbots import EXIT_GRACE_S


def _exit_words(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        return f"died of signal {-code}"
    return f"status {code}"


def _list(problems: list[str]) -> str:
    if len(problems) <= 2:
        return "\n".join(problems)
    return f"{problems[0]} (and {len(problems) - 1} more)"


def judge(runs: Sequence[Run], config: CheckConfig) -> list[CheckResult]:
    """The five checks of one game from its runs."""
    games = [r for r in runs if not r.close and r.joined]
    closes = [r for r in runs if r.close and r.joined]
    never = "not checked: the bot never joined"
    out: list[CheckResult] = []

    bad_joins = [f"{r.name}: {r.join_problem}" for r in runs if not r.joined]
    if bad_joins:
        out.append(CheckResult("join", "fail", _list(bad_joins)))
    else:
        slowest = max(r.join_s or 0.0 for r in runs)
        out.append(
            CheckResult(
                "join",
                "pass",
                f"joined with its credential in {slowest:.2f} s at most "
                f"({len(runs)} starts, limit {config.join_timeout_s:g} s)",
            )
        )

    turns = sum(r.turns for r in games)
    late = [(r, f) for r in games for f in r.failures if f.kind in ("timeout", "stall")]
    illegal = [(r, f) for r in games for f in r.failures if f.kind not in ("timeout", "stall")]
    limit = f"{config.move_ms:g} ms"
    if not games:
        out.append(CheckResult("deadline", "skip", never))
        out.append(CheckResult("legal", "skip", never))
    else:
        slowest_ms = max(r.slowest_ms for r in games)
        if late:
            r, f = late[0]
            out.append(
                CheckResult(
                    "deadline",
                    "fail",
                    f"{len(late)} late answer(s) (limit {limit}); first: {r.name}, "
                    f"step {f.step}: {f.reason}",
                )
            )
        else:
            out.append(
                CheckResult(
                    "deadline",
                    "pass",
                    f"answered all {turns} turns of {len(games)} game(s) within {limit} "
                    f"(slowest {slowest_ms:.0f} ms)",
                )
            )
        if illegal:
            r, f = illegal[0]
            out.append(
                CheckResult(
                    "legal",
                    "fail",
                    f"{len(illegal)} illegal move(s); first: {r.name}, step {f.step}: {f.reason}",
                )
            )
        else:
            out.append(CheckResult("legal", "pass", f"all {turns} moves were legal"))

    out.append(_judge_game_end([r for r in runs if not r.close], games, never))
    out.append(_judge_close(closes, config, never))
    return out


def _judge_game_end(planned: list[Run], games: list[Run], never: str) -> CheckResult:
    if not games:
        return CheckResult("game_end", "skip", never)
    problems: list[str] = []
    skipped: list[str] = []
    fine: list[Run] = []
    for r in games:
        if r.left is not None:
            problems.append(
                f"{r.name}: left before GameOver, at step {r.left.step}: {r.left.reason}"
            )
        elif r.stopped:
            skipped.append(f"{r.name}: not checked, {r.stopped}")
        elif not r.finished:
            problems.append(f"{r.name}: the match did not finish: {r.aborted}")
        elif r.exit_s is None:
            problems.append(
                f"{r.name}: still running {EXIT_GRACE_S:g} s after GameOver "
                "(the arena kills it then); exit after GameOver"
            )
        elif r.exit_code != 0:
            line = last_line(r.stderr)
            problems.append(
                f"{r.name}: exited with {_exit_words(r.exit_code)} at GameOver (expected 0)"
                + (f"; stderr: {line}" if line else "")
            )
        else:
            fine.append(r)
    problems.extend(
        f"{r.name}: the next game did not work: {r.join_problem}"
        for r in planned[1:]
        if not r.joined
    )
    if problems:
        return CheckResult("game_end", "fail", _list(problems))
    if skipped:
        return CheckResult("game_end", "skip", _list(skipped))
    slowest = max(r.exit_s or 0.0 for r in fine)
    return CheckResult(
        "game_end",
        "pass",
        f"received GameOver and exited by itself with status 0 within {slowest:.2f} s, "
        f"in {len(fine)} games in a row (fresh process each, different seats)",
    )


def _judge_close(closes: list[Run], config: CheckConfig, never: str) -> CheckResult:
    if not closes:
        return CheckResult("server_close", "skip", never)
    problems: list[str] = []
    skipped: list[str] = []
    fine: list[str] = []
    for r in closes:
        how = f"{r.close} ({CLOSE_HOW[r.close]})"
        if r.left is not None:
            skipped.append(f"{r.close}: not checked, the bot left before the close")
        elif not r.reached:
            skipped.append(f"{r.close}: not checked, the game did not reach the bot's move")
        elif r.exit_s is None:
            line = last_line(r.stderr)
            problems.append(
                f"{how}: still running {config.close_timeout_s:g} s after the server closed "
                "(it must exit by itself when its stream ends)"
                + (f"; stderr: {line}" if line else "")
            )
        else:
            fine.append(f"{r.exit_s:.2f} s after a {r.close} ({_exit_words(r.exit_code)})")
    if problems:
        return CheckResult("server_close", "fail", _list(problems))
    if skipped:
        return CheckResult("server_close", "skip", _list(skipped))
    return CheckResult("server_close", "pass", "exited by itself " + " and ".join(fine))


def print_report(report: Report, out: Any = None) -> None:
    """The summary table (rich), the bot's stderr of failed games, a verdict line."""
    from rich.console import Console
    from rich.table import Table as RichTable

    console = out or Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    table = RichTable(title=f"arena bot check: {report.command}", show_lines=False)
    table.add_column("game")
    table.add_column("check")
    table.add_column("result")
    table.add_column("details", overflow="fold")
    style = {"pass": "[green]PASS[/]", "fail": "[bold red]FAIL[/]", "skip": "[yellow]SKIP[/]"}
    for g in report.games:
        for i, c in enumerate(g.checks):
            label = f"{g.game} ({g.players}p)" if i == 0 else ""
            table.add_row(
                label, c.title, style[c.status], c.detail, end_section=i == len(g.checks) - 1
            )
    console.print(table)
    for g in report.games:
        if g.ok:
            continue
        for r in g.runs:
            if r.stderr.strip() and _run_failed(r):
                lines = r.stderr.strip().splitlines()[-8:]
                console.print(f"[bold]{g.game}, {r.name}: last lines of the bot's stderr[/]")
                for line in lines:
                    console.print(f"  {line}", markup=False)
                break
    failed = report.failed()
    total = sum(len(g.checks) for g in report.games)
    if not failed:
        console.print(
            f"[bold green]PASS[/]: all {total} checks passed in {len(report.games)} game(s)"
        )
    else:
        named = ", ".join(f"{game}: {c.title}" for game, c in failed)
        console.print(f"[bold red]FAIL[/]: {len(failed)} of {total} checks failed ({named})")


def _run_failed(run: Run) -> bool:
    return (
        not run.joined
        or bool(run.failures)
        or run.left is not None
        or (run.exit_code not in (0, None) and not run.close)
        or run.exit_s is None
    )
