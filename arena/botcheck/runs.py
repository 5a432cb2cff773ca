"""Running the bot program: full games and games closed mid-game, and the whole check."""

from __future__ import annotations

import shlex
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena.botcheck.judge import judge
from arena.botcheck.model import (
    GRACEFUL,
    INCIDENTS,
    LOST,
    MARGIN_MS,
    MAX_FAILURES,
    CheckConfig,
    Failure,
    GameReport,
    Progress,
    Report,
    Run,
    last_line,
)
from arena.errors import UserError
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
            line = last_line(self.process.tail())
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
    with open_bots(
        specs, spec, match, names=names, build=_build, server=server, sandbox=config.sandbox
    ) as session:
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

    from arena.sandbox import socket_path
    from arena.server.app import GameServer
    from arena.server.hub import drive

    players = players_for(game)
    specs, names = _specs(command, players, run.seat)
    spec = MatchSpec(game, players, run.seed)
    match = MatchConfig(move_ms=config.move_ms, on_failure="random")
    server = GameServer(_server_config(config))
    server.start("127.0.0.1", 0, unix_path=socket_path())  # sandboxed bots reach it
    stopper: threading.Thread | None = None
    process: BotProcess | None = None
    try:
        with open_bots(
            specs, spec, match, names=names, build=_build, server=server, sandbox=config.sandbox
        ) as session:
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


def checked_request(
    command: str | Sequence[str], games: Sequence[str] | None, config: CheckConfig | None
) -> tuple[CheckConfig, str, list[str]]:
    """A check's settings, its command as text and its games (default: every game),
    with a clear :class:`UserError` for what cannot be checked."""
    config = config or CheckConfig()
    if config.move_ms <= 0:
        raise UserError("--move-ms must be positive")
    if config.join_timeout_s <= 0 or config.close_timeout_s <= 0:
        raise UserError("--join-timeout and --close-timeout must be positive")
    chosen = list(dict.fromkeys(games)) if games else list(GAMES)
    unknown = [g for g in chosen if g not in GAMES]
    if unknown:
        raise UserError(f"unknown game(s) {', '.join(unknown)}; registered: {', '.join(GAMES)}")
    return config, command_text(command), chosen


def check_bot(
    command: str | Sequence[str],
    games: Sequence[str] | None = None,
    config: CheckConfig | None = None,
    progress: Progress | None = None,
) -> Report:
    """Run the conformance checks of the bot program ``command`` on ``games``."""
    from arena.sandbox import socket_path
    from arena.server.app import GameServer

    config, text, chosen = checked_request(command, games, config)
    server = GameServer(_server_config(config))
    server.start("127.0.0.1", 0, unix_path=socket_path())  # sandboxed bots reach it
    try:
        reports = [check_game(text, g, config, server, progress) for g in chosen]
    finally:
        server.stop(grace_s=0.0)
    return Report(text, config, reports)
