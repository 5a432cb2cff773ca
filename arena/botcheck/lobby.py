"""``arena bot check --lobby COMMAND``: the conformance checks of a remote (lobby) bot.

The kit builds a private ladder in a temporary folder (SQLite) for each game: the bot
under test (a remote version, ``candidate``) and in-process ``random`` bots to fill the
other seats, gives the candidate a token, and hosts the lobby and a game server on
127.0.0.1 (:func:`arena.ladder.remote.host_lobby`). It starts the program as::

    COMMAND --lobby 127.0.0.1:PORT --token TOKEN --max-games 2

(the same values in ``MENAGERIE_LOBBY`` and ``MENAGERIE_BOT_TOKEN``) and checks, in
plain words:

``lobby_connect``
    the bot opens the lobby stream with its token and is online within ``--join-timeout``;
``lobby_games``
    the ladder runner plays :data:`LOBBY_GAMES` matches, every one with the candidate in a
    seat (all other versions are random bots): each assigned seat is joined, and every
    move is its own (no illegal move, timeout, stall or disconnect in the record);
``lobby_reconnect``
    the lobby's server stops and starts again on the same port: the bot reconnects by
    itself within :data:`RECONNECT_S` s (a back-off that starts below a few seconds);
``lobby_revoke``
    the token is revoked: the lobby ends the stream with UNAUTHENTICATED, and the
    program must exit by itself within ``--close-timeout`` s instead of retrying forever.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.botcheck.model import (
    INCIDENTS,
    LOBBY_CHECKS,
    CheckConfig,
    CheckResult,
    GameReport,
    Progress,
    Report,
    Run,
)
from arena.botcheck.runs import checked_request, players_for
from arena.match.cmdbots import BotProcess
from arena.match.specs import CMD_PREFIX, command_argv

if TYPE_CHECKING:
    from arena.ladder.remote import RemoteMatches
    from arena.ladder.store import LadderStore

LADDER = "check"
CANDIDATE = "candidate"
LOBBY_GAMES = 4
RECONNECT_S = 15.0
"""How long the bot may take to come back after the lobby restarts."""
RECHECK_S = 0.5
"""How often the private lobby re-checks tokens (so a revoke is seen at once)."""
RUN_BOUND_S = 120.0
"""The ladder run of the check is stopped after this long whatever happens."""


def check_lobby_game(
    command: str, game: str, config: CheckConfig, progress: Progress | None = None
) -> GameReport:
    """The four lobby checks of ``command`` on ``game``."""
    from arena.ladder.remote import LobbySettings, bot_key, host_lobby
    from arena.ladder.store import LadderStore
    from arena.ladder.tokens import Tokens

    say = progress or (lambda _text: None)
    players = players_for(game)
    run = Run(name="lobby", seat=-1, seed=config.seed)
    checks: list[CheckResult] = []
    with (
        tempfile.TemporaryDirectory(prefix="mnr-lobby-check-") as tmp,
        LadderStore(str(Path(tmp) / "ladder.db")) as store,
    ):
        store.create_ladder(
            LADDER, game, players, move_ms=int(config.move_ms), failure_policy="random"
        )
        for i in range(1, players):
            store.add_version(LADDER, f"random{i}", spec="random", status="active")
        store.add_version(LADDER, CANDIDATE, kind="remote", status="active")
        _info, token = Tokens(store).issue(LADDER, CANDIDATE)
        key = bot_key(LADDER, CANDIDATE)
        settings = LobbySettings(
            "127.0.0.1:0",
            heartbeat_s=1.0,
            timeout_s=5.0,
            recheck_s=RECHECK_S,
            offline_wait_s=config.join_timeout_s,
            join_timeout_s=config.join_timeout_s,
        )
        process: BotProcess | None = None
        try:
            with host_lobby(store, [LADDER], settings) as host:
                say(f"{game}: starting the bot in lobby mode")
                process = _start(command, host.address, token)
                started = time.monotonic()
                run.joined = host.lobby.wait_online(key, config.join_timeout_s)
                if not run.joined:
                    checks.append(
                        CheckResult(
                            "lobby_connect",
                            "fail",
                            f"not online within {config.join_timeout_s:g} s "
                            f"({_exit_words(process)})",
                        )
                    )
                    return _report(game, players, checks, run)
                run.join_s = time.monotonic() - started
                checks.append(
                    CheckResult("lobby_connect", "pass", f"online after {run.join_s:.2f} s")
                )
                say(f"{game}: {LOBBY_GAMES} ladder matches")
                checks.append(_games(store, tmp, host.matches, run))
                port = host.address.rsplit(":", 1)[1]
            say(f"{game}: restarting the lobby")
            again = LobbySettings(
                f"127.0.0.1:{port}",
                heartbeat_s=1.0,
                timeout_s=5.0,
                recheck_s=RECHECK_S,
                join_timeout_s=config.join_timeout_s,
            )
            with host_lobby(store, [LADDER], again) as host:
                t0 = time.monotonic()
                if host.lobby.wait_online(key, RECONNECT_S):
                    checks.append(
                        CheckResult(
                            "lobby_reconnect",
                            "pass",
                            f"back online {time.monotonic() - t0:.2f} s after the restart",
                        )
                    )
                else:
                    checks.append(
                        CheckResult(
                            "lobby_reconnect",
                            "fail",
                            f"not back within {RECONNECT_S:g} s of the restart "
                            f"({_exit_words(process)})",
                        )
                    )
                    return _report(game, players, checks, run)
                say(f"{game}: revoking the token")
                Tokens(store).revoke(LADDER, CANDIDATE)
                t0 = time.monotonic()
                limit = config.close_timeout_s + RECHECK_S + settings.heartbeat_s
                while process.proc.poll() is None and time.monotonic() - t0 < limit:
                    time.sleep(0.05)
                if process.proc.poll() is None:
                    checks.append(
                        CheckResult(
                            "lobby_revoke",
                            "fail",
                            f"still running {limit:g} s after its token was revoked (the "
                            "lobby said UNAUTHENTICATED: retrying cannot help, exit instead)",
                        )
                    )
                else:
                    run.exit_code = process.proc.returncode
                    run.exit_s = time.monotonic() - t0
                    checks.append(
                        CheckResult(
                            "lobby_revoke",
                            "pass",
                            f"exited (status {run.exit_code}) {run.exit_s:.2f} s after the revoke",
                        )
                    )
        finally:
            if process is not None:
                process.kill("the check is over")
                process.reap()
                run.stderr = process.tail()
    return _report(game, players, checks, run)


def _start(command: str, address: str, token: str) -> BotProcess:
    env = dict(os.environ)
    env.update(MENAGERIE_LOBBY=address, MENAGERIE_BOT_TOKEN=token)
    argv = [*command_argv(CMD_PREFIX + command), "--lobby", address, "--token", token]
    return BotProcess(-1, command, [*argv, "--max-games", "2"], env)


def _games(store: LadderStore, home: str, matches: RemoteMatches, run: Run) -> CheckResult:
    """Run the ladder for :data:`LOBBY_GAMES` matches; judge the candidate's seats."""
    from arena.ladder.hosting import LadderFiles
    from arena.ladder.runner import LadderRunner, RunnerConfig
    from arena.tournament.journal import read_journal

    config = RunnerConfig(workers=0, games=LOBBY_GAMES, tracking=False, idle_s=0.5)
    runner = LadderRunner(
        store, LADDER, home=home, config=config, log=lambda _: None, remote=matches
    )
    timer = threading.Timer(RUN_BOUND_S, runner.request_stop, (f"{RUN_BOUND_S:g} s passed",))
    timer.start()
    try:
        summary = runner.run()
    finally:
        timer.cancel()
    label = f"{CANDIDATE}@1"
    problems: list[str] = [f"match {m} not played: {why}" for m, why in summary.voided]
    played = 0
    for record in read_journal(LadderFiles.of(home, LADDER).records):
        names = [p["name"] for p in record["players"]]
        if label not in names:
            continue
        played += 1
        seat = names.index(label)
        for event in record.get("events") or []:
            if event.get("seat") == seat and event.get("kind") in INCIDENTS:
                problems.append(f"step {event.get('step')}: {event['kind']}: {event.get('reason')}")
    if played < LOBBY_GAMES:
        problems.append(f"{played} of {LOBBY_GAMES} matches played ({summary.stopped})")
    if problems:
        shown = "; ".join(problems[:3]) + (
            f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        )
        return CheckResult("lobby_games", "fail", shown)
    return CheckResult("lobby_games", "pass", f"{played} matches played, every move its own")


def _exit_words(process: BotProcess) -> str:
    code = process.proc.poll()
    return "still running" if code is None else f"it exited with status {code}"


def _report(game: str, players: int, checks: list[CheckResult], run: Run) -> GameReport:
    done = {c.check for c in checks}
    for check in LOBBY_CHECKS:
        if check not in done:
            checks.append(CheckResult(check, "skip", "an earlier check failed"))
    return GameReport(game, players, checks, [run])


def check_lobby_bot(
    command: str | Sequence[str],
    games: Sequence[str] | None = None,
    config: CheckConfig | None = None,
    progress: Progress | None = None,
) -> Report:
    """The lobby checks of the bot program ``command`` on ``games`` (default: every game)."""
    config, text, chosen = checked_request(command, games, config)
    return Report(text, config, [check_lobby_game(text, g, config, progress) for g in chosen])
