"""Watching a live match: the ``Watch`` stream drawn in the terminal.

``Watch`` serves the **public** view: ``MatchStart`` (seat -1), one ``Update{step, seat,
observation}`` per step with ``observation(None)`` after it, and ``GameOver``. With a
seat's credential (``WatchRequest.credential``) it serves that seat's view instead:
``MatchStart.seat`` is the seat and each update holds ``observation(seat)``, what the
seat's bot gets, no more (the bot plays on; watching takes no seat). Updates carry no
action (it may be hidden information), so the view says who acted, not what. A watcher
who comes in late sees the steps from then on.

:class:`WatchView` draws with the replay viewer's pieces (``arena.replay.terminal``:
the score table, the event lines) and the game's own renderer
(:func:`arena.client.render.render_observation`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb
from rich.console import Console
from rich.text import Text

from arena.client.connection import ClientError, Connection
from arena.client.matches import status_name
from arena.client.render import render_observation, render_seat_observation
from arena.replay.terminal import event_text, score_table
from wire.convert import observation_from_proto


class WatchView:
    """Draws one Watch stream: a header, each step (with the view unless ``brief``),
    and the final score. ``steps`` counts the updates drawn (for callers and tests)."""

    def __init__(self, console: Console, brief: bool = False) -> None:
        self.console = console
        self.brief = brief
        self.start_message = pb.MatchStart(seat=-1)
        """The stream's MatchStart (the game, its options, the watched seat or -1)."""
        self.names: list[str] = []
        self.steps = 0

    @property
    def game(self) -> str:
        return self.start_message.game

    @property
    def seat(self) -> int | None:
        """The watched seat, or None for the public view."""
        seat = self.start_message.seat
        return None if seat < 0 else seat

    def start(self, start: pb.MatchStart) -> None:
        self.start_message = start
        self.names = [p.name for p in start.players]
        players = ", ".join(f"{p.seat} {p.name}" for p in start.players)
        clock = f"{start.time_limit_ms} ms a move" if start.time_limit_ms else "no move clock"
        policy = pb.FailurePolicy.Name(start.on_failure).removeprefix("FAILURE_POLICY_").lower()
        self.console.print(
            Text(f"{start.game} match {start.match_id}: {players}", style="bold"), soft_wrap=True
        )
        seat = self.seat
        view = "spectator view" if seat is None else f"the view of {self.who(seat)}"
        seed = f", seed {start.seed}" if seat is None else ""  # (a seat's seed is its own)
        self.console.print(Text(f"  {clock}, on failure {policy}{seed}; {view}", style="dim"))

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
        self.console.print(Text(self.render(observation)), soft_wrap=True)

    def render(self, observation: dict[str, Any]) -> str:
        """The public view by the game's observation renderer; a seat's as the game
        draws it for the seat."""
        start = self.start_message
        if self.seat is None:
            return render_observation(self.game, observation)
        options = json.loads(start.options_json) if start.options_json else {}
        return render_seat_observation(
            self.game, start.num_players, options, self.seat, observation
        )

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


def watch_stream(
    conn: Connection, match_id: str, credential: str | None = None
) -> Iterator[pb.WatchResponse]:
    """The Watch stream of ``match_id`` (a seat's view with its ``credential``); a failure
    becomes a ClientError (unknown match, refused credential, unreachable server, too
    many watchers). Closing the iterator cancels the call."""
    request = pb.WatchRequest(match_id=match_id)
    if credential is not None:
        request.credential = credential
    call: Any = conn.stub.Watch(request)
    refused = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
    try:
        yield from call
    except grpc.RpcError as exc:
        if credential is not None and exc.code() in refused:
            raise ClientError(
                f"the game server at {conn.address} refused the seat credential for match "
                f"{match_id} ({exc.code().name}: {exc.details()})",
                exc.code(),
            ) from None
        raise conn.error(exc, "Watch", match_id) from None
    finally:
        call.cancel()


def watch(conn: Connection, match_id: str, view: WatchView, credential: str | None = None) -> str:
    """Draw ``match_id`` (a seat's view with its ``credential``) until its GameOver;
    returns the final status name."""
    final = "unknown"
    for message in watch_stream(conn, match_id, credential):
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
