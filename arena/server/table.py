"""``Table``: one match on the game server — its seats, credentials and spectators.

Whoever drives a table (``arena.server.hub.drive``) calls ``table.run`` in a thread of
its own (the match thread), then ``table.finish(record)`` (or ``table.abort``). The game
server drives the tables it hosts (CreateMatch) in threads; ``arena play`` and the
arena's workers drive their own through :mod:`arena.match.cmdbots`. (``arena.match.play_match``
with ``table.bots`` also works, without the inline continuation below.)

``run`` plays ``arena.match.match_steps``. A good move of a remote seat is applied in
the thread that received it (the server's event loop), under the table's turn lock:
that thread advances the match and, when the next turn is a connected remote seat's,
sends it right away. So the hot path of a move exchange has no thread handoff; the
match thread only waits for deadlines and for what it is handed back (failures,
in-process bots' turns, the end).
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, cast

import grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.match.records import CHANCE_SEAT
from arena.match.runner import (
    Bot,
    BotFailure,
    MatchConfig,
    MatchSpec,
    MatchSteps,
    StepHook,
    Turn,
    ask,
    match_steps,
    record_head,
    seat_seed,
    timed,
)
from arena.server.messages import POLICIES, game_over_message, options_json, turn_encoder
from arena.server.seats import (
    ANSWER,
    DONE,
    ERROR,
    FAILED,
    MOVE,
    TURN,
    Handback,
    Pending,
    RemoteSeat,
)
from arena.server.streams import Outbox
from arena.server.timing import MoveTimes
from engine import CHANCE, Action, State, get_game
from engine.core import JSON
from wire.convert import observation_to_proto

WAITING = pb.MATCH_STATUS_WAITING
RUNNING = pb.MATCH_STATUS_RUNNING
FINISHED = pb.MATCH_STATUS_FINISHED
ABORTED = pb.MATCH_STATUS_ABORTED


_CREATION_ORDER = itertools.count()
"""Numbers the tables of this process in creation order (``Table.order``)."""


class MatchAborted(Exception):
    """Raised from ``on_step`` to stop a match the server is aborting."""


class Table:
    """One match: seats (in-process bots or remote seats), credentials, spectators."""

    def __init__(
        self,
        match_id: str,
        spec: MatchSpec,
        config: MatchConfig,
        names: Sequence[str],
        remote: Sequence[bool],
        *,
        margin_ms: float,
        stall_ms: float,
        join_timeout_s: float,
        rejoin_grace_s: float = 0.0,
        in_process: Mapping[int, Bot] | None = None,
        busy: threading.Semaphore | None = None,
    ) -> None:
        self.match_id = match_id
        self.spec = spec
        self.game = get_game(spec.game)
        self.move_ms = config.move_ms
        self.policy = config.on_failure
        self.margin_ms = margin_ms
        self.stall_s = stall_ms / 1000
        self.join_timeout_s = join_timeout_s
        self.rejoin_grace_s = rejoin_grace_s
        self._busy: AbstractContextManager[Any] = busy or contextlib.nullcontext()
        """Held by the match thread while it advances the match (the server's bound on
        match threads computing at once, ``ServerConfig.max_busy_matches``)."""
        """How long a seat whose stream broke may take to rejoin (``ServerConfig``)."""
        self.clock_s = None if config.move_ms is None else (config.move_ms + margin_ms) / 1000
        self.wait_s = self.stall_s if self.clock_s is None else min(self.clock_s, self.stall_s)
        """How long a pending turn waits for its answer (the clock, or the stall limit)."""
        self.names = list(names)
        self.created = time.monotonic()
        self.created_ns = time.time_ns()
        """When the table was made, on the wall clock (ListMatches' ``created``)."""
        self.order = next(_CREATION_ORDER)
        """Unique and increasing in creation order in this process: ListMatches' order and
        page token (two tables may share a clock reading)."""
        self.status = WAITING
        self.record: dict[str, Any] | None = None
        self.abort_reason = ""
        self.aborting = False
        self.done = threading.Event()
        self._seq = itertools.count(1)
        self._lock = threading.Lock()
        self.turn_lock = threading.Lock()
        """Guards the pending turn of every seat, and the match while a thread advances it."""
        self._handed_back = threading.Condition(self.turn_lock)
        self._handback: Handback | None = None
        self.current: Pending | None = None
        """The pending turn (of some remote seat), if any."""
        self._steps: MatchSteps | None = None
        self._config = self.match_config
        self._turns = turn_encoder(self.game.id)
        self._watchers: dict[Outbox, int | None] = {}
        """Watch streams -> the seat whose view each gets (None: the public view)."""
        self.seats: list[RemoteSeat | None] = []
        self.credentials: dict[int, str] = {}
        bots: list[Bot | None] = []
        for s, (name, is_remote) in enumerate(zip(self.names, remote, strict=True)):
            if is_remote:
                seat = RemoteSeat(self, s, name)
                self.seats.append(seat)
                self.credentials[s] = secrets.token_hex(24)  # hex: safe as a command-line argument
                bots.append(seat)
            else:
                self.seats.append(None)
                bots.append((in_process or {}).get(s))
        self._bots = bots
        self.last_state: State | None = None
        self.on_seated: Callable[[], None] | None = None
        """Called once, in the thread of the last first Join, when every remote seat has
        joined (the game server starts driving a hosted match then, not before)."""
        self._seated_fired = False
        self._claimed = False
        self.move_times: MoveTimes | None = None
        """The server's per-move timings when it keeps them (``arena bench grpc``; set by
        the Play handler): the inline path adds its step and Turn times."""
        self.on_turn: Callable[[int, int, dict[str, Any]], None] | None = None
        """Test hook: called with (sequence, seat, observation JSON) for every Turn sent."""

    # -- what the driver of the match uses ---------------------------------------

    @property
    def bots(self) -> list[Bot]:
        """One Bot per seat (remote seats are RemoteSeat adapters)."""
        missing = [s for s, b in enumerate(self._bots) if b is None]
        if missing:
            raise ValueError(f"seats {missing} have neither a remote bot nor an in-process bot")
        return [b for b in self._bots if b is not None]

    @property
    def match_config(self) -> MatchConfig:
        """The config for play_match: the move clock includes the server's margin."""
        move_ms = None if self.move_ms is None else self.move_ms + self.margin_ms
        return MatchConfig(move_ms=move_ms, on_failure=self.policy)

    def all_joined(self) -> bool:
        """Whether every remote seat has joined at least once."""
        return all(seat is None or seat.ever_joined for seat in self.seats)

    def seat_joined(self) -> None:
        """A seat joined for the first time (any thread, no lock held): fire ``on_seated``
        once every remote seat has."""
        with self._lock:
            fire = self.on_seated is not None and not self._seated_fired and self.all_joined()
            if fire:
                self._seated_fired = True
        if fire:
            assert self.on_seated is not None
            self.on_seated()

    def claim_start(self) -> bool:
        """True once: whoever gets it drives (or aborts) the hosted match — the last Join,
        the join timeout or the shutdown, whichever comes first."""
        with self._lock:
            if self._claimed:
                return False
            self._claimed = True
            return True

    def wait_for_seats(self) -> None:
        """Wait until every remote seat has joined (or gone, or the join timeout passed),
        so that no move clock runs while a bot is still starting."""
        deadline = self.created + self.join_timeout_s
        for seat in self.seats:
            if seat is not None:
                seat.wait_joined(deadline)
        self.status = RUNNING

    def run(self, on_step: StepHook | None = None, inline: bool = True) -> dict[str, Any]:
        """Play the match (in the match thread) and return its record; raises what the
        match raised (MatchAborted from ``on_step``, a crash). ``inline``: good moves of
        remote seats advance the match in the thread that received them."""
        config = self._config
        bots = self.bots
        steps = match_steps(self.spec, bots, config, on_step)
        if inline:
            self._steps = steps
        try:
            with self._busy:
                turn = next(steps)
            while True:
                bot = bots[turn.seat]
                if isinstance(bot, RemoteSeat):
                    kind, value = bot.play_turn(turn)
                else:
                    kind, value = ANSWER, ask(bot, turn, config)
                if kind == TURN:
                    turn = value
                elif kind == MOVE:
                    action, ms = value
                    with self._busy:
                        turn = steps.send(timed(action, ms, config))
                elif kind == ANSWER:
                    with self._busy:  # (a forfeited seat's moves are played in this send)
                        turn = steps.send(value)
                elif kind == DONE:
                    return cast(dict[str, Any], value)  # a DONE handback holds the record
                else:
                    assert kind == ERROR, kind
                    raise value
        except StopIteration as done:
            return cast(dict[str, Any], done.value)  # the record: MatchSteps' return value
        finally:
            self._steps = None

    def answered_locked(self, pending: Pending, action: Action) -> None:
        """A good move answered ``pending`` (turn lock held, the receiving thread): advance
        the match here and send the next turn if it is a connected remote seat's; hand
        back to the match thread whatever else comes next."""
        self.current = None
        ms = (time.perf_counter() - pending.started) * 1000
        steps = self._steps
        if steps is None:
            self.hand_back_locked((MOVE, (action, ms)))
            return
        started = time.perf_counter()
        try:
            turn = steps.send(timed(action, ms, self._config))
        except StopIteration as done:
            self.hand_back_locked((DONE, done.value))
            return
        except Exception as exc:  # MatchAborted, or a crash: the match thread raises it
            self.hand_back_locked((ERROR, exc))
            return
        times = self.move_times
        stepped = time.perf_counter() if times is not None else 0.0
        seat = self.seats[turn.seat]
        if seat is None or not seat.can_issue_locked() or not seat.issue_locked(turn, started):
            self.hand_back_locked((TURN, turn))
        elif times is not None:
            times.advanced(self.match_id, started, stepped, time.perf_counter())

    def seat_lost_locked(self) -> None:
        """A seat's stream broke (turn lock held): the match thread recomputes its wait
        (the rejoin grace may end before the pending turn's clock)."""
        self._handed_back.notify()

    def hand_back_locked(self, handback: Handback) -> None:
        """Wake the match thread with ``handback`` (turn lock held)."""
        if handback[0] == FAILED:
            self.current = None
        self._handback = handback
        self._handed_back.notify()

    def await_handback(self) -> Handback:
        """(match thread) Wait for the pending turn to be answered or to time out."""
        timed_out: Pending | None = None
        lost: Pending | None = None
        with self.turn_lock:
            while True:
                handback = self._handback
                if handback is not None:
                    self._handback = None
                    break
                pending = self.current
                if pending is None:  # cannot happen: a cleared turn always hands back
                    self._handed_back.wait(1.0)
                    continue
                now = time.monotonic()
                left = pending.deadline - now
                if left <= 0:
                    pending.seat.pending = None
                    self.current = None
                    timed_out = pending
                    break
                rejoin_by = pending.seat.rejoin_deadline_locked()
                if rejoin_by is not None:
                    if rejoin_by <= now:
                        pending.seat.pending = None
                        self.current = None
                        lost = pending
                        break
                    left = min(left, rejoin_by - now)
                self._handed_back.wait(left)
        if timed_out is not None:
            return timed_out.seat.handle_timeout(timed_out)
        if lost is not None:
            return lost.seat.handle_lost(lost)
        assert handback is not None
        if handback[0] == FAILED:
            pending, failure = cast("tuple[Pending, BotFailure]", handback[1])  # see FAILED
            return pending.seat.handle_failure(pending, failure)
        return handback

    def on_step(self, state: State, player: int, action: Action) -> None:
        """play_match's step hook: watchers get their view (public, or a seat's); aborts
        stop the match."""
        self.last_state = state
        if self._watchers:
            with self._lock:
                watchers = list(self._watchers.items())
            updates: dict[int | None, pb.WatchResponse] = {}
            for w, seat in watchers:
                update = updates.get(seat)
                if update is None:  # each view computed once a step, whoever watches it
                    view = observation_to_proto(self.game.id, state.observation(seat))
                    update = pb.WatchResponse(
                        update=pb.Update(step=len(state.history), seat=player, observation=view)
                    )
                    updates[seat] = update
                w.send(update)
        if self.aborting:
            raise MatchAborted(self.abort_reason)

    def finish(self, record: dict[str, Any]) -> None:
        """The match is over: send GameOver to every seat and spectator (nothing if the
        server has aborted it meanwhile, at shutdown)."""
        if self.status == ABORTED:
            return
        self.record = record
        self.status = FINISHED
        self._broadcast_end(game_over_message(self.match_id, record))

    def abort(self, reason: str, state: State | None = None) -> dict[str, Any]:
        """Stop the match for good; returns (and keeps) a partial record."""
        self.aborting = True
        self.abort_reason = self.abort_reason or reason
        record = self.partial_record(state)
        self.record = record
        self.status = ABORTED
        self._broadcast_end(game_over_message(self.match_id, record, self.abort_reason))
        return record

    def request_abort(self, reason: str) -> None:
        """Ask the driver to stop: waiting seats fail, the next step raises MatchAborted."""
        if not self.aborting:
            self.abort_reason = reason
            self.aborting = True
        for seat in self.seats:
            if seat is not None:
                seat.wake()

    def forget(self) -> None:
        """The server forgets this finished match (``Hub``'s purge): drop what points back
        at the table (its remote seats, the bot list holding them, the start callback), so
        reference counting frees it and its record at once; through those cycles only a
        full collection would, which a dedicated server runs every few hours."""
        self.seats = [None] * len(self.seats)
        self._bots = []
        self.on_seated = None

    def is_over(self) -> bool:
        return self.status in (FINISHED, ABORTED)

    # -- messages ---------------------------------------------------------------

    def next_sequence(self) -> int:
        return next(self._seq)

    def turn_message(self, sequence: int, seat: int, turn: Turn) -> bytes:
        """The Turn (a serialised PlayResponse) asking ``seat`` for ``turn``."""
        observation = turn.observation
        if self.on_turn is not None:
            self.on_turn(sequence, seat, observation)
        return self._turns.turn(sequence, turn.step, observation, turn.legal, self.move_ms)

    def match_start(self, seat: int) -> pb.MatchStart:
        return pb.MatchStart(
            match_id=self.match_id,
            game=self.game.id,
            game_version=self.game.version,
            options_json=options_json(self.spec.options),
            num_players=self.spec.num_players,
            seat=seat,
            players=self.players(),
            time_limit_ms=int(self.move_ms or 0),
            on_failure=POLICIES[self.policy],
            seed=seat_seed(self.spec.seed, seat),
        )

    def players(self) -> list[pb.Player]:
        """Every seat, in seat order (MatchStart, ListMatches)."""
        return [
            pb.Player(seat=s, name=n, remote=self.seats[s] is not None)
            for s, n in enumerate(self.names)
        ]

    # -- spectators ---------------------------------------------------------------

    def add_watcher(self, outbox: Outbox, max_watchers: int, seat: int | None = None) -> None:
        """A Watch stream: the public view, or ``seat``'s own (its observation(seat), no
        more: the caller has checked the seat's credential). Seat watchers count
        against ``max_watchers`` like spectators."""
        from arena.server.streams import StreamError

        with self._lock:
            if len(self._watchers) >= max_watchers:
                raise StreamError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"match {self.match_id} already has {max_watchers} watchers",
                )
            outbox.send(
                pb.WatchResponse(match_start=self.match_start(-1 if seat is None else seat))
            )
            if self.is_over():
                outbox.send(pb.WatchResponse(game_over=self._game_over()))
                outbox.close()
                return
            self._watchers[outbox] = seat

    def remove_watcher(self, outbox: Outbox) -> None:
        with self._lock:
            self._watchers.pop(outbox, None)

    def _game_over(self) -> pb.GameOver:
        return game_over_message(self.match_id, self.record, self.abort_reason)

    def _broadcast_end(self, over: pb.GameOver) -> None:
        with self._lock:
            watchers, self._watchers = self._watchers, {}
        for w in watchers:
            w.send(pb.WatchResponse(game_over=over))
            w.close()
        for seat in self.seats:
            outbox = seat.outbox if seat is not None else None
            if outbox is not None:
                outbox.send(pb.PlayResponse(game_over=over))
                outbox.close()
        self.done.set()

    # -- records --------------------------------------------------------------------

    def partial_record(self, state: State | None) -> dict[str, Any]:
        """The record of an aborted match: the steps played so far (no result)."""
        steps: list[dict[str, Any]] = []
        if state is not None:
            replay = self.game.new_game(self.spec.num_players, self.spec.options)
            for action in list(state.history):
                player = replay.current_player
                steps.append(
                    {
                        "seat": CHANCE_SEAT if player == CHANCE else player,
                        "action": action.to_json(),
                    }
                )
                replay.apply(action)
        players: list[dict[str, JSON]] = [{"seat": s, "name": n} for s, n in enumerate(self.names)]
        return {
            **record_head(self.spec, self.game, players, self.match_id),
            "steps": steps,
            "aborted": True,
            "reason": self.abort_reason,
        }
