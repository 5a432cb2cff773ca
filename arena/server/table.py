"""``Table``: one match on the game server — its seats, credentials and spectators.

A table does not run the game: whoever drives it calls ``arena.match.play_match`` with
``table.bots`` (remote seats are :class:`RemoteSeat` adapters), ``table.match_config``
and ``on_step=table.on_step``, then ``table.finish(record)`` (or ``table.abort``). The
game server drives the tables it hosts (CreateMatch) in threads; ``arena play`` and the
arena's workers drive their own through :mod:`arena.cmdbots`.
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.match import MatchConfig, MatchSpec
from arena.records import CHANCE_SEAT, FORMAT
from arena.server.messages import (
    POLICIES,
    LegalActions,
    game_over_message,
    options_json,
    turn_message,
)
from arena.server.seats import RemoteSeat
from arena.server.streams import Outbox
from bots.base import Bot, Turn
from bots.wire import observation_to_proto
from engine import CHANCE, Action, State, get_game

WAITING = pb.MATCH_STATUS_WAITING
RUNNING = pb.MATCH_STATUS_RUNNING
FINISHED = pb.MATCH_STATUS_FINISHED
ABORTED = pb.MATCH_STATUS_ABORTED


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
        in_process: Mapping[int, Bot] | None = None,
    ) -> None:
        self.match_id = match_id
        self.spec = spec
        self.game = get_game(spec.game)
        self.move_ms = config.move_ms
        self.policy = config.on_failure
        self.margin_ms = margin_ms
        self.stall_s = stall_ms / 1000
        self.join_timeout_s = join_timeout_s
        self.clock_s = None if config.move_ms is None else (config.move_ms + margin_ms) / 1000
        self.names = list(names)
        self.created = time.monotonic()
        self.status = WAITING
        self.record: dict[str, Any] | None = None
        self.abort_reason = ""
        self.aborting = False
        self.done = threading.Event()
        self._seq = itertools.count(1)
        self._lock = threading.Lock()
        self._legal = LegalActions(self.game.id)
        self._watchers: list[Outbox] = []
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

    def wait_for_seats(self) -> None:
        """Wait until every remote seat has joined (or gone, or the join timeout passed),
        so that no move clock runs while a bot is still starting."""
        deadline = self.created + self.join_timeout_s
        for seat in self.seats:
            if seat is not None:
                seat.wait_joined(deadline)
        self.status = RUNNING

    def on_step(self, state: State, player: int, action: Action) -> None:
        """play_match's step hook: spectators get the public view; aborts stop the match."""
        self.last_state = state
        if self._watchers:
            update = pb.WatchResponse(
                update=pb.Update(
                    step=len(state.history),
                    seat=player,
                    observation=observation_to_proto(self.game.id, state.observation(None)),
                )
            )
            with self._lock:
                watchers = list(self._watchers)
            for w in watchers:
                w.send(update)
        if self.aborting:
            raise MatchAborted(self.abort_reason)

    def finish(self, record: dict[str, Any]) -> None:
        """The match is over: send GameOver to every seat and spectator."""
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

    def is_over(self) -> bool:
        return self.status in (FINISHED, ABORTED)

    # -- messages ---------------------------------------------------------------

    def next_sequence(self) -> int:
        return next(self._seq)

    def turn_message(self, sequence: int, seat: int, turn: Turn) -> pb.PlayResponse:
        observation = turn.observation
        if self.on_turn is not None:
            self.on_turn(sequence, seat, observation)
        return turn_message(
            sequence,
            len(turn.state.history),
            self.game.id,
            observation,
            self._legal.build(turn.legal),
            self.move_ms,
        )

    def match_start(self, seat: int) -> pb.MatchStart:
        return pb.MatchStart(
            match_id=self.match_id,
            game=self.game.id,
            game_version=self.game.version,
            options_json=options_json(self.spec.options),
            num_players=self.spec.num_players,
            seat=seat,
            players=[
                pb.Player(seat=s, name=n, remote=self.seats[s] is not None)
                for s, n in enumerate(self.names)
            ],
            time_limit_ms=int(self.move_ms or 0),
            on_failure=POLICIES[self.policy],
            seed=self.spec.seed,
        )

    # -- spectators ---------------------------------------------------------------

    def add_watcher(self, outbox: Outbox, max_watchers: int) -> None:
        from arena.server.streams import StreamError

        with self._lock:
            if len(self._watchers) >= max_watchers:
                raise StreamError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"match {self.match_id} already has {max_watchers} spectators",
                )
            outbox.send(pb.WatchResponse(match_start=self.match_start(-1)))
            if self.is_over():
                outbox.send(pb.WatchResponse(game_over=self._game_over()))
                outbox.close()
                return
            self._watchers.append(outbox)

    def remove_watcher(self, outbox: Outbox) -> None:
        with self._lock:
            if outbox in self._watchers:
                self._watchers.remove(outbox)

    def _game_over(self) -> pb.GameOver:
        return game_over_message(self.match_id, self.record, self.abort_reason)

    def _broadcast_end(self, over: pb.GameOver) -> None:
        with self._lock:
            watchers, self._watchers = self._watchers, []
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
            for action in state.history:
                player = replay.current_player
                steps.append(
                    {
                        "seat": CHANCE_SEAT if player == CHANCE else player,
                        "action": action.to_json(),
                    }
                )
                replay.apply(action)
        return {
            "format": FORMAT,
            "game": self.game.id,
            "game_version": self.game.version,
            "num_players": self.spec.num_players,
            "options": self.spec.options,
            "players": [{"seat": s, "name": n} for s, n in enumerate(self.names)],
            "tournament_id": self.spec.tournament_id,
            "match_id": self.spec.match_id or self.match_id,
            "game_id": self.spec.game_id,
            "seed": self.spec.seed,
            "steps": steps,
            "aborted": True,
            "reason": self.abort_reason,
        }
