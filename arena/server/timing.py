"""``MoveTimes``: the server's side of each move exchange, for ``arena bench grpc``.

A move exchange crosses three parts: the server (reading the Move, checking it, the
engine step and chance steps, the next observation and legal actions, encoding the
Turn, handing it to gRPC), the bot (decoding the Turn, choosing,
encoding the Move) and the transport between them (both gRPC stacks, the sockets, the
scheduling of both processes). The bench measures the whole exchange and the bot's
part on the client; the server's part can only be measured here. So a regression
points at its side instead of at "the exchange".

Off by default (``Hub.move_times`` is None): the Play handlers then take one
``perf_counter`` reading per message and nothing else. Every reading is taken on the
server's event loop (readers and writers of every stream run there), so nothing is
locked.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

MAX_SAMPLES = 1_000_000
"""Samples kept per figure (a bench run takes thousands; the bound keeps a forgotten
recorder from growing without end)."""


@dataclass
class MoveClock:
    """Per table: when its last good Move was read and its last Turn written."""

    move_read: float | None = None
    """perf_counter() when the Move that the next Turn answers was read (None: no Move
    is waiting for its Turn, e.g. the first Turn of a match or a rejoin's resend)."""
    turn_written: float | None = None
    """perf_counter() when the table's last Turn was handed to gRPC."""


@dataclass
class MoveTimes:
    """Per-move server timings (microseconds), from the Play handlers of every table."""

    server_us: list[float] = field(default_factory=list)
    """From reading a Move to handing the Turn it leads to to gRPC's write (the next
    seat's Turn: parse, checks, engine and chance steps, observation, encoding; and the
    hop from the stream's reader to its writer when the writer was busy, else none: the
    reader hands the Turn over itself, ``Outbox.write_now``)."""
    handle_us: list[float] = field(default_factory=list)
    """From reading a Move to the stream's reader done with it: the checks, the step, the
    next Turn encoded and its write started (when its stream's writer was waiting, as
    it is between turns; else queued for it)."""
    step_us: list[float] = field(default_factory=list)
    """The part of ``handle_us`` in the match's step (``arena.match.match_steps``: the
    move applied and recorded, chance steps, the next seat's observation and legal
    actions from the engine)."""
    turn_us: list[float] = field(default_factory=list)
    """The part of ``handle_us`` encoding the next Turn and queuing it for its stream."""
    cycle_us: list[float] = field(default_factory=list)
    """Between consecutive Turns of a table handed to gRPC: one full move (the Turn's
    way out, the bot's decision, the Move's way back, the server's part)."""
    clocks: dict[str, MoveClock] = field(default_factory=dict)
    """Match id -> its clock."""

    def move_read(self, match_id: str, at: float) -> None:
        """A Move of ``match_id`` was read at ``at`` (perf_counter) and is being handled
        (its Turn may be written before :meth:`move_handled`)."""
        self.clocks.setdefault(match_id, MoveClock()).move_read = at

    def move_handled(self, match_id: str, at: float, answered: bool) -> None:
        """The Move read at ``at`` is handled: a sample if it was a good move (its Turn is
        written or queued), else it leads to no Turn."""
        if answered:
            if len(self.handle_us) < MAX_SAMPLES:
                self.handle_us.append((time.perf_counter() - at) * 1e6)
        elif (clock := self.clocks.get(match_id)) is not None:
            clock.move_read = None

    def advanced(self, match_id: str, started: float, stepped: float, queued: float) -> None:
        """A good Move of ``match_id`` advanced its match inline (perf_counter readings):
        the step from ``started`` to ``stepped``, the next Turn encoded and queued by
        ``queued``, or handed to gRPC before that (written at once, :meth:`turn_written`:
        then the Turn's part ends there, and gRPC's send is the transport's, as when the
        stream's writer hands it over)."""
        clock = self.clocks.get(match_id)
        written = None if clock is None else clock.turn_written
        if written is not None and stepped <= written <= queued:
            queued = written
        if len(self.step_us) < MAX_SAMPLES:
            self.step_us.append((stepped - started) * 1e6)
            self.turn_us.append((queued - stepped) * 1e6)

    def turn_written(self, match_id: str) -> None:
        """A Turn of ``match_id`` is being handed to gRPC now."""
        now = time.perf_counter()
        clock = self.clocks.setdefault(match_id, MoveClock())
        if len(self.server_us) < MAX_SAMPLES:
            if clock.move_read is not None:
                self.server_us.append((now - clock.move_read) * 1e6)
            if clock.turn_written is not None and clock.move_read is not None:
                self.cycle_us.append((now - clock.turn_written) * 1e6)
        clock.move_read = None
        clock.turn_written = now

    def match_over(self, match_id: str) -> None:
        """Forget a finished match's clock."""
        self.clocks.pop(match_id, None)

    def clear(self) -> None:
        """Drop the samples (between the bench's measurements)."""
        self.server_us.clear()
        self.handle_us.clear()
        self.step_us.clear()
        self.turn_us.clear()
        self.cycle_us.clear()
        self.clocks.clear()
