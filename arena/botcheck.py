"""``arena bot check COMMAND``: a conformance kit for bot programs in any language.

The program is started exactly as the arena starts a ``cmd:`` bot (``COMMAND --address
127.0.0.1:PORT --credential SECRET``, the same values in ``MENAGERIE_ADDRESS`` and
``MENAGERIE_CREDENTIAL``; see :mod:`arena.match.cmdbots`) against the real embedded game
server on the loopback interface, seated against in-process random bots (2 players when
the game allows it). For each game (default: every registered game) it runs, with fixed
seeds so that a failure reproduces:

- **game 1** (the bot in seat 0) and then **game 2** (a fresh process in the last seat):
  complete games with the move clock ``--move-ms`` and the ``random`` failure policy, so
  one bad move does not end the check (the kit stops a program after
  :data:`MAX_FAILURES` failures in one game);
- two **server closes** mid-game, while the bot waits for its next turn: a graceful
  shutdown of the server (the bot gets GameOver with status ``aborted``, then its stream
  ends) and a lost server (its stream ends with ``UNAVAILABLE`` and no GameOver).

and reports five checks per game, in plain words:

``join``
    the program connects and joins with its credential within the join timeout;
``deadline``
    every answer arrives within the move clock (plus the server's transport margin);
``legal``
    every move is legal (an index in range, or a typed action that is one of the legal
    actions);
``game_end``
    the bot stays until GameOver, then exits by itself with status 0 within
    :data:`arena.match.cmdbots.EXIT_GRACE_S` s (the arena kills it after that), and the next
    game (game 2) works as well;
``server_close``
    after each server close the program exits by itself within ``--close-timeout`` s
    (any exit status) instead of hanging.

A check is ``pass``, ``fail`` or ``skip`` (it could not be run because of an earlier
failure, e.g. a bot that never joins). The command exits with status 1 if any check
fails (see :mod:`arena.cli`'s ``bot check``).
"""

from __future__ import annotations

import shlex
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from arena.errors import UserError, user_errors
from arena.match.cmdbots import EXIT_GRACE_S, BotProcess, open_bots
from arena.match.runner import MatchConfig, MatchSpec
from arena.match.specs import CMD_PREFIX, command_argv
from bots.base import Bot
from bots.random_bot import RandomBot
from engine import GAMES

if TYPE_CHECKING:
    from arena.server.app import GameServer
    from arena.server.hub import ServerConfig
    from arena.server.seats import RemoteSeat
    from arena.server.table import Table

Status = Literal["pass", "fail", "skip"]
Progress = Callable[[str], None]

CHECKS: dict[str, str] = {
    "join": "joins",
    "deadline": "answers in time",
    "legal": "legal moves only",
    "game_end": "survives game end",
    "server_close": "survives server close",
}
"""Check id -> short title, in report order."""

MAX_FAILURES = 3
"""Failures (late or illegal moves) in one game after which the kit stops the program."""

MARGIN_MS = 50.0
"""The server's transport margin on the move clock (as in ``arena serve``)."""

INCIDENTS = frozenset({"illegal", "timeout", "stall", "disconnect", "crash", "forfeit"})
"""Record event kinds after which the step was not the bot's own choice."""

GRACEFUL = "graceful shutdown"
LOST = "lost server"
CLOSE_HOW = {
    GRACEFUL: "GameOver 'aborted', then the stream ends",
    LOST: "the stream ends with UNAVAILABLE, no GameOver",
}


@dataclass
class CheckConfig:
    """How strict the kit is."""

    move_ms: float = 1000.0
    """The move clock of every turn (the server adds :data:`MARGIN_MS`)."""
    join_timeout_s: float = 10.0
    """Seconds from the program's start until it must have joined."""
    close_timeout_s: float = 5.0
    """Seconds after a server close until the program must have exited."""
    seed: int = 1
    """Seed of game 1; game 2 and the server closes use the next seeds."""


@dataclass
class Failure:
    """A late or illegal move, or the bot leaving (``kind`` as in the record's events)."""

    kind: str
    step: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "step": self.step, "reason": self.reason}


@dataclass
class Run:
    """One start of the program: a game, or a game interrupted by a server close."""

    name: str
    seat: int
    seed: int
    close: str = ""
    """For a server close: GRACEFUL or LOST (empty for a full game)."""
    joined: bool = False
    join_s: float | None = None
    join_problem: str = ""
    failures: list[Failure] = field(default_factory=list)
    left: Failure | None = None
    """The bot's stream closed or its process ended before GameOver (or the close)."""
    stopped: str = ""
    """Why the kit (or the arena's policy) stopped the program before the end."""
    turns: int = 0
    slowest_ms: float = 0.0
    finished: bool = False
    aborted: str = ""
    reached: bool = False
    """For a server close: the game reached the bot's first move before the close."""
    exit_code: int | None = None
    exit_s: float | None = None
    """Seconds from GameOver (or the server close) until the program exited."""
    stderr: str = ""
    pid: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.name,
            "seat": self.seat,
            "seed": self.seed,
            "joined": self.joined,
            "join_s": _round(self.join_s),
            "turns": self.turns,
            "slowest_ms": round(self.slowest_ms, 1),
            "failures": [f.to_json() for f in self.failures],
            "left": self.left.to_json() if self.left else None,
            "stopped": self.stopped or None,
            "exit_code": self.exit_code,
            "exit_s": _round(self.exit_s),
            "stderr": self.stderr[-2000:],
        }


@dataclass
class CheckResult:
    check: str
    status: Status
    detail: str

    @property
    def title(self) -> str:
        return CHECKS[self.check]

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
        }


@dataclass
class GameReport:
    game: str
    players: int
    checks: list[CheckResult]
    runs: list[Run]

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "ok": self.ok,
            "checks": [c.to_json() for c in self.checks],
            "runs": [r.to_json() for r in self.runs],
        }


@dataclass
class Report:
    command: str
    config: CheckConfig
    games: list[GameReport]

    @property
    def ok(self) -> bool:
        return all(g.ok for g in self.games)

    def failed(self) -> list[tuple[str, CheckResult]]:
        return [(g.game, c) for g in self.games for c in g.checks if c.status == "fail"]

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "ok": self.ok,
            "move_ms": self.config.move_ms,
            "join_timeout_s": self.config.join_timeout_s,
            "close_timeout_s": self.config.close_timeout_s,
            "seed": self.config.seed,
            "games": [g.to_json() for g in self.games],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


# -- running the program ------------------------------------------------------------------


def command_text(command: str | Sequence[str]) -> str:
    """The command line of ``command`` (one string, or argv words); ``cmd:`` is optional.

    >>> command_text(["node", "bots/node/bot.js", "--seed", "7"])
    'node bots/node/bot.js --seed 7'
    >>> command_text("cmd:python -m bots.random_client")
    'python -m bots.random_client'
    """
    words = [command] if isinstance(command, str) else list(command)
    text = words[0] if len(words) == 1 else shlex.join(words)
    text = text.strip()
    if text.startswith(CMD_PREFIX):
        text = text[len(CMD_PREFIX) :].strip()
    if not text:
        raise UserError("COMMAND is empty: give the command line that starts your bot")
    command_argv(CMD_PREFIX + text)  # BotSpecError (a user error) if it does not parse
    return text


def players_for(game_id: str) -> int:
    """2 players when the game allows it, else its smallest player count."""
    game = GAMES[game_id]
    return 2 if game.min_players <= 2 <= game.max_players else game.min_players


def _server_config(config: CheckConfig) -> ServerConfig:
    from arena.server.hub import ServerConfig

    return ServerConfig(
        margin_ms=MARGIN_MS,
        join_timeout_s=config.join_timeout_s,
        # the move clock decides (a late answer is a timeout, never a stall)
        stall_ms=max(60_000.0, 2 * (config.move_ms + MARGIN_MS) + 1000.0),
    )


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _wait_exit(process: BotProcess, since: float, limit_s: float) -> float | None:
    """Seconds from ``since`` until the program exited (None: still running at the limit)."""
    while True:
        if process.proc.poll() is not None:
            return max(0.0, time.monotonic() - since)
        if time.monotonic() - since >= limit_s:
            return None
        time.sleep(0.01)


class _Seat:
    """The bot's seat in one run: its process, failures and join."""

    def __init__(self, run: Run, table: Table, process: BotProcess) -> None:
        from arena.server.seats import RemoteSeat

        seat = table.seats[run.seat]
        assert isinstance(seat, RemoteSeat)
        self.run = run
        self.table = table
        self.seat: RemoteSeat = seat
        self.process = process
        self.started = time.monotonic()
        run.pid = process.proc.pid
        arena_policy = seat.on_failure
        run_ = run

        def on_failure(kind: str, reason: str) -> None:
            if arena_policy is not None:
                arena_policy(kind, reason)  # the arena's own policy (kills on a disconnect)
            if run_.stopped or run_.left:
                return  # consequences of an earlier failure
            state = table.last_state
            step = len(state.history) + 1 if state is not None else 1
            # the server may append the process's exit detail twice: say it once
            failure = Failure(kind, step, "; ".join(dict.fromkeys(reason.split("; "))))
            if kind == "disconnect":
                run_.left = failure
                return
            run_.failures.append(failure)
            if kind == "stall":
                run_.stopped = "the arena stopped the program when it stalled"
            elif len(run_.failures) >= MAX_FAILURES:
                run_.stopped = f"the kit stopped the program after {MAX_FAILURES} failures"
                threading.Thread(target=process.kill, args=(run_.stopped,), daemon=True).start()

        seat.on_failure = on_failure

    def wait_joined(self, timeout_s: float) -> bool:
        run = self.run
        run.joined = self.seat.wait_joined(self.started + timeout_s)
        if run.joined:
            run.join_s = time.monotonic() - self.started
            return True
        if self.process.proc.poll() is not None:
            run.join_problem = f"the program ended before joining: {self.process.exit_detail()}"
        else:
            line = _last_line(self.process.tail())
            run.join_problem = (
                f"no Join with its credential within {timeout_s:g} s "
                f"(the program is still running{'; stderr: ' + line if line else ''})"
            )
        return False

    def count_turns(self, record: dict[str, Any]) -> None:
        """The moves the bot itself chose (not replaced by a random move) and their time."""
        seat = self.run.seat
        replaced = {
            int(e.get("step", 0))
            for e in record.get("events", [])
            if e.get("seat") == seat and e.get("kind") in INCIDENTS
        }
        mine = [
            s
            for i, s in enumerate(record.get("steps", []), 1)
            if s.get("seat") == seat and i not in replaced
        ]
        self.run.turns = len(mine)
        self.run.slowest_ms = max((float(s.get("ms", 0.0)) for s in mine), default=0.0)


def _specs(command: str, players: int, seat: int) -> tuple[list[str], list[str]]:
    specs = ["random"] * players
    names = [f"random{s}" for s in range(players)]
    specs[seat] = CMD_PREFIX + command
    names[seat] = "bot"
    return specs, names


def _build(_seat: int, _spec: str) -> Bot:
    return RandomBot()


def play_game(command: str, game: str, run: Run, config: CheckConfig, server: GameServer) -> Run:
    """A complete game with the program in ``run.seat``; fills in ``run``."""
    from arena.server.hub import drive

    players = players_for(game)
    specs, names = _specs(command, players, run.seat)
    spec = MatchSpec(game, players, run.seed, match_id=f"check-{game}-{run.name.replace(' ', '')}")
    match = MatchConfig(move_ms=config.move_ms, on_failure="random")
    process: BotProcess | None = None
    with open_bots(specs, spec, match, names=names, build=_build, server=server) as session:
        table = session.table
        assert table is not None
        process = session.processes[0]
        seat = _Seat(run, table, process)
        if seat.wait_joined(config.join_timeout_s):
            record = drive(table)
            over_at = time.monotonic()
            run.finished = "result" in record
            run.aborted = "" if run.finished else str(record.get("reason", "aborted"))
            seat.count_turns(record)
            run.exit_s = _wait_exit(process, over_at, EXIT_GRACE_S)
            if run.exit_s is None:
                process.kill(f"still running {EXIT_GRACE_S:g} s after GameOver")
            else:
                run.exit_code = process.proc.returncode
            session.finish(record)
    run.stderr = process.tail() if process is not None else ""
    return run


def close_game(command: str, game: str, run: Run, config: CheckConfig) -> Run:
    """A game interrupted by a server close (``run.close``) after the bot's first move."""
    import grpc

    from arena.server.app import GameServer
    from arena.server.hub import drive

    players = players_for(game)
    specs, names = _specs(command, players, run.seat)
    spec = MatchSpec(game, players, run.seed)
    match = MatchConfig(move_ms=config.move_ms, on_failure="random")
    server = GameServer(_server_config(config))
    server.start("127.0.0.1", 0)
    stopper: threading.Thread | None = None
    process: BotProcess | None = None
    try:
        with open_bots(specs, spec, match, names=names, build=_build, server=server) as session:
            table = session.table
            assert table is not None
            process = session.processes[0]
            seat = _Seat(run, table, process)
            if not seat.wait_joined(config.join_timeout_s):
                return run
            reached = threading.Event()

            def hold(_state: Any, player: int, _action: Any) -> None:
                """After the bot's first move, hold the match until the server aborts it."""
                if player != run.seat or reached.is_set():
                    return
                reached.set()
                until = time.monotonic() + 60.0
                while not table.aborting and time.monotonic() < until:
                    time.sleep(0.01)

            driver = threading.Thread(target=drive, args=(table, hold), daemon=True)
            driver.start()
            limit_s = 10.0 + 3 * (config.move_ms + MARGIN_MS) / 1000
            run.reached = reached.wait(limit_s)
            if not run.reached or run.left is not None:
                return run
            closed_at = time.monotonic()
            if run.close == LOST:
                outbox = seat.seat.outbox
                if outbox is not None:
                    outbox.close(grpc.StatusCode.UNAVAILABLE, "the server went away")
            stopper = threading.Thread(target=server.stop, kwargs={"grace_s": 0.0}, daemon=True)
            stopper.start()
            run.exit_s = _wait_exit(process, closed_at, config.close_timeout_s)
            if run.exit_s is None:
                process.kill(f"still running {config.close_timeout_s:g} s after the server closed")
            else:
                run.exit_code = process.proc.returncode
            stopper.join(30)
            driver.join(10)
    finally:
        if stopper is None:
            server.stop(grace_s=0.0)
        if process is not None:
            run.stderr = process.tail()
    return run


# -- judging ------------------------------------------------------------------------------


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
            line = _last_line(r.stderr)
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
            line = _last_line(r.stderr)
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


# -- the whole check ----------------------------------------------------------------------


def check_game(
    command: str,
    game: str,
    config: CheckConfig,
    server: GameServer,
    progress: Progress | None = None,
) -> GameReport:
    """Every run and check of one game."""
    say = progress or (lambda _text: None)
    players = players_for(game)
    last = players - 1
    seed = config.seed
    planned = [
        Run("game 1", 0, seed),
        Run("game 2", last, seed + 1),
        Run(GRACEFUL, 0, seed + 2, close=GRACEFUL),
        Run(LOST, last, seed + 3, close=LOST),
    ]
    runs: list[Run] = []
    for run in planned:
        say(f"{game}: {run.name} (seat {run.seat})")
        if run.close:
            close_game(command, game, run, config)
        else:
            play_game(command, game, run, config, server)
        runs.append(run)
        if run is planned[0] and not run.joined:
            break  # the bot never joined: nothing else can be checked
    return GameReport(game, players, judge(runs, config), runs)


def check_bot(
    command: str | Sequence[str],
    games: Sequence[str] | None = None,
    config: CheckConfig | None = None,
    progress: Progress | None = None,
) -> Report:
    """Run the conformance checks of the bot program ``command`` on ``games``."""
    from arena.server.app import GameServer

    config = config or CheckConfig()
    if config.move_ms <= 0:
        raise UserError("--move-ms must be positive")
    if config.join_timeout_s <= 0 or config.close_timeout_s <= 0:
        raise UserError("--join-timeout and --close-timeout must be positive")
    text = command_text(command)
    chosen = list(dict.fromkeys(games)) if games else list(GAMES)
    unknown = [g for g in chosen if g not in GAMES]
    if unknown:
        raise UserError(f"unknown game(s) {', '.join(unknown)}; registered: {', '.join(GAMES)}")
    server = GameServer(_server_config(config))
    server.start("127.0.0.1", 0)
    try:
        reports = [check_game(text, g, config, server, progress) for g in chosen]
    finally:
        server.stop(grace_s=0.0)
    return Report(text, config, reports)


# -- output -------------------------------------------------------------------------------


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


def check_cmd(
    command: Annotated[
        list[str],
        typer.Argument(
            help="The bot's command line, quoted as one argument (like a cmd: spec without "
            "the prefix), or after `--`. The kit appends --address and --credential.",
            metavar="COMMAND",
            show_default=False,
        ),
    ],
    game: Annotated[
        list[str] | None,
        typer.Option("--game", help="Check only this game (repeatable or comma-separated)."),
    ] = None,
    move_ms: Annotated[
        float, typer.Option("--move-ms", help="Move clock of every turn (ms).")
    ] = 1000.0,
    join_timeout: Annotated[
        float, typer.Option("--join-timeout", help="Seconds the bot may take to join.")
    ] = 10.0,
    close_timeout: Annotated[
        float,
        typer.Option("--close-timeout", help="Seconds the bot may take to exit after a close."),
    ] = 5.0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the first game.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Conformance kit: play short games against your bot program, report what breaks.

    Per game (default: every registered game), against random bots on 127.0.0.1:
    two games in a row (fresh process, different seats) and two games closed mid-game.

    Checks: joins with its credential; answers within the move clock; sends only legal
    moves; exits with status 0 after GameOver; exits by itself when the server closes.

    Exit status 1 if any check fails. Example: arena bot check "node bots/node/bot.js"
    """
    games = [g.strip() for item in game or [] for g in item.split(",") if g.strip()]
    config = CheckConfig(
        move_ms=move_ms, join_timeout_s=join_timeout, close_timeout_s=close_timeout, seed=seed
    )
    if as_json:
        report = check_bot(command, games or None, config)
        import json

        print(json.dumps(report.to_json(), indent=1))
    else:
        from rich.console import Console

        status = Console(stderr=True).status("starting")
        with status:
            report = check_bot(command, games or None, config, lambda text: status.update(text))
        print_report(report)
    if not report.ok:
        raise SystemExit(1)


def register(app: typer.Typer) -> None:
    """``arena bot check``."""
    bot_app = typer.Typer(help="Tools for bot authors (`arena bot check COMMAND`).")
    bot_app.command("check")(user_errors(check_cmd))
    app.add_typer(bot_app, name="bot")
