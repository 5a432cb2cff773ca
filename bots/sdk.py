"""The Python bot SDK: write one class with one method, run it with one call.

::

    from bots import sdk

    class MyBot:
        name = "mybot"          # optional: reported to the server
        version = "1"           # optional

        def choose(self, observation, legal, clock):
            # observation: dict, exactly the engine's observation(seat) JSON
            # legal: list of sdk.LegalMove (index, text, action JSON)
            # clock: sdk.Clock (time_limit_ms, remaining_ms())
            return 0            # an index, a LegalMove, or an action JSON dict

    if __name__ == "__main__":
        sdk.main(MyBot())       # --address/--credential or MENAGERIE_ADDRESS/_CREDENTIAL

or ``sdk.run(MyBot(), "127.0.0.1:50051", credential)`` which returns the
:class:`GameResult`. A **remote ladder bot** runs on its author's machine and waits in
the lobby for matches: ``sdk.run_lobby(MyBot(), "ladder.example.org:50051", token,
max_games=4)`` (token from ``arena ladder token BOT``; see :func:`run_lobby`).
Optional hooks: ``on_start(info: MatchInfo)``,
``on_error(code: str, message: str)`` (in-stream errors, e.g. an illegal move) and
``on_game_over(result: GameResult)``.

Command bots (``cmd:<command line>`` in ``arena play`` and tournaments) are started by
the arena with ``--address HOST:PORT --credential SECRET`` appended and the same values
in the environment variables ``MENAGERIE_ADDRESS`` and ``MENAGERIE_CREDENTIAL``; they
should log to stderr (the arena keeps its last 4 KB in the record) and exit after the
game.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc
from menagerie.v1 import lobby_service_pb2 as lpb
from menagerie.v1 import lobby_service_pb2_grpc as lpb_grpc

from wire.convert import (
    JSON,
    WireError,
    action_to_proto,
    game_action_from_proto,
    observation_from_proto,
)

ADDRESS_ENV = "MENAGERIE_ADDRESS"
CREDENTIAL_ENV = "MENAGERIE_CREDENTIAL"
TOKEN_ENV = "MENAGERIE_BOT_TOKEN"
LOBBY_ENV = "MENAGERIE_LOBBY"
FATAL_LOBBY_CODES = frozenset(
    {"UNAUTHENTICATED", "INVALID_ARGUMENT", "PERMISSION_DENIED", "ABORTED"}
)
"""Lobby statuses a reconnect cannot fix: :func:`run_lobby` raises them at once (ABORTED:
another connection of the same bot replaced this one; two processes on one token would
otherwise take the stream from each other forever)."""


class SdkError(RuntimeError):
    """The server ended the stream with an error status (``code``, ``details``)."""

    def __init__(self, code: str, details: str) -> None:
        super().__init__(f"{code}: {details}")
        self.code = code
        self.details = details


class LegalMove:
    """One legal action: its index, short text and action JSON.

    A Turn's legal moves are read from the wire only when used (:meth:`of_wire`): most
    bots look at a few of them, or only at their number, and reading every text and
    action of a long list costs more than decoding the rest of the Turn (100 legal
    moves: ~48 us read at once, ~12 us left lazy)."""

    __slots__ = ("_action", "_game", "_index", "_msg", "_text", "_wire")

    def __init__(self, index: int, text: str, game: str, msg: Any) -> None:
        self._index: int | None = index
        self._text: str | None = text
        self._game = game
        self._msg = msg
        """The envelope ``Action`` (None until read from ``_wire``)."""
        self._wire: pb.LegalAction | None = None
        """The wire's LegalAction, when the fields above are read from it on first use."""
        self._action: dict[str, JSON] | None = None

    @classmethod
    def of_wire(cls, wire: pb.LegalAction, game: str) -> LegalMove:
        """The legal move of a Turn's ``LegalAction`` (fields read on first use)."""
        move = cls.__new__(cls)
        move._index = None
        move._text = None
        move._game = game
        move._msg = None
        move._wire = wire
        move._action = None
        return move

    @property
    def index(self) -> int:
        """Its index in the Turn's list (what a bot may answer)."""
        if self._index is None:
            assert self._wire is not None  # (set whenever a field is left unread)
            self._index = self._wire.index
        return self._index

    @property
    def text(self) -> str:
        """Its short text, e.g. ``take T2``."""
        if self._text is None:
            assert self._wire is not None
            self._text = self._wire.text
        return self._text

    @property
    def action(self) -> dict[str, JSON]:
        """The action as JSON (``{"kind": ..., ...}``, as in the game's spec)."""
        if self._action is None:
            msg = self._msg
            if msg is None:
                assert self._wire is not None
                msg = self._msg = self._wire.action
            self._action = game_action_from_proto(self._game, getattr(msg, self._game))
        return self._action

    def __repr__(self) -> str:
        return f"LegalMove({self.index}, {self.text!r})"


@dataclass
class Clock:
    """The move clock of one turn (measured from when the Turn arrived)."""

    time_limit_ms: float | None
    received_at: float = field(default_factory=time.monotonic)

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.received_at) * 1000

    def remaining_ms(self) -> float | None:
        """Milliseconds left for this move (None: no move clock)."""
        if self.time_limit_ms is None:
            return None
        return self.time_limit_ms - self.elapsed_ms()


@dataclass
class MatchInfo:
    """What MatchStart says: the game, options, players and this bot's seat."""

    match_id: str
    game: str
    game_version: int
    options: dict[str, JSON]
    num_players: int
    seat: int
    players: list[dict[str, JSON]]
    time_limit_ms: float | None
    on_failure: str
    seed: int


@dataclass
class GameResult:
    """What GameOver says (``status`` is ``finished`` or ``aborted``)."""

    match_id: str
    seat: int
    status: str
    reason: str
    scores: list[float]
    breakdown: list[dict[str, float]]
    ranks: list[int]
    standing_ranks: list[int]
    forfeited: list[int]
    events: list[dict[str, JSON]]
    errors: list[tuple[str, str]] = field(default_factory=list)

    @property
    def rank(self) -> int | None:
        """This seat's rank after forfeits (None if the match was aborted)."""
        return self.standing_ranks[self.seat] if self.standing_ranks else None


class Bot(Protocol):
    """What ``run`` needs: one method (the hooks are optional)."""

    def choose(self, observation: dict[str, JSON], legal: list[LegalMove], clock: Clock) -> Any: ...


def run(
    bot: Bot,
    address: str,
    credential: str,
    *,
    name: str | None = None,
    version: str | None = None,
    connect_timeout_s: float = 30.0,
) -> GameResult:
    """Play one seat of one match with ``bot``; returns when the game is over."""
    channel = grpc.insecure_channel(
        address, options=[("grpc.max_receive_message_length", 64 << 20)]
    )
    try:
        try:
            grpc.channel_ready_future(channel).result(timeout=connect_timeout_s)
        except grpc.FutureTimeoutError:
            raise SdkError("UNAVAILABLE", f"cannot connect to {address}") from None
        return _play(bot, pb_grpc.GameServiceStub(channel), credential, name, version)
    finally:
        channel.close()


def _play(
    bot: Bot, stub: pb_grpc.GameServiceStub, credential: str, name: str | None, version: str | None
) -> GameResult:
    outgoing: queue.SimpleQueue[pb.PlayRequest | None] = queue.SimpleQueue()
    outgoing.put(
        pb.PlayRequest(
            join=pb.Join(
                credential=credential,
                bot_name=name or str(getattr(bot, "name", type(bot).__name__)),
                bot_version=version or str(getattr(bot, "version", "")),
            )
        )
    )

    def requests() -> Iterator[pb.PlayRequest]:
        while True:
            item = outgoing.get()
            if item is None:
                return
            yield item

    info: MatchInfo | None = None
    errors: list[tuple[str, str]] = []
    responses = stub.Play(requests())
    try:
        for response in responses:
            kind = response.WhichOneof("message")
            if kind == "turn":
                assert info is not None
                outgoing.put(_answer(bot, info.game, response.turn))
            elif kind == "match_start":
                info = _match_info(response.match_start)
                if hasattr(bot, "on_start"):
                    bot.on_start(info)
            elif kind == "error":
                code = pb.ErrorCode.Name(response.error.code).removeprefix("ERROR_CODE_")
                errors.append((code, response.error.message))
                if hasattr(bot, "on_error"):
                    bot.on_error(code, response.error.message)
                else:
                    print(f"server: {code}: {response.error.message}", file=sys.stderr)
            elif kind == "game_over":
                outgoing.put(None)
                result = _result(response.game_over, info, errors)
                if hasattr(bot, "on_game_over"):
                    bot.on_game_over(result)
                return result
    except grpc.RpcError as exc:
        outgoing.put(None)
        raise SdkError(exc.code().name, exc.details() or "") from None
    finally:
        outgoing.put(None)
    raise SdkError("UNKNOWN", "the server ended the stream without GameOver")


def _answer(bot: Bot, game: str, turn: pb.Turn) -> pb.PlayRequest:
    clock = Clock(float(turn.time_limit_ms) if turn.time_limit_ms else None)
    _, observation = observation_from_proto(turn.observation)
    legal = [LegalMove.of_wire(la, game) for la in turn.legal_actions]
    choice = bot.choose(observation, legal, clock)
    request = pb.PlayRequest()
    move = request.move  # (filled in place: no Move copied into its envelope)
    move.sequence = turn.sequence
    if isinstance(choice, LegalMove):
        move.index = choice.index
    elif isinstance(choice, int) and not isinstance(choice, bool):
        move.index = choice
    elif isinstance(choice, pb.Action):
        move.action.CopyFrom(choice)
    elif isinstance(choice, dict):
        try:
            move.action.CopyFrom(action_to_proto(game, choice))
        except WireError as exc:
            raise TypeError(
                f"choose() returned an action that does not fit {game}: {exc}"
            ) from None
    else:
        raise TypeError(
            f"choose() must return an index, a LegalMove or an action dict, not {choice!r}"
        )
    return request


def _match_info(start: pb.MatchStart) -> MatchInfo:
    return MatchInfo(
        match_id=start.match_id,
        game=start.game,
        game_version=start.game_version,
        options=json.loads(start.options_json or "{}"),
        num_players=start.num_players,
        seat=start.seat,
        players=[{"seat": p.seat, "name": p.name, "remote": p.remote} for p in start.players],
        time_limit_ms=float(start.time_limit_ms) if start.time_limit_ms else None,
        on_failure="random" if start.on_failure == pb.FAILURE_POLICY_RANDOM else "forfeit",
        seed=start.seed,
    )


def _result(over: pb.GameOver, info: MatchInfo | None, errors: list[tuple[str, str]]) -> GameResult:
    return GameResult(
        match_id=over.match_id,
        seat=info.seat if info is not None else -1,
        status="finished" if over.status == pb.MATCH_STATUS_FINISHED else "aborted",
        reason=over.reason,
        scores=list(over.scores),
        breakdown=[dict(b.points) for b in over.breakdown],
        ranks=list(over.ranks),
        standing_ranks=list(over.standing_ranks),
        forfeited=list(over.forfeited),
        events=[
            {"step": e.step, "seat": e.seat, "kind": e.kind, "reason": e.reason}
            for e in over.events
        ],
        errors=errors,
    )


@dataclass
class LobbyRun:
    """What :func:`run_lobby` did."""

    results: list[GameResult] = field(default_factory=list)
    """The games played (finished or aborted), in the order they ended."""
    failed: list[tuple[str, str]] = field(default_factory=list)
    """Games that could not be played: (match id, error)."""
    connections: int = 0
    """Lobby streams that were welcomed (1 + successful reconnects)."""
    assigned: int = 0
    first_assigned_s: float | None = None
    """Seconds from opening the first stream to the first MatchAssigned."""
    stopped: str = ""


def run_lobby(
    bot: Bot | Callable[[], Bot],
    address: str,
    token: str,
    *,
    max_games: int = 1,
    ladders: tuple[str, ...] = (),
    games: int | None = None,
    stop: threading.Event | None = None,
    name: str | None = None,
    version: str | None = None,
    backoff_s: float = 0.5,
    max_backoff_s: float = 30.0,
    max_failures: int | None = 12,
    connect_timeout_s: float = 10.0,
    log: Callable[[str], None] | None = None,
) -> LobbyRun:
    """Wait in the lobby at ``address`` with a bot token and play every match assigned.

    ``bot``: one bot object shared by every game (its ``choose`` may then run in several
    threads at once), or a factory called once per game. Up to ``max_games`` games are
    played at once, each on its own ``Play`` stream to the address ``MatchAssigned``
    names. The lobby stream gets a ``Heartbeat`` at the interval the server's
    ``Welcome`` asks for.

    **Reconnect rule.** When the stream breaks (server restart, network), the bot
    reconnects after an exponential back-off with full jitter: a random wait in
    ``[d/2, d]``, ``d = min(max_backoff_s, backoff_s * 2^n)`` after the n-th failure in a
    row (reset by a Welcome), so that a fleet of bots does not reconnect in lock step.
    After ``max_failures`` failures in a row (None: never) it gives up with
    :class:`SdkError`. UNAUTHENTICATED (unknown or revoked token), INVALID_ARGUMENT and
    ABORTED (another connection of this bot took over) are raised at once: retrying
    cannot fix them. Games already running continue on
    their own streams while the lobby reconnects.

    Returns when ``games`` games are over, or ``stop`` is set (games in progress finish).
    """
    say = log or (lambda text: print(text, file=sys.stderr, flush=True))
    halt = stop or threading.Event()
    out = LobbyRun()
    lock = threading.Lock()
    started = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=max(1, max_games), thread_name_prefix="lobby-game")
    pending: list[Future[None]] = []

    def play(assigned: lpb.MatchAssigned) -> None:
        player = bot if hasattr(bot, "choose") else bot()  # or a factory
        try:
            result = run(player, assigned.address, assigned.credential, name=name, version=version)
        except Exception as exc:  # one game's failure (the bot's or the stream's) ends only it
            with lock:
                out.failed.append((assigned.match_id, f"{type(exc).__name__}: {exc}"))
        else:
            with lock:
                out.results.append(result)
        with lock:
            finished = len(out.results) + len(out.failed)
        if games is not None and finished >= games:
            halt.set()

    failures = 0
    try:
        while not halt.is_set():
            before = out.connections
            try:
                _lobby_session(
                    address,
                    token,
                    max_games,
                    ladders,
                    name or str(getattr(bot, "name", "")),
                    version or str(getattr(bot, "version", "")),
                    connect_timeout_s,
                    halt,
                    out,
                    started,
                    lambda a: pending.append(pool.submit(play, a)),
                    games,
                    say,
                )
            except SdkError as exc:
                if exc.code in FATAL_LOBBY_CODES:
                    raise
                if not halt.is_set():
                    say(f"lobby: {exc}")
            if halt.is_set():
                break
            failures = 0 if out.connections > before else failures + 1
            if max_failures is not None and failures >= max_failures:
                raise SdkError("UNAVAILABLE", f"no lobby at {address} after {failures} attempts")
            delay = min(max_backoff_s, backoff_s * 2 ** max(0, failures - 1))
            wait = random.uniform(delay / 2, delay)
            say(f"lobby: reconnecting in {wait:.1f} s")
            halt.wait(wait)
        out.stopped = "stopped" if stop is not None and stop.is_set() else "games played"
    finally:
        halt.set()
        for f in pending:
            f.result()
        pool.shutdown(wait=True)
    return out


def _lobby_session(
    address: str,
    token: str,
    max_games: int,
    ladders: tuple[str, ...],
    name: str,
    version: str,
    connect_timeout_s: float,
    halt: threading.Event,
    out: LobbyRun,
    started: float,
    start_game: Callable[[lpb.MatchAssigned], None],
    games: int | None,
    say: Callable[[str], None],
) -> None:
    """One Lobby stream until it ends (a broken one raises :class:`SdkError`)."""
    channel = grpc.insecure_channel(address)
    outgoing: queue.SimpleQueue[lpb.LobbyRequest | None] = queue.SimpleQueue()
    interval = [5.0]

    def requests() -> Iterator[lpb.LobbyRequest]:
        yield lpb.LobbyRequest(
            hello=lpb.Hello(
                token=token,
                ladders=list(ladders),
                max_games=max_games,
                bot_name=name,
                bot_version=version,
            )
        )
        while not halt.is_set():
            try:
                item = outgoing.get(timeout=interval[0])
            except queue.Empty:
                item = lpb.LobbyRequest(heartbeat=lpb.Heartbeat(sent_at_ms=int(time.time() * 1000)))
            if item is None:
                return
            yield item

    def watch_halt() -> None:
        halt.wait()
        outgoing.put(None)
        call.cancel()

    try:
        try:
            grpc.channel_ready_future(channel).result(timeout=connect_timeout_s)
        except grpc.FutureTimeoutError:
            raise SdkError("UNAVAILABLE", f"cannot connect to {address}") from None
        call = lpb_grpc.LobbyServiceStub(channel).Lobby(requests())
        threading.Thread(target=watch_halt, daemon=True).start()
        for response in call:
            kind = response.WhichOneof("message")
            if kind == "welcome":
                out.connections += 1
                interval[0] = max(0.05, response.welcome.heartbeat_interval_ms / 1000 or 5.0)
                say(
                    f"lobby: {response.welcome.bot} online for "
                    f"{', '.join(response.welcome.ladders)} ({response.welcome.max_games} at once)"
                )
            elif kind == "match_assigned":
                out.assigned += 1
                if out.first_assigned_s is None:
                    out.first_assigned_s = time.monotonic() - started
                if games is None or out.assigned <= games:
                    start_game(response.match_assigned)
            elif kind == "error":
                say(f"lobby: {response.error.message}")
    except grpc.RpcError as exc:
        if not halt.is_set():
            raise SdkError(exc.code().name, exc.details() or "") from None
    finally:
        outgoing.put(None)
        channel.close()


def add_connection_args(parser: argparse.ArgumentParser) -> None:
    """Add ``--address`` and ``--credential`` (defaults from the environment)."""
    parser.add_argument(
        "--address",
        default=os.environ.get(ADDRESS_ENV),
        help=f"game server HOST:PORT (default: ${ADDRESS_ENV})",
    )
    parser.add_argument(
        "--credential",
        default=os.environ.get(CREDENTIAL_ENV),
        help=f"seat credential (default: ${CREDENTIAL_ENV})",
    )
    parser.add_argument(
        "--lobby",
        default=os.environ.get(LOBBY_ENV),
        help=f"lobby mode: wait for ladder matches at HOST:PORT (default: ${LOBBY_ENV})",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV),
        help=f"the bot token of lobby mode (default: ${TOKEN_ENV})",
    )
    parser.add_argument(
        "--max-games", type=int, default=1, help="lobby mode: games at once (default 1)"
    )
    parser.add_argument(
        "--games", type=int, default=None, help="lobby mode: exit after N games (default: never)"
    )


def main(bot: Bot, argv: list[str] | None = None) -> None:
    """Run ``bot`` as a command bot: parse the connection flags, play, exit."""
    parser = argparse.ArgumentParser(description=f"Menagerie bot {getattr(bot, 'name', '')}")
    add_connection_args(parser)
    args, _unknown = parser.parse_known_args(argv)
    serve(bot, args)


def serve(bot: Bot, args: argparse.Namespace) -> None:
    """Play with parsed connection flags; errors print one line and exit with status 1.
    With ``--lobby`` (or ``$MENAGERIE_LOBBY``) it waits in the lobby instead
    (:func:`run_lobby`)."""
    if getattr(args, "lobby", None):
        if not args.token:
            print(f"error: lobby mode needs --token (or ${TOKEN_ENV})", file=sys.stderr)
            raise SystemExit(2)
        try:
            run_lobby(bot, args.lobby, args.token, max_games=args.max_games, games=args.games)
        except SdkError as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(1) from None
        return
    if not args.address or not args.credential:
        print(
            f"error: --address and --credential (or ${ADDRESS_ENV}/${CREDENTIAL_ENV}) are needed",
            file=sys.stderr,
        )
        raise SystemExit(2)
    try:
        run(bot, args.address, args.credential)
    except SdkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


__all__ = [
    "Clock",
    "GameResult",
    "LegalMove",
    "LobbyRun",
    "MatchInfo",
    "SdkError",
    "add_connection_args",
    "main",
    "run",
    "run_lobby",
    "serve",
]
