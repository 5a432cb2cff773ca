"""``RemoteSeat``: a seat played over gRPC, seen by the match runner as a Bot.

``play_turn(turn)`` (match thread) sends a Turn on the seat's stream and waits for what
the table hands back; ``receive_move`` (server event loop) checks a Move against the
pending turn. A good move is applied right there, in the thread that received it: the
table advances the match and sends the next Turn itself when it is for a connected
remote seat (no thread handoff on the hot path, see ``Table.run``); anything else (an
in-process bot's turn, a failure, the end) is handed back to the match thread. Failures
become :class:`bots.base.BotFailure` with the recorded kind:

- ``illegal``: malformed move, index out of range, or an action that is not legal
  (the bot also gets an in-stream Error INVALID_ARGUMENT saying why);
- ``timeout``: no answer within the move clock plus the server's margin;
- ``stall``: no answer within the stall limit (when there is no clock, or the clock
  is longer than the stall limit);
- ``disconnect``: the stream closed (or never opened within the join timeout, or the
  bot's process exited).

The match runner (``arena.match.play_match``) applies the failure policy: under
``forfeit`` it never asks the seat again; under ``random`` only that move is replaced.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

import grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.match.runner import BotFailure, Turn
from arena.server.messages import error_message
from arena.server.streams import Outbox, StreamError
from arena.server.timing import MoveTimes
from engine import Action, Game, IllegalActionError
from wire.convert import WireError, action_from_proto


@dataclass(slots=True)
class Pending:
    """The turn a seat is asked to answer (at most one per table at a time)."""

    seat: RemoteSeat
    sequence: int
    legal: list[Action]
    started: float
    """perf_counter() when the seat was asked (the answer's ms count from here)."""
    deadline: float
    """time.monotonic() after which the turn has timed out (or stalled)."""
    message: bytes = b""
    """The Turn as sent (sent again, unchanged, to a seat that rejoins while it is pending)."""


# What the table hands back to the match thread (``Table.await_handback``):
MOVE = "move"  # (action, ms): a good move, to be sent into the match
ANSWER = "answer"  # an Answer with a failure (the seat's _fail ran)
TURN = "turn"  # the match was advanced inline: the next Turn, for the match thread
DONE = "done"  # the match was advanced inline to its end: the record
ERROR = "error"  # advancing the match inline raised (MatchAborted, a crash)
FAILED = "failed"  # (internal) (pending, BotFailure): becomes an ANSWER
Handback = tuple[str, Any]


class SeatTable(Protocol):
    """What a seat needs of its table (``arena.server.table.Table`` implements it).

    The seat never imports the table: this is the whole of their contract.
    """

    current: Pending | None
    """The pending turn of the table (of some seat), set by the seat that issues it."""
    move_times: MoveTimes | None
    """The server's per-move timings, when it keeps them (set by the Play handler)."""

    @property
    def match_id(self) -> str: ...
    @property
    def game(self) -> Game: ...
    @property
    def policy(self) -> str:
        """``forfeit`` or ``random`` (what a failure costs the seat)."""

    @property
    def turn_lock(self) -> threading.Lock:
        """One lock for the turns of every seat of the table."""

    # the clocks (seconds unless said otherwise)
    @property
    def move_ms(self) -> float | None: ...
    @property
    def margin_ms(self) -> float: ...
    @property
    def clock_s(self) -> float | None: ...
    @property
    def stall_s(self) -> float: ...
    @property
    def wait_s(self) -> float: ...
    @property
    def created(self) -> float: ...
    @property
    def join_timeout_s(self) -> float: ...
    @property
    def rejoin_grace_s(self) -> float: ...
    def seat_joined(self) -> None: ...
    def seat_lost_locked(self) -> None: ...

    # an abort in progress
    @property
    def aborting(self) -> bool: ...
    @property
    def abort_reason(self) -> str: ...
    def is_over(self) -> bool: ...

    # turns and what the seat hands back to the match thread
    def next_sequence(self) -> int: ...
    def turn_message(self, sequence: int, seat: int, turn: Turn) -> bytes: ...
    def match_start(self, seat: int) -> pb.MatchStart: ...
    def answered_locked(self, pending: Pending, action: Action) -> None: ...
    def hand_back_locked(self, handback: Handback) -> None: ...
    def await_handback(self) -> Handback: ...


@dataclass(slots=True)
class Accepted:
    """The last accepted move of a seat (to answer an exact resend idempotently)."""

    sequence: int
    move: pb.Move
    """The Move as received: a resend is the same move when it equals this message
    (compared only when a resend comes, so an accepted move costs no serialisation)."""
    index: int
    action: Action


class RemoteSeat:
    """One seat of a table played by a remote bot (the Bot protocol of ``bots.base``)."""

    def __init__(self, table: SeatTable, seat: int, name: str) -> None:
        self.table = table
        self.seat = seat
        self.name = name
        self.spec = name
        self.version = "remote"
        self.remote_name = ""
        self._lock = table.turn_lock  # one lock for the turns of all seats of a table
        self._wake = threading.Condition(self._lock)
        self.outbox: Outbox | None = None
        self.ever_joined = False
        self.lost_at: float | None = None
        """time.monotonic() when the seat's stream broke (None while connected): it may
        rejoin until ``lost_at + table.rejoin_grace_s``."""
        self.lost_reason = ""
        self.gone: str | None = None
        self.pending: Pending | None = None
        self.last_issued = 0
        self.accepted: Accepted | None = None
        self.forfeited = False
        self.on_failure: Callable[[str, str], None] | None = None
        """Called (match thread) after each failure with (kind, reason); cmd bots use it."""
        self.disconnect_detail: Callable[[], str] | None = None
        """Extra text for a disconnect reason (a cmd bot's exit code and stderr)."""

    # -- stream side (server event loop) -----------------------------------------

    def attach(self, outbox: Outbox, bot_name: str, bot_version: str) -> None:
        """A Join for this seat succeeded; raises StreamError if it is connected elsewhere."""
        with self._lock:
            if self.outbox is not None and not self.outbox.closed:
                raise StreamError(
                    grpc.StatusCode.ALREADY_EXISTS,
                    f"seat {self.seat} of match {self.table.match_id} is already connected "
                    "on another stream",
                )
            first = not self.ever_joined
            self.outbox = outbox
            self.ever_joined = True
            self.lost_at = None
            if bot_name:
                self.remote_name = bot_name
            if bot_version:
                self.version = bot_version
            self._wake.notify_all()
            outbox.send(pb.PlayResponse(match_start=self.table.match_start(self.seat)))
            if self.pending is not None:  # a rejoin within the grace: the turn again
                outbox.send(self.pending.message)
        if first:
            self.table.seat_joined()

    def detach(self, outbox: Outbox, reason: str) -> None:
        """The stream ``outbox`` ended; a pending turn fails with ``disconnect`` unless the
        seat rejoins within the table's rejoin grace (``Table.await_handback`` waits)."""
        with self._lock:
            if self.outbox is not outbox:
                return
            self.outbox = None
            self.lost_at = time.monotonic()
            self.lost_reason = reason
            self._wake.notify_all()
            if self.table.rejoin_grace_s <= 0 or self.table.aborting:
                self._fail_pending_locked(BotFailure("disconnect", reason))
            else:
                self.table.seat_lost_locked()

    def rejoin_deadline_locked(self) -> float | None:
        """Until when a disconnected seat may rejoin (lock held); None while connected or
        before its first Join."""
        if self.lost_at is None or self.outbox is not None:
            return None
        return self.lost_at + self.table.rejoin_grace_s

    def handle_lost(self, pending: Pending) -> Handback:
        """The ANSWER for a pending turn whose seat did not rejoin within the grace."""
        grace = self.table.rejoin_grace_s
        reason = f"{self.lost_reason}; no rejoin within {grace:g} s"
        return self.handle_failure(pending, BotFailure("disconnect", reason))

    def _fail_pending_locked(self, failure: BotFailure) -> None:
        pending, self.pending = self.pending, None
        if pending is not None:
            self.table.hand_back_locked((FAILED, (pending, failure)))

    def mark_gone(self, reason: str) -> None:
        """The bot will never (re)connect (e.g. its process exited)."""
        with self._lock:
            self.gone = reason
            self._wake.notify_all()
            self._fail_pending_locked(BotFailure("disconnect", reason))

    def receive_move(self, move: pb.Move) -> tuple[pb.PlayResponse | None, bool]:
        """Handle a Move; returns (reply or None, whether it answered a pending turn)."""
        seq = move.sequence
        with self._lock:
            pending = self.pending
            if pending is not None and seq == pending.sequence:
                self.pending = None
                action, index, problem = self._resolve(move, pending.legal)
                if problem is None:
                    assert action is not None
                    # No reply: the next Turn (or GameOver) confirms the move. Only an exact
                    # resend gets an explicit MoveAccepted (duplicate=true).
                    self.accepted = Accepted(seq, move, index, action)
                    self.table.answered_locked(pending, action)
                    return None, True
                forfeit = self.table.policy == "forfeit"
                self.table.hand_back_locked((FAILED, (pending, BotFailure("illegal", problem))))
                suffix = f"; seat {self.seat} forfeits" if forfeit else "; a random move is played"
                reply = error_message(
                    pb.ERROR_CODE_INVALID_ARGUMENT, problem + suffix, seq, forfeited=forfeit
                )
                return reply, True
            accepted = self.accepted
            if accepted is not None and seq == accepted.sequence:
                if move == accepted.move:
                    again = pb.MoveAccepted(
                        sequence=seq,
                        index=accepted.index,
                        text=str(accepted.action),
                        duplicate=True,
                    )
                    return pb.PlayResponse(move_accepted=again), False
                return error_message(
                    pb.ERROR_CODE_ABORTED,
                    f"sequence {seq} was already answered with a different move",
                    seq,
                ), False
            if 0 < seq <= self.last_issued:
                current = (
                    f"the pending turn is {pending.sequence}" if pending else "no turn is pending"
                )
                return error_message(
                    pb.ERROR_CODE_ABORTED,
                    f"sequence {seq} is stale: that turn is closed ({current})",
                    seq,
                ), False
            return error_message(
                pb.ERROR_CODE_FAILED_PRECONDITION, self._no_turn_reason(seq, pending), seq
            ), False

    def _no_turn_reason(self, seq: int, pending: Pending | None) -> str:
        if self.table.is_over():
            return f"the game is over; move {seq} is out of turn"
        if self.forfeited:
            return (
                f"seat {self.seat} has forfeited and gets no more turns; move {seq} is out of turn"
            )
        if pending is not None:
            return f"out of turn: no turn {seq} was issued; the pending turn is {pending.sequence}"
        return f"out of turn: seat {self.seat} has no pending turn (move sequence {seq})"

    def _resolve(self, move: pb.Move, legal: list[Action]) -> tuple[Action | None, int, str | None]:
        """(action, index, None) for a good answer, else (None, 0, what is wrong)."""
        which = move.WhichOneof("choice")
        if which is None:
            return None, 0, "malformed move: it holds neither an index nor an action"
        if which == "index":
            if move.index >= len(legal):
                return None, 0, f"index {move.index} is out of range 0..{len(legal) - 1}"
            return legal[move.index], move.index, None
        game = self.table.game
        try:
            game_id, data = action_from_proto(move.action)
        except WireError as exc:
            return None, 0, f"malformed action: {exc}"
        if game_id != game.id:
            return (
                None,
                0,
                f"malformed action: it is a {game_id} action, this match plays {game.id}",
            )
        try:
            action = game.action_from_json(data)
        except IllegalActionError as exc:
            return None, 0, f"malformed action: {exc}"
        try:
            index = legal.index(action)
        except ValueError:
            kinds = sorted({a.KIND for a in legal})
            return (
                None,
                0,
                (
                    f"illegal action {action}: not one of the {len(legal)} legal actions "
                    f"(kinds now: {', '.join(kinds)})"
                ),
            )
        return action, index, None

    # -- match side (the match thread) --------------------------------------------

    def choose(self, turn: Turn) -> Action:
        """The Bot protocol (``play_match`` with ``table.bots``): ask, wait, answer."""
        kind, value = self.play_turn(turn)
        if kind == MOVE:
            return cast(Action, value[0])  # a MOVE handback holds (action, ms)
        assert kind == ANSWER, kind
        _action, _ms, (failure, reason) = value
        raise BotFailure(failure, reason)

    def play_turn(self, turn: Turn) -> Handback:
        """Send ``turn`` and wait for the table's handback (see ``Table.await_handback``)."""
        table = self.table
        started = time.perf_counter()
        try:
            if table.aborting:
                raise self._fail("disconnect", f"match aborted: {table.abort_reason}")
            outbox = self._wait_connected()
            with self._lock:
                issued = self.issue_locked(turn, started, outbox)
            if not issued:
                raise self._fail("disconnect", self._disconnected_reason())
        except BotFailure as exc:
            ms = (time.perf_counter() - started) * 1000
            return ANSWER, (turn.legal[0], ms, (exc.kind, exc.reason))
        return table.await_handback()

    def can_issue_locked(self) -> bool:
        """Whether a turn can be sent right now (lock held): connected, not aborting."""
        outbox = self.outbox
        return outbox is not None and not outbox.closed and not self.table.aborting

    def issue_locked(self, turn: Turn, started: float, outbox: Outbox | None = None) -> bool:
        """Send ``turn`` on the seat's stream and make it the table's pending turn (lock
        held); False if the stream (``outbox``, default the current one) is gone."""
        outbox = outbox or self.outbox
        if outbox is None or self.outbox is not outbox or outbox.closed:
            return False
        table = self.table
        sequence = table.next_sequence()
        message = table.turn_message(sequence, self.seat, turn)
        # The observation is in ``message`` now (a resend sends those bytes): the Turn,
        # held by the suspended match until the answer, no longer keeps its JSON alive
        # (a few dozen containers a pending turn for the collector to scan).
        turn.observation = {}
        pending = Pending(
            self, sequence, turn.legal, started, time.monotonic() + table.wait_s, message
        )
        self.pending = pending
        self.last_issued = sequence
        table.current = pending
        outbox.send(message)
        return True

    def handle_failure(self, pending: Pending, failure: BotFailure) -> Handback:
        """The ANSWER for a failed pending turn (match thread): record its consequences."""
        exc = self._fail(failure.kind, failure.reason)
        ms = (time.perf_counter() - pending.started) * 1000
        return ANSWER, (pending.legal[0], ms, (exc.kind, exc.reason))

    def handle_timeout(self, pending: Pending) -> Handback:
        """The ANSWER for a pending turn whose clock (or stall limit) ran out."""
        table = self.table
        limit_s = table.clock_s
        if limit_s is not None and limit_s <= table.stall_s:
            ms = table.move_ms or 0
            reason = f"no move within {ms:.0f} ms (+{table.margin_ms:.0f} ms margin)"
            return self.handle_failure(pending, BotFailure("timeout", reason))
        reason = f"connected but silent for {table.stall_s:.1f} s with a turn pending"
        return self.handle_failure(pending, BotFailure("stall", reason))

    def wait_joined(self, deadline: float) -> bool:
        """Wait (until the monotonic ``deadline``) for the first Join; False if none came."""
        with self._lock:
            while not self.ever_joined and self.gone is None and not self.table.aborting:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._wake.wait(left)
            return self.ever_joined

    def _wait_connected(self) -> Outbox:
        table = self.table
        deadline = table.created + table.join_timeout_s
        with self._lock:
            while True:
                if self.outbox is not None and not self.outbox.closed:
                    return self.outbox
                if self.gone is not None:
                    reason = self.gone
                elif table.aborting:
                    reason = f"match aborted: {table.abort_reason}"
                elif self.ever_joined:
                    rejoin_by = self.rejoin_deadline_locked()
                    left = -1.0 if rejoin_by is None else rejoin_by - time.monotonic()
                    if left > 0:
                        self._wake.wait(left)
                        continue
                    reason = self._disconnected_reason_locked()
                else:
                    left = deadline - time.monotonic()
                    if left > 0:
                        self._wake.wait(left)
                        continue
                    reason = f"the bot did not join within {table.join_timeout_s:.0f} s"
                break
        raise self._fail("disconnect", reason)

    def _disconnected_reason_locked(self) -> str:
        grace = self.table.rejoin_grace_s
        rejoin = f"; no rejoin within {grace:g} s" if grace > 0 else ""
        return f"seat {self.seat} is not connected (its stream closed{rejoin})"

    def _disconnected_reason(self) -> str:
        with self._lock:
            return self.gone or self._disconnected_reason_locked()

    def _fail(self, kind: str, reason: str) -> BotFailure:
        """Record the consequences of a failure and return the BotFailure to raise."""
        if kind == "disconnect" and self.disconnect_detail is not None and reason != self.gone:
            # (a seat marked gone already carries the process's exit detail as its reason)
            detail = self.disconnect_detail()
            if detail:
                reason = f"{reason}; {detail}"
        forfeit = self.table.policy == "forfeit"
        if forfeit:
            self.forfeited = True
        if kind in ("timeout", "stall"):
            with self._lock:
                outbox = self.outbox
            if outbox is not None:
                suffix = f"; seat {self.seat} forfeits" if forfeit else "; a random move is played"
                outbox.send(
                    error_message(
                        pb.ERROR_CODE_DEADLINE_EXCEEDED, reason + suffix, self.last_issued, forfeit
                    )
                )
        if self.on_failure is not None:
            self.on_failure(kind, reason)
        return BotFailure(kind, reason)

    def wake(self) -> None:
        """Wake a waiting ``choose`` (the table is aborting): it fails with ``disconnect``."""
        with self._lock:
            self._wake.notify_all()
            reason = f"match aborted: {self.table.abort_reason}"
            self._fail_pending_locked(BotFailure("disconnect", reason))
