"""The ``human`` bot: a person plays a seat at the terminal, to try bots out by hand.

``arena play dziobaki --bots human,random`` (in-process, :class:`HumanBot`) or, for a
seat of a match on a game server, ``arena match join ADDRESS MATCH_ID --credential C``
(:class:`RemoteHuman`, an SDK bot on the seat's ``Play`` stream). At each of its turns
the person sees the seat's view (the game's own ``render``) and the legal moves
numbered from 1, and types a number or a move's text (a unique beginning of it is
enough); anything else is answered with what was wrong and asked again. ``?`` shows
the view and the moves again.

The move clock is **not** suspended for a person: the match's clock applies as to any
bot (``arena play`` has none unless ``--move-ms`` is given; a game server's match may
have one, and its stall limit, 60 s by default, always applies), and the prompt says
how long there is. A late answer counts as late (a ``timeout`` event and the match's
failure policy), as it would for a program.

End of input (Ctrl-D) or Ctrl-C leaves the game: in-process, the seat is recorded as
``disconnect`` and the failure policy plays on for it (the game is finished and
recorded); remotely, :class:`PersonLeft` ends the stream and the server does the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bots.base import BotFailure, Turn
from bots.sdk import Clock, GameResult, LegalMove, MatchInfo
from engine import get_game
from engine.core import JSON

Reader = Callable[[str], str]
Writer = Callable[[str], None]

LINE_WIDTH = 100
"""The width the list of legal moves is laid out in (in columns when they are many)."""

HELP = "type a move's number or its text (a unique beginning is enough); ? shows them again"


class PersonLeft(Exception):
    """The person ended the input (Ctrl-D) or interrupted (Ctrl-C)."""


def _write(text: str) -> None:
    print(text, flush=True)


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def parse_choice(answer: str, texts: Sequence[str]) -> int | str:
    """The index (0-based) of the move ``answer`` names, or what is wrong with it.

    ``answer`` is a number shown (1-based), a move's text or a unique beginning of one
    (case and spacing do not matter).

    >>> parse_choice("2", ["take 1", "take 2"])
    1
    >>> parse_choice("TAKE  1", ["take 1", "take 2"])
    0
    >>> parse_choice("pl", ["place left", "place right"])
    "'pl' fits several moves: place left, place right; type more of it or a number"
    >>> parse_choice("9", ["a", "b"])
    'there is no move 9: type a number from 1 to 2'
    """
    n = len(texts)
    wanted = _normal(answer)
    if not wanted:
        return f"type a number from 1 to {n}, or a move's text"
    if wanted.isdigit():
        if 1 <= int(wanted) <= n:
            return int(wanted) - 1
        return f"there is no move {wanted}: type a number from 1 to {n}"
    normal = [_normal(t) for t in texts]
    if wanted in normal:
        return normal.index(wanted)
    fits = [i for i, t in enumerate(normal) if t.startswith(wanted)]
    if len(fits) == 1:
        return fits[0]
    if fits:
        shown = ", ".join(texts[i] for i in fits[:8]) + (", ..." if len(fits) > 8 else "")
        return f"{answer.strip()!r} fits several moves: {shown}; type more of it or a number"
    return f"{answer.strip()!r} is not one of the legal moves; {HELP}"


class Prompt:
    """The conversation at one turn: show the view and the moves, read until a valid move."""

    def __init__(self, read: Reader = input, write: Writer = _write) -> None:
        self.read = read
        self.write = write

    def ask(self, title: str, view: str, texts: Sequence[str], limit_ms: float | None) -> int:
        """The index the person chose; :class:`PersonLeft` at end of input or Ctrl-C."""
        self.show(title, view, texts)
        clock = f" within {limit_ms / 1000:g} s" if limit_ms else ""
        question = f"your move{clock} (1-{len(texts)}, a move's text, ? to show again): "
        while True:
            try:
                answer = self.read(question)
            except (EOFError, KeyboardInterrupt):
                raise PersonLeft() from None
            if answer.strip() == "?":
                self.show(title, view, texts)
                continue
            choice = parse_choice(answer, texts)
            if isinstance(choice, int):
                return choice
            self.write(f"  {choice}")

    def show(self, title: str, view: str, texts: Sequence[str]) -> None:
        self.write(f"\n=== {title}")
        self.write(view)
        self.write("legal moves:")
        width = len(str(len(texts)))
        cells = [f"{i:>{width}}. {text}" for i, text in enumerate(texts, 1)]
        cell = max(len(c) for c in cells) + 2
        per_line = max(1, (LINE_WIDTH - 2) // cell)  # many moves: in columns, row by row
        for start in range(0, len(cells), per_line):
            row = cells[start : start + per_line]
            self.write("  " + "".join(c.ljust(cell) for c in row).rstrip())


class HumanBot:
    """An in-process seat played by the person at this terminal (the ``human`` spec)."""

    name = "human"
    version = "1"

    def __init__(self, prompt: Prompt | None = None) -> None:
        self.prompt = prompt or Prompt()
        self.left = False
        """True once the person left: later turns fail at once, nobody is asked again."""

    def choose(self, turn: Turn) -> int:
        if self.left:
            raise BotFailure("disconnect", "the person had left the game")
        title = f"{turn.game.name}: your turn, seat {turn.seat} (step {turn.step})"
        try:
            return self.prompt.ask(
                title,
                # a state drawn from the seat's observation draws the seat's view
                turn.determinize(turn.rng).render(turn.seat),
                [str(a) for a in turn.legal],
                turn.time_left_ms,
            )
        except PersonLeft:
            self.left = True
            self.prompt.write("\nyou left the game; the failure policy plays your seat on")
            raise BotFailure("disconnect", "the person left (end of input or Ctrl-C)") from None


class RemoteHuman:
    """A seat of a game server's match played by hand (an SDK bot: ``sdk.run``).

    ``match_id``, when given, must be the match the credential is for: a mismatch raises
    :class:`WrongMatch` at MatchStart, before any move.
    """

    name = "human"
    version = "1"

    def __init__(self, prompt: Prompt | None = None, match_id: str = "") -> None:
        self.prompt = prompt or Prompt()
        self.match_id = match_id
        self.info: MatchInfo | None = None

    def on_start(self, info: MatchInfo) -> None:
        if self.match_id and info.match_id != self.match_id:
            raise WrongMatch(
                f"the credential is for match {info.match_id}, not {self.match_id}; "
                "leaving without playing"
            )
        self.info = info
        players = ", ".join(f"{p['seat']} {p['name']}" for p in info.players)
        clock = f"{info.time_limit_ms:g} ms a move" if info.time_limit_ms else "no move clock"
        self.prompt.write(
            f"joined {info.game} match {info.match_id} as seat {info.seat} of "
            f"{info.num_players} ({players}); {clock}, on failure {info.on_failure}"
        )

    def choose(self, observation: dict[str, JSON], legal: list[LegalMove], clock: Clock) -> int:
        info = self.info
        assert info is not None  # the SDK calls on_start first
        title = f"{info.game}: your turn, seat {info.seat}"
        return self.prompt.ask(
            title, seat_view(info, observation), [m.text for m in legal], clock.remaining_ms()
        )

    def on_error(self, code: str, message: str) -> None:
        self.prompt.write(f"  server: {code}: {message}")

    def on_game_over(self, result: GameResult) -> None:
        if result.status != "finished":
            self.prompt.write(f"\nthe match was aborted: {result.reason}")
            return
        scores = ", ".join(
            f"seat {s} {score:g} (rank {rank})"
            for s, (score, rank) in enumerate(
                zip(result.scores, result.standing_ranks, strict=False)
            )
        )
        self.prompt.write(f"\ngame over: {scores}; you (seat {result.seat}) rank {result.rank}")
        for ev in result.events:
            self.prompt.write(
                f"  event at step {ev['step']}: seat {ev['seat']} {ev['kind']}: {ev['reason']}"
            )


class WrongMatch(Exception):
    """``arena match join``'s match id is not the credential's match."""


def seat_view(info: MatchInfo, observation: dict[str, JSON]) -> str:
    """The seat's view as the game draws it (:meth:`engine.core.Game.render_view`)."""
    return get_game(info.game).render_view(info.num_players, info.options, info.seat, observation)


__all__ = ["HumanBot", "PersonLeft", "Prompt", "RemoteHuman", "WrongMatch", "parse_choice"]
