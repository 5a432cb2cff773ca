"""The lobby (``menagerie.v1.LobbyService``): where remote bots wait for matches.

A remote bot opens one ``Lobby`` stream and sends ``Hello{token, ladders, max_games}``;
the lobby asks its :data:`Authenticator` (the ladder's tokens, :mod:`arena.ladder.remote`)
who the token belongs to, answers ``Welcome`` and keeps the bot **online** while the
stream lives and the bot's heartbeats arrive. Whoever schedules matches (the ladder
runner) asks :meth:`Lobby.free` how many more games a bot takes, reserves a slot
(:meth:`Lobby.reserve`), and pushes ``MatchAssigned`` onto the bot's stream
(:meth:`Lobby.assign`); the bot plays the match on an ordinary ``Play`` stream.

The lobby knows nothing about ladders or game servers: it is a registry of online bots
and their streams, thread-safe (the scheduler runs in other threads; the streams on the
game server's event loop). It runs inside a :class:`~arena.server.app.GameServer`
(``extra_handlers=[lobby.handler()]``), so one port serves both services.

**Liveness.** Both sides send a ``Heartbeat`` every ``heartbeat_s``; a stream silent for
``timeout_s`` ends with DEADLINE_EXCEEDED and its bot is offline at once (so it is not
scheduled; what it already plays runs on under the match's failure policy). The token
is authenticated on every ``Hello`` and again every ``recheck_s`` while connected: a
revoked token ends the stream (UNAUTHENTICATED) and is refused on reconnect.

**Reconnect.** A bot is identified by its identity's ``key`` (one bot), not its stream:
a new stream of a bot that is still connected replaces the old one (ended ABORTED), and
its reserved slots carry over, so reconnecting resumes where it stopped.

**Bounds.** At most ``max_sessions`` streams; ``max_games`` over :data:`MAX_GAMES` is
refused (INVALID_ARGUMENT); a stream that sends no ``Hello`` within ``hello_timeout_s`` is closed
(UNAUTHENTICATED); messages over the server's size limit end the stream (gRPC).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from menagerie.v1 import lobby_service_pb2 as lpb

log = logging.getLogger("arena.server.lobby")

SERVICE = "menagerie.v1.LobbyService"
MAX_GAMES = 64
"""The most games at once a bot may ask for."""


class LobbyRefused(Exception):
    """An :data:`Authenticator` refuses a Hello: the stream ends with ``code``."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class LobbyIdentity:
    """Who a valid token belongs to (what an :data:`Authenticator` returns)."""

    key: str
    """Identifies the bot across streams (e.g. ``<ladder>/<bot>``): the presence key."""
    bot: str
    """The bot's name, told back in ``Welcome``."""
    ladders: tuple[str, ...]
    """The ladders it gets matches of (the Hello's, intersected with what it may play)."""
    token_id: int = 0
    """The token's id (for re-checks and logs; never the token)."""
    notes: tuple[str, ...] = ()
    """Warnings sent as in-stream errors after Welcome (e.g. a ladder left out)."""


Authenticator = Callable[[str, Sequence[str]], LobbyIdentity]
"""``(token, ladders asked for) -> identity``; raises :class:`LobbyRefused`. It is called
in a worker thread (it may query a database)."""


@dataclass(frozen=True, slots=True)
class Assignment:
    """One seat of one match for a remote bot (sent as ``MatchAssigned``)."""

    match_id: str
    seat: int
    credential: str
    address: str
    ladder: str
    game: str
    num_players: int
    bot_version: str

    def message(self) -> lpb.LobbyResponse:
        return lpb.LobbyResponse(
            match_assigned=lpb.MatchAssigned(
                match_id=self.match_id,
                seat=self.seat,
                credential=self.credential,
                address=self.address,
                ladder=self.ladder,
                game=self.game,
                num_players=self.num_players,
                bot_version=self.bot_version,
            )
        )


@dataclass(frozen=True, slots=True)
class _Close:
    """Ends a session's stream with a status."""

    code: grpc.StatusCode
    message: str


@dataclass
class _Session:
    """One connected Lobby stream."""

    identity: LobbyIdentity
    max_games: int
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[lpb.LobbyResponse | _Close] = field(default_factory=asyncio.Queue)
    last_seen: float = field(default_factory=time.monotonic)
    connected_at: float = field(default_factory=time.monotonic)

    def send(self, item: lpb.LobbyResponse | _Close) -> None:
        """Queue ``item`` for the stream (from any thread; dropped once the server's
        event loop is closed: the stream is gone then)."""
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)


@dataclass(frozen=True, slots=True)
class Presence:
    """A bot as the scheduler sees it."""

    key: str
    bot: str
    ladders: tuple[str, ...]
    max_games: int
    busy: int
    connected_s: float


class Lobby:
    """The registry of online remote bots and the LobbyService handler (module docstring)."""

    def __init__(
        self,
        authenticate: Authenticator,
        *,
        heartbeat_s: float = 5.0,
        timeout_s: float = 15.0,
        recheck_s: float = 30.0,
        hello_timeout_s: float = 10.0,
        max_sessions: int = 1000,
    ) -> None:
        if timeout_s <= heartbeat_s:
            raise ValueError("the heartbeat timeout must be longer than the interval")
        self.authenticate = authenticate
        self.heartbeat_s = heartbeat_s
        self.timeout_s = timeout_s
        self.recheck_s = recheck_s
        self.hello_timeout_s = hello_timeout_s
        self.max_sessions = max_sessions
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._sessions: dict[str, _Session] = {}
        """Key -> the bot's live session (at most one per bot)."""
        self._busy: dict[str, int] = {}
        """Key -> slots reserved (games assigned and not yet over), kept across reconnects."""
        self._streams = 0
        self.generation = 0
        """Counts the changes (a bot came or went, a slot was freed): a scheduler that saw
        generation g and waits with ``since=g`` returns at once if it moved on."""
        self.closed = False

    # -- the scheduler's side (thread-safe) ----------------------------------------------

    def online(self) -> list[Presence]:
        """The bots online now."""
        now = time.monotonic()
        with self._lock:
            return [
                Presence(
                    key,
                    s.identity.bot,
                    s.identity.ladders,
                    s.max_games,
                    self._busy.get(key, 0),
                    now - s.connected_at,
                )
                for key, s in self._sessions.items()
            ]

    def is_online(self, key: str) -> bool:
        with self._lock:
            return key in self._sessions

    def free(self, key: str) -> int:
        """How many more games the bot takes now (0 when offline)."""
        with self._lock:
            session = self._sessions.get(key)
            return 0 if session is None else max(0, session.max_games - self._busy.get(key, 0))

    def capacity(self, key: str) -> int:
        """The games at once the bot asked for (0 when offline)."""
        with self._lock:
            session = self._sessions.get(key)
            return 0 if session is None else session.max_games

    def reserve(self, key: str) -> bool:
        """Take one of the bot's free slots (False: offline or full)."""
        with self._lock:
            session = self._sessions.get(key)
            if session is None or self._busy.get(key, 0) >= session.max_games:
                return False
            self._busy[key] = self._busy.get(key, 0) + 1
            return True

    def release(self, key: str) -> None:
        """A reserved slot is free again (its game is over, or was never assigned)."""
        with self._changed:
            left = self._busy.get(key, 0) - 1
            if left > 0:
                self._busy[key] = left
            else:
                self._busy.pop(key, None)
            self.generation += 1
            self._changed.notify_all()

    def assign(self, key: str, assignment: Assignment) -> bool:
        """Send ``MatchAssigned`` to the bot (False: it is offline now)."""
        with self._lock:
            session = self._sessions.get(key)
        if session is None:
            return False
        session.send(assignment.message())
        return True

    def wait_online(self, key: str, timeout_s: float) -> bool:
        """Wait until the bot is online (tests, ``arena bot check --lobby``)."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while key not in self._sessions:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    def wait_change(self, timeout_s: float, since: int | None = None) -> None:
        """Block until a bot comes, goes or frees a slot (or the timeout); at once if
        the :attr:`generation` is no longer ``since``."""
        with self._changed:
            if since is None or since == self.generation:
                self._changed.wait(timeout_s)

    def close(self) -> None:
        """End every stream (UNAVAILABLE) and refuse new ones."""
        with self._lock:
            self.closed = True
            sessions = list(self._sessions.values())
        for s in sessions:
            s.send(_Close(grpc.StatusCode.UNAVAILABLE, "the lobby is shutting down"))

    # -- the stream -----------------------------------------------------------------------

    def handler(self) -> grpc.GenericRpcHandler:
        """The generic handler to pass to ``GameServer(extra_handlers=...)``."""
        methods: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
            "Lobby": grpc.stream_stream_rpc_method_handler(
                self._lobby,
                request_deserializer=None,  # parsed here: garbage gets a clear status
                response_serializer=lpb.LobbyResponse.SerializeToString,
            )
        }
        return grpc.method_handlers_generic_handler(SERVICE, methods)

    async def _lobby(
        self, request_iterator: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        refusal: tuple[grpc.StatusCode, str] | None = None
        with self._lock:  # never held across an await: other threads take it too
            if self.closed:
                refusal = (grpc.StatusCode.UNAVAILABLE, "the lobby is shutting down")
            elif self._streams >= self.max_sessions:
                refusal = (
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"the lobby holds its maximum of {self.max_sessions} streams",
                )
            else:
                self._streams += 1
        if refusal is not None:
            await context.abort(*refusal)
        try:
            await self._serve(context)
        finally:
            with self._lock:
                self._streams -= 1

    async def _serve(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        hello = await self._hello(context)
        try:
            identity = await asyncio.to_thread(self.authenticate, hello.token, list(hello.ladders))
        except LobbyRefused as exc:
            await context.abort(exc.code, exc.message)
        wanted = hello.max_games or 1
        if wanted > MAX_GAMES:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"max_games {wanted}: at most {MAX_GAMES} games at once",
            )
        session = _Session(identity, wanted, asyncio.get_running_loop())
        self._attach(session)
        reader = asyncio.create_task(self._read(context, session))
        try:
            await context.write(
                lpb.LobbyResponse(
                    welcome=lpb.Welcome(
                        bot=identity.bot,
                        ladders=list(identity.ladders),
                        max_games=wanted,
                        heartbeat_interval_ms=int(self.heartbeat_s * 1000),
                        heartbeat_timeout_ms=int(self.timeout_s * 1000),
                    )
                )
            )
            for note in identity.notes:
                await context.write(
                    lpb.LobbyResponse(
                        error=lpb.LobbyError(
                            code=lpb.LOBBY_ERROR_CODE_FAILED_PRECONDITION, message=note
                        )
                    )
                )
            await self._write_loop(context, session, hello.token)
        finally:
            reader.cancel()
            self._detach(session)

    async def _hello(self, context: grpc.aio.ServicerContext[Any, Any]) -> lpb.Hello:
        try:
            first = await asyncio.wait_for(context.read(), self.hello_timeout_s)
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"no Hello within {self.hello_timeout_s:g} s of opening the stream",
            )
        if first is grpc.aio.EOF:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the stream ended before Hello")
        try:
            request = lpb.LobbyRequest.FromString(first)
        except DecodeError:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "malformed message: not a LobbyRequest"
            )
        if request.WhichOneof("message") != "hello":
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED, "the first message must be a Hello with the token"
            )
        if not request.hello.token:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the Hello carries no token")
        return request.hello

    async def _write_loop(
        self, context: grpc.aio.ServicerContext[Any, Any], session: _Session, token: str
    ) -> None:
        next_check = time.monotonic() + self.recheck_s
        while True:
            try:
                item = await asyncio.wait_for(session.queue.get(), self.heartbeat_s)
            except TimeoutError:
                item = lpb.LobbyResponse(
                    heartbeat=lpb.Heartbeat(sent_at_ms=int(time.time() * 1000))
                )
            if isinstance(item, _Close):
                if item.code == grpc.StatusCode.OK:
                    return
                await self._end(context, session, item.code, item.message)
            await context.write(item)
            now = time.monotonic()
            if now - session.last_seen > self.timeout_s:
                await self._end(
                    context,
                    session,
                    grpc.StatusCode.DEADLINE_EXCEEDED,
                    f"no message from the bot for {self.timeout_s:g} s (send a Heartbeat "
                    f"every {self.heartbeat_s:g} s)",
                )
            if now >= next_check:
                next_check = now + self.recheck_s
                try:
                    await asyncio.to_thread(
                        self.authenticate, token, list(session.identity.ladders)
                    )
                except LobbyRefused as exc:
                    await self._end(context, session, exc.code, exc.message)

    async def _end(
        self,
        context: grpc.aio.ServicerContext[Any, Any],
        session: _Session,
        code: grpc.StatusCode,
        message: str,
    ) -> None:
        """The bot is offline before its client hears the status (no window in which a
        refused bot could still be scheduled)."""
        self._detach(session)
        await context.abort(code, message)

    async def _read(self, context: grpc.aio.ServicerContext[Any, Any], session: _Session) -> None:
        """Heartbeats (and anything else) keep the session alive; the end of the stream
        ends the session."""
        try:
            while True:
                raw = await context.read()
                if raw is grpc.aio.EOF:
                    session.send(_Close(grpc.StatusCode.OK, "the bot closed the stream"))
                    return
                session.last_seen = time.monotonic()
                try:
                    kind = lpb.LobbyRequest.FromString(raw).WhichOneof("message")
                except DecodeError:
                    kind = None
                if kind != "heartbeat":
                    session.send(
                        lpb.LobbyResponse(
                            error=lpb.LobbyError(
                                code=lpb.LOBBY_ERROR_CODE_INVALID_ARGUMENT,
                                message=f"ignored: expected a Heartbeat, got {kind or 'garbage'}",
                            )
                        )
                    )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the stream broke: the writer ends the session
            session.send(_Close(grpc.StatusCode.CANCELLED, f"the stream broke: {exc}"))

    def _attach(self, session: _Session) -> None:
        key = session.identity.key
        with self._changed:
            old = self._sessions.get(key)
            self._sessions[key] = session
            self.generation += 1
            self._changed.notify_all()
        if old is not None:
            old.send(_Close(grpc.StatusCode.ABORTED, "the bot connected again on a newer stream"))
        log.info("lobby: %s online (%d games at once)", session.identity.bot, session.max_games)

    def _detach(self, session: _Session) -> None:
        key = session.identity.key
        with self._changed:
            if self._sessions.get(key) is session:
                del self._sessions[key]
                log.info("lobby: %s offline", session.identity.bot)
            self.generation += 1
            self._changed.notify_all()
