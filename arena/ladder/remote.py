"""Ladder matches with remote bots: the lobby's ladder side, game-server placement, play.

``arena ladder run LADDER --serve HOST:PORT`` starts a game server in the runner's
process with the lobby (:class:`arena.server.lobby.Lobby`) on the same port. Remote bots
connect to it with their tokens (:mod:`arena.ladder.tokens`; :class:`TokenAuthenticator`
checks them), and the runner (:class:`arena.ladder.runner.LadderRunner`) then

1. **schedules** a remote version only while its bot is online with a free slot
   (:meth:`RemoteMatches.schedulable`: its games in flight, waiting or playing, below
   the bot's ``max_games``), beside the hosted versions, in the same picks;
2. hands every match with a remote seat to :meth:`RemoteMatches.submit`, which plays it
   in a thread of its own:

   - it waits until every remote seat's bot has a free slot and reserves them (a bot
     that stays offline for ``offline_wait_s`` gives the match up: the runner voids it);
   - it **places** the match on the least-loaded game server (:class:`ServerPool`: the
     runner's own, or the ``--game-server`` processes, by the matches it has placed on
     each and not yet collected; ties go round-robin) with the ``CreateMatch`` RPC and
     the admin token;
   - it sends each remote seat ``MatchAssigned{match_id, seat, credential, address}``
     on its bot's lobby stream, and plays the **hosted** seats as clients of that match:
     a ``cmd:`` program is started with ``--address``/``--credential`` as in any match
     (:class:`arena.match.cmdbots.BotProcess`), an in-process bot plays through the SDK
     on states rebuilt from its observation (:class:`bots.ismcts_client.WireSearchBot`,
     exactly as ``python -m bots.ismcts_client`` does);
   - it polls ``GetMatch`` until the match is over and hands the record back
     (a :class:`~arena.tournament.ray_runner.BatchResult`, as a Ray task would);

3. appends each record to the ladder's records file and only then commits its result,
   exactly once: the same code as for hosted matches (the runner drains
   :attr:`RemoteMatches.results` on its own thread).

A remote bot that never joins its seat is disconnected by the game server after its
join timeout and the ladder's failure policy applies; the game is counted like any
other (a forfeit under ``forfeit``). A match that could not be placed or was aborted is
voided, never counted.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import logging
import os
import queue
import secrets
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

from arena.ladder.errors import LadderError
from arena.ladder.store import LadderStore
from arena.ladder.tokens import Tokens
from arena.ladder.views import LadderInfo, VersionInfo
from arena.match.records import dumps_line
from arena.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from arena.server.lobby import SERVICE as LOBBY_SERVICE
from arena.server.lobby import Assignment, Lobby, LobbyIdentity, LobbyRefused
from arena.tournament.ratings import GameSummary
from arena.tournament.ray_runner import BatchResult
from arena.tournament.schedule import ScheduledGame

log = logging.getLogger("arena.ladder.remote")

POLL_S = 0.1
"""How often a match's status is asked for while it is played."""
OFFLINE_WAIT_S = 60.0
"""How long a match waits for an offline remote bot before it is given up (voided)."""
MAX_MATCH_S = 3600.0
"""A match not over this long after it was placed is abandoned (voided): a safety net."""
RPC_TIMEOUT_S = 10.0


def bot_key(ladder: str, bot: str) -> str:
    """The lobby's presence key of a bot: one per bot on its ladder."""
    return f"{ladder}/{bot}"


class TokenAuthenticator:
    """The lobby's :data:`~arena.server.lobby.Authenticator` over the ladder's tokens."""

    def __init__(self, store: LadderStore, ladders: Sequence[str]) -> None:
        self.tokens = Tokens(store)
        self.store = store
        self.ladders = tuple(ladders)

    def __call__(self, token: str, wanted: Sequence[str]) -> LobbyIdentity:
        owner = self.tokens.lookup(token)
        if owner is None:
            raise LobbyRefused(grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked bot token")
        if wanted and owner.ladder not in wanted:
            raise LobbyRefused(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the token is for bot {owner.bot} on ladder {owner.ladder}, which Hello.ladders "
                f"({', '.join(wanted)}) leaves out",
            )
        if owner.ladder not in self.ladders:
            raise LobbyRefused(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"this lobby serves ladder(s) {', '.join(self.ladders)}, not {owner.ladder} "
                f"(the ladder of bot {owner.bot}'s token)",
            )
        notes: tuple[str, ...] = ()
        active = self.store.versions(owner.ladder, bot=owner.bot, statuses=["active"])
        if not any(v.kind == "remote" for v in active):
            notes = (
                f"bot {owner.bot} has no active remote version on ladder {owner.ladder}: it "
                f"gets no matches (arena ladder submit {owner.ladder} --name {owner.bot} --remote)",
            )
        return LobbyIdentity(
            bot_key(owner.ladder, owner.bot),
            owner.bot,
            (owner.ladder,),
            token_id=owner.token_id,
            notes=notes,
        )


@dataclass
class GameServerSlot:
    """One game server the ladder places matches on."""

    address: str
    stub: pb_grpc.GameServiceStub
    channel: grpc.Channel
    load: int = 0
    """Matches placed here and not yet collected."""
    placed: int = 0
    """Matches placed here in total."""


class ServerPool:
    """The game servers (addresses) matches are placed on, least-loaded first."""

    def __init__(self, addresses: Sequence[str], admin_token: str) -> None:
        if not addresses:
            raise LadderError("remote matches need at least one game server address")
        self.admin_token = admin_token
        self._lock = threading.Lock()
        self._turn = itertools.count()
        self.servers = [
            GameServerSlot(a, pb_grpc.GameServiceStub(ch), ch)
            for a in addresses
            for ch in [
                grpc.insecure_channel(a, options=[("grpc.max_receive_message_length", 64 << 20)])
            ]
        ]

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.admin_token}"),) if self.admin_token else ()

    def take(self) -> GameServerSlot:
        """The least-loaded server (ties round-robin), its load counted."""
        with self._lock:
            low = min(s.load for s in self.servers)
            tied = [s for s in self.servers if s.load == low]
            slot = tied[next(self._turn) % len(tied)]
            slot.load += 1
            slot.placed += 1
            return slot

    def give_back(self, slot: GameServerSlot) -> None:
        with self._lock:
            slot.load -= 1

    def close(self) -> None:
        for s in self.servers:
            s.channel.close()


class _GaveBack(Exception):
    """The runner stopped before the match could start (it is re-queued, not voided)."""


@dataclass
class _Job:
    """One match with a remote seat, from submission to result."""

    game: ScheduledGame
    remote: dict[int, str]
    """Seat -> bot key of each remote seat."""
    versions: dict[int, str]
    """Seat -> version label."""
    reserved: list[str] = field(default_factory=list)


class RemoteMatches:
    """Plays the ladder's matches that have remote seats (see the module docstring)."""

    def __init__(
        self,
        lobby: Lobby,
        pool: ServerPool,
        *,
        offline_wait_s: float = OFFLINE_WAIT_S,
        max_match_s: float = MAX_MATCH_S,
        log_line: Callable[[str], None] | None = None,
    ) -> None:
        self.lobby = lobby
        self.pool = pool
        self.sandbox: SandboxLimits = DEFAULT_LIMITS
        """Limits of the sandbox hosted programs run in (the runner sets its own)."""
        self.offline_wait_s = offline_wait_s
        self.max_match_s = max_match_s
        self.log = log_line or log.info
        self.results: queue.SimpleQueue[BatchResult] = queue.SimpleQueue()
        """Finished jobs, drained by the runner on its thread."""
        self._lock = threading.Lock()
        self._outstanding: dict[str, int] = {}
        """Bot key -> its matches submitted and not yet over (waiting or playing)."""
        self._threads: dict[str, threading.Thread] = {}
        self._arrived = threading.Event()
        self._seen = -1
        """The lobby generation the last scheduling decision saw."""
        self.halt = threading.Event()
        """Set when the runner stops: jobs still waiting for a slot give their match back
        (the runner re-queues it); matches already placed play to the end."""

    # -- the runner's side --------------------------------------------------------------

    def schedulable(self, version: VersionInfo, picked: int = 0) -> bool:
        """May matchmaking pick this remote version now: online, with a slot to spare
        beyond its matches in flight and ``picked`` more not yet submitted?"""
        key = bot_key(version.ladder, version.bot)
        self._seen = self.lobby.generation  # what the runner's picks were made on
        with self._lock:
            outstanding = self._outstanding.get(key, 0)
        return self.lobby.capacity(key) > outstanding + picked

    @property
    def in_flight(self) -> int:
        with self._lock:
            return len(self._threads)

    def submit(
        self, ladder: LadderInfo, game: ScheduledGame, versions: Sequence[VersionInfo]
    ) -> None:
        """Play ``game`` (seats ``versions``) in a thread; its result goes to :attr:`results`."""
        job = _Job(
            game,
            {s: bot_key(v.ladder, v.bot) for s, v in enumerate(versions) if v.kind == "remote"},
            {s: v.label for s, v in enumerate(versions)},
        )
        thread = threading.Thread(
            target=self._run, args=(ladder, job), name=f"remote-{game.game_id}", daemon=True
        )
        with self._lock:
            for key in job.remote.values():
                self._outstanding[key] = self._outstanding.get(key, 0) + 1
            self._threads[game.game_id] = thread
        thread.start()

    def wait(self, timeout_s: float) -> None:
        """Block until a result arrives or a bot comes, goes or frees a slot (or timeout)."""
        if self._arrived.wait(min(timeout_s, 0.05)):
            self._arrived.clear()
            return
        self.lobby.wait_change(timeout_s, since=self._seen)
        self._arrived.clear()

    def join(self, timeout_s: float) -> bool:
        """Wait for every job to end (True) or the timeout (False)."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                threads = list(self._threads.values())
            if not threads:
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            threads[0].join(left)

    # -- one job ----------------------------------------------------------------------------

    def _run(self, ladder: LadderInfo, job: _Job) -> None:
        out = BatchResult(pid=os.getpid())
        started = time.perf_counter()
        try:
            record = self._play(ladder, job)
            out.summaries.append(GameSummary.of(record))
            out.lines.append((job.game.game_id, dumps_line(record)))
        except _GaveBack:
            pass  # not started: the runner puts it back in the queue when it stops
        except Exception as exc:  # a problem of this match only: void it, go on
            out.errors.append((job.game.game_id, f"{type(exc).__name__}: {exc}"))
        finally:
            for key in job.reserved:
                self.lobby.release(key)
            out.game_seconds = time.perf_counter() - started
            with self._lock:
                for key in job.remote.values():
                    left = self._outstanding.get(key, 1) - 1
                    if left > 0:
                        self._outstanding[key] = left
                    else:
                        self._outstanding.pop(key, None)
                self._threads.pop(job.game.game_id, None)
            self.results.put(out)
            self._arrived.set()

    def _reserve(self, job: _Job) -> None:
        """Reserve one slot of every remote seat's bot, all or none, waiting for them."""
        keys = list(job.remote.values())
        offline_since: float | None = None
        while not self.halt.is_set():
            taken: list[str] = []
            for key in keys:
                if not self.lobby.reserve(key):
                    break
                taken.append(key)
            if len(taken) == len(keys):
                job.reserved = taken
                return
            for key in taken:
                self.lobby.release(key)
            offline = [k for k in keys if not self.lobby.is_online(k)]
            now = time.monotonic()
            if offline:
                offline_since = offline_since or now
                if now - offline_since > self.offline_wait_s:
                    raise LadderError(
                        f"remote bot(s) {', '.join(offline)} offline for {self.offline_wait_s:g} s"
                    )
            else:
                offline_since = None
            self.lobby.wait_change(1.0)
        raise _GaveBack

    def _play(self, ladder: LadderInfo, job: _Job) -> dict[str, Any]:
        from arena.match.specs import is_cmd

        game = job.game
        self._reserve(job)
        slot = self.pool.take()
        try:
            created = slot.stub.CreateMatch(
                pb.CreateMatchRequest(
                    game=ladder.game,
                    num_players=ladder.players,
                    options_json=json.dumps(ladder.options),
                    seed=game.seed,
                    time_limit_ms=ladder.move_ms or 0,
                    on_failure=pb.FAILURE_POLICY_RANDOM
                    if ladder.failure_policy == "random"
                    else pb.FAILURE_POLICY_FORFEIT,
                    player_names=list(game.seats),
                ),
                metadata=self.pool.metadata,
                timeout=RPC_TIMEOUT_S,
            )
            credentials = {c.seat: c.credential for c in created.seats}
            for seat, key in job.remote.items():
                sent = self.lobby.assign(
                    key,
                    Assignment(
                        match_id=created.match_id,
                        seat=seat,
                        credential=credentials[seat],
                        address=slot.address,
                        ladder=ladder.name,
                        game=ladder.game,
                        num_players=ladder.players,
                        bot_version=job.versions[seat],
                    ),
                )
                if not sent:
                    self.log(f"warning: {job.versions[seat]} went offline before its match")
            hosted = _HostedSeats(slot.address, created.match_id, ladder.game, self.sandbox)
            try:
                for seat, spec in enumerate(game.specs):
                    if seat in job.remote:
                        continue
                    if is_cmd(spec):
                        hosted.start_program(seat, spec, credentials[seat])
                    else:
                        hosted.start_in_process(seat, spec, game.seats[seat], credentials[seat])
                record = self._collect(slot, created.match_id)
            finally:
                hosted.stop()
            hosted.add_events(record)
        finally:
            self.pool.give_back(slot)
        if record.get("aborted"):
            raise LadderError(f"the match was aborted: {record.get('reason')}")
        record["game_id"] = game.game_id
        record["tournament_id"] = f"ladder:{ladder.name}"
        record["match_id"] = game.match_id
        record["schedule"] = {"round": game.round, "group": game.group, "rotation": game.rotation}
        record["server"] = {"address": slot.address, "match_id": created.match_id}
        return record

    def _collect(self, slot: GameServerSlot, match_id: str) -> dict[str, Any]:
        """Poll GetMatch until the match is over; its record."""
        deadline = time.monotonic() + self.max_match_s
        over = (pb.MATCH_STATUS_FINISHED, pb.MATCH_STATUS_ABORTED)
        while time.monotonic() < deadline:
            reply = slot.stub.GetMatch(
                pb.GetMatchRequest(match_id=match_id),
                metadata=self.pool.metadata,
                timeout=RPC_TIMEOUT_S,
            )
            if reply.status in over and reply.record_json:
                record: dict[str, Any] = json.loads(reply.record_json)
                return record
            time.sleep(POLL_S)
        raise LadderError(
            f"match {match_id} on {slot.address} not over after {self.max_match_s:g} s"
        )


@functools.cache
def _quiet_client_class() -> type[Any]:
    from bots import sdk
    from bots.ismcts_client import WireSearchBot

    class QuietClient(WireSearchBot):
        """A hosted seat's client: its end-of-game line would only clutter the runner's log."""

        def on_game_over(self, result: sdk.GameResult) -> None:
            pass

    return QuietClient


class _HostedSeats:
    """The hosted seats of a remote match, played as clients of its game server."""

    def __init__(self, address: str, match_id: str, game: str, limits: SandboxLimits) -> None:
        self.address = address
        self.match_id = match_id
        self.game = game
        self.limits = limits
        self.relays: list[Any] = []
        """Unix-socket relays to the game server, one per sandboxed program."""
        self.processes: list[Any] = []
        self.threads: list[threading.Thread] = []
        self.errors: list[tuple[int, str]] = []

    def start_program(self, seat: int, spec: str, credential: str) -> None:
        """A hosted program as a client of the match, in the sandbox (as every ``cmd:``
        bot): it has no network, so it reaches the game server through a Unix-socket
        relay (:class:`arena.sandbox.relay.UnixRelay`)."""
        from arena.match.cmdbots import start_program
        from arena.match.specs import resolve_command
        from arena.sandbox import sandbox_for, socket_path
        from arena.sandbox.relay import UnixRelay

        argv = resolve_command(spec)
        sandboxed = sandbox_for(self.limits)  # SandboxUnavailable unless allowed
        address = self.address
        if sandboxed:
            path = socket_path()
            assert path is not None  # the sandbox is usable
            relay = UnixRelay(path, self.address)
            self.relays.append(relay)
            address = relay.address
        self.processes.append(
            start_program(seat, spec, argv, address, credential, self.game, self.limits, sandboxed)
        )

    def start_in_process(self, seat: int, spec: str, name: str, credential: str) -> None:
        from arena.match.specs import make_bot
        from bots import sdk

        client = _quiet_client_class()(make_bot(spec, name), spec)

        def play() -> None:
            try:
                sdk.run(client, self.address, credential, name=name)
            except Exception as exc:  # the seat is disconnected; the record says so
                self.errors.append((seat, f"{type(exc).__name__}: {exc}"))

        thread = threading.Thread(target=play, name=f"hosted-{self.match_id}-{seat}", daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self) -> None:
        """Every program killed and reaped, every client thread joined (bounded)."""
        from arena.match.cmdbots import EXIT_GRACE_S

        deadline = time.monotonic() + EXIT_GRACE_S
        for p in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.proc.wait(max(0.0, deadline - time.monotonic()))
            p.kill("still running after the match")
            p.reap()
        for t in self.threads:
            t.join(max(0.1, deadline - time.monotonic()))
        for relay in self.relays:
            relay.close()

    def add_events(self, record: dict[str, Any]) -> None:
        """The programs' stderr tails and the in-process clients' errors, as events."""
        from arena.match.cmdbots import STDERR_TAIL

        steps = len(record.get("steps", []))
        events = record.setdefault("events", [])
        for p in self.processes:
            tail = p.tail().strip()
            if tail:
                events.append(
                    {
                        "step": steps,
                        "seat": p.seat,
                        "kind": "stderr",
                        "reason": f"{p.exit_info()}; last {STDERR_TAIL} bytes of stderr:\n{tail}",
                    }
                )
        for seat, why in self.errors:
            events.append({"step": steps, "seat": seat, "kind": "stderr", "reason": why})


@dataclass(frozen=True, slots=True)
class LobbySettings:
    """How ``arena ladder run --serve`` hosts the lobby and places matches."""

    serve: str
    """HOST:PORT of the runner's game server and lobby (port 0: a free one)."""
    game_servers: tuple[str, ...] = ()
    """Game servers (``arena serve``) to place matches on; empty: the runner's own."""
    admin_token: str = ""
    """The game servers' admin token (CreateMatch, GetMatch); the runner's own server gets
    this one, or a fresh random one when empty."""
    advertise: str = ""
    """The address bots are told for the runner's own server (default: ``serve``, with a
    wildcard host as 127.0.0.1)."""
    heartbeat_s: float = 5.0
    timeout_s: float = 15.0
    recheck_s: float = 30.0
    offline_wait_s: float = OFFLINE_WAIT_S
    join_timeout_s: float = 30.0
    """The runner's own game server: how long a seat may take to join its match."""


def split_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port), with a clear error.

    >>> split_address("127.0.0.1:50051"), split_address("[::1]:0")
    (('127.0.0.1', 50051), ('::1', 0))
    """
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise LadderError(f"{text!r}: expected HOST:PORT")
    return host.strip("[]") or "127.0.0.1", int(port)


@dataclass
class LobbyHost:
    """The runner's game server with the lobby, and the matches it places."""

    server: Any
    """The :class:`~arena.server.app.GameServer` (the lobby is one of its services)."""
    lobby: Lobby
    matches: RemoteMatches
    address: str
    """Where bots reach the lobby (and the runner's own game server)."""


@contextlib.contextmanager
def host_lobby(
    store: LadderStore,
    ladders: Sequence[str],
    settings: LobbySettings,
    log_line: Callable[[str], None] | None = None,
) -> Iterator[LobbyHost]:
    """Start the game server with the lobby at ``settings.serve``; stop it at the end
    (every lobby stream ended UNAVAILABLE, so the bots reconnect to the next runner)."""
    from arena.server.app import GameServer
    from arena.server.hub import ServerConfig

    host, port = split_address(settings.serve)
    for address in settings.game_servers:
        split_address(address)
    lobby = Lobby(
        TokenAuthenticator(store, ladders),
        heartbeat_s=settings.heartbeat_s,
        timeout_s=settings.timeout_s,
        recheck_s=settings.recheck_s,
    )
    own_token = settings.admin_token or secrets.token_hex(16)
    config = ServerConfig(admin_token=own_token, join_timeout_s=settings.join_timeout_s)
    server = GameServer(config, extra_handlers=[lobby.handler()], reflect=[LOBBY_SERVICE])
    server.start(host, port)
    wildcard = host in ("0.0.0.0", "::", "")
    address = settings.advertise or f"{'127.0.0.1' if wildcard else host}:{server.port}"
    pool = (
        ServerPool(settings.game_servers, settings.admin_token)
        if settings.game_servers
        else ServerPool([address], own_token)
    )
    matches = RemoteMatches(lobby, pool, offline_wait_s=settings.offline_wait_s, log_line=log_line)
    try:
        yield LobbyHost(server, lobby, matches, address)
    finally:
        matches.halt.set()
        lobby.close()
        try:
            server.stop(grace_s=2.0)
        finally:
            pool.close()
