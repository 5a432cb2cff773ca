"""Watching a live match: the ``Watch`` stream drawn in the terminal.

``Watch`` serves the **public** view only (``WatchRequest`` has just a ``match_id`` in
``menagerie.v1``): ``MatchStart`` (seat -1), one ``Update{step, seat, observation}`` per
step with ``observation(None)`` after it, and ``GameOver``. Updates carry no action (it
may be hidden information), so the view says who acted, not what. A spectator who
comes in late sees the steps from then on. A seat's private view would need the seat's
credential in ``WatchRequest`` (a wire change): a person who holds a credential plays
the seat instead (``arena match join``).

:class:`WatchView` draws with the replay viewer's pieces (``arena.replay.terminal``:
the score table, the event lines) and the game's own renderer
(:func:`arena.client.render.render_observation`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb
from rich.console import Console
from rich.text import Text

from arena.client.connection import Connection
from arena.client.matches import status_name
from arena.client.render import render_observation
from arena.replay.terminal import event_text, score_table
from wire.convert import observation_from_proto


class WatchView:
    """Draws one spectator stream: a header, each step (with the view unless ``brief``),
    and the final score. ``steps`` counts the updates drawn (for callers and tests)."""

    def __init__(self, console: Console, brief: bool = False) -> None:
        self.console = console
        self.brief = brief
        self.game = ""
        self.names: list[str] = []
        self.steps = 0

    def start(self, start: pb.MatchStart) -> None:
        self.game = start.game
        self.names = [p.name for p in start.players]
        players = ", ".join(f"{p.seat} {p.name}" for p in start.players)
        clock = f"{start.time_limit_ms} ms a move" if start.time_limit_ms else "no move clock"
        policy = pb.FailurePolicy.Name(start.on_failure).removeprefix("FAILURE_POLICY_").lower()
        self.console.print(
            Text(f"{start.game} match {start.match_id}: {players}", style="bold"), soft_wrap=True
        )
        self.console.print(
            Text(f"  {clock}, on failure {policy}, seed {start.seed}; spectator view", style="dim")
        )

    def who(self, seat: int) -> str:
        if seat < 0:
            return "chance"
        name = self.names[seat] if seat < len(self.names) else "?"
        return f"seat {seat} {name}"

    def update(self, update: pb.Update) -> None:
        self.steps += 1
        line = Text(f"step {update.step:>4}  ", style="bold cyan")
        line.append(self.who(update.seat), style="dim" if update.seat < 0 else "bold")
        if self.brief:
            self.console.print(line)
            return
        self.console.print(Text("─" * min(self.console.width, 100), style="cyan"))
        self.console.print(line)
        _, observation = observation_from_proto(update.observation)
        self.console.print(Text(render_observation(self.game, observation)), soft_wrap=True)

    def game_over(self, over: pb.GameOver) -> None:
        status = status_name(over.status)
        self.console.print(Text("─" * min(self.console.width, 100), style="cyan"))
        if status != "finished":
            self.console.print(
                Text(f"match {over.match_id} {status} after {over.steps} steps: {over.reason}"),
                style="bold red",
            )
        else:
            self.console.print(
                Text(f"match {over.match_id} finished after {over.steps} steps", style="bold")
            )
        if over.scores:
            breakdown = [dict(b.points) for b in over.breakdown]
            self.console.print(
                score_table(
                    self.names,
                    breakdown,
                    list(over.scores),
                    list(over.standing_ranks or over.ranks),
                    set(over.forfeited),
                )
            )
        for ev in over.events:
            if ev.kind != "stderr":
                event = {"kind": ev.kind, "seat": ev.seat, "reason": ev.reason}
                self.console.print(event_text(event), soft_wrap=True)


def watch_stream(conn: Connection, match_id: str) -> Iterator[pb.WatchResponse]:
    """The Watch stream of ``match_id``; a failure becomes a ClientError (unknown match,
    unreachable server, too many spectators). Closing the iterator cancels the call."""
    call: Any = conn.stub.Watch(pb.WatchRequest(match_id=match_id))
    try:
        yield from call
    except grpc.RpcError as exc:
        raise conn.error(exc, "Watch", match_id) from None
    finally:
        call.cancel()


def watch(conn: Connection, match_id: str, view: WatchView) -> str:
    """Draw ``match_id`` until its GameOver; returns the final status name."""
    final = "unknown"
    for message in watch_stream(conn, match_id):
        kind = message.WhichOneof("message")
        if kind == "match_start":
            view.start(message.match_start)
        elif kind == "update":
            view.update(message.update)
        elif kind == "game_over":
            view.game_over(message.game_over)
            final = status_name(message.game_over.status)
    return final


__all__ = ["WatchView", "watch", "watch_stream"]
