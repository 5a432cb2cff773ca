"""What a running tournament shows on the terminal: a progress bar and the live table.

:class:`Reporter` is told of every change in the number of finished games
(:meth:`Reporter.on_games`, after each durable append or lost batch) and prints, on
stderr, a progress bar (games done of scheduled, games/s, ETA, failures) and every
``board_every`` games the live leaderboard (running counts and live Elo). Where no bar
can be drawn (output piped to a file or a CI log), a plain line every ``line_every``
seconds and one at the end say how far it is instead.
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from arena.tournament.leaderboard import rich_table
from arena.tournament.ratings import Tally, live_leaderboard


class Reporter:
    """The progress bar (shown while used as a context manager) and the live table.

    ``total`` games are scheduled, ``already`` of them were in the journal, the run
    plays the ``remaining`` others; ``show_bar`` and ``live_tables`` switch the two
    parts on.
    """

    def __init__(
        self,
        console: Console,
        *,
        total: int,
        already: int,
        remaining: int,
        board_every: int,
        show_bar: bool,
        live_tables: bool,
        line_every: float | None = None,
    ) -> None:
        self.total = total
        self.already = already
        self.remaining = remaining
        self.board_every = board_every
        self.live_tables = live_tables
        self.bar = Progress(
            TextColumn("[bold]games"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>7.1f} games/s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("failures {task.fields[failures]}"),
            console=console,
            disable=not show_bar,
        )
        self.task = self.bar.add_task("games", total=total, completed=already, rate=0.0, failures=0)
        self.started = time.perf_counter()
        self.next_board = board_every
        self.console = console
        self.line_every = line_every
        """Seconds between plain progress lines (None: none, e.g. when the bar is shown)."""
        self.last_line = self.started

    def __enter__(self) -> Reporter:
        self.bar.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.bar.__exit__(exc_type, exc, tb)

    def on_games(self, new: int, played: int, failures: int, tally: Tally) -> None:
        """``new`` more games are done (``played`` in this run; ``failures``: games with
        failures and games lost); ``tally`` holds the running counts."""
        rate = played / max(time.perf_counter() - self.started, 1e-9)
        self.bar.update(self.task, advance=new, rate=rate, failures=failures)
        now = time.perf_counter()
        if self.line_every is not None and (
            now - self.last_line >= self.line_every or played >= self.remaining
        ):
            self.last_line = now
            done = self.already + played
            eta = (self.remaining - played) / rate if rate > 0 else 0.0
            self.console.print(
                f"games {done}/{self.total} ({100 * done / max(self.total, 1):.0f}%), "
                f"{rate:.1f} games/s, {now - self.started:.0f} s, ETA {eta:.0f} s, "
                f"failures {failures}",
                highlight=False,
            )
        if self.live_tables and played >= self.next_board and played < self.remaining:
            self.next_board += self.board_every
            title = f"after {self.already + played}/{self.total} games (live Elo)"
            self.bar.console.print(rich_table(live_leaderboard(tally), title, live=True))
