"""``arena replay`` in the terminal: one step, every step, or an interactive stepper.

Events (timeouts, illegal moves, crashes, forfeits) are highlighted; the final score
breakdown is shown at the last step. Output is plain text when it is not a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.replay.model import Replay, Step, parse_seat
from engine.core import JSON

EVENT_STYLES = {
    "timeout": "bold yellow",
    "illegal": "bold red",
    "crash": "bold red",
    "forfeit": "bold magenta",
}

HELP = (
    "n/Enter next, p previous, j N jump to step N (j end = last), f first, l last, "
    "e next event, s SEAT view of seat SEAT (s - spectator), log, q quit"
)


def event_text(ev: dict[str, JSON]) -> Text:
    kind = str(ev.get("kind", "event"))
    style = EVENT_STYLES.get(kind, "bold cyan")
    text = Text("  ! ", style=style)
    text.append(f"{kind}", style=style)
    text.append(f" (seat {ev.get('seat')}): {ev.get('reason', '')}")
    return text


def step_line(rp: Replay, step: Step, view: int | None, compact: bool = False) -> Text:
    """One line: ``k  who  action  ms`` (events follow on their own lines), the action as
    seat ``view`` (None: the spectator) may read it; ``compact``: ``who: action  ms``
    without the step number and the column padding."""
    width = 0 if compact else 22
    line = Text("" if compact else f"{step.k:>5}  ")
    if step.is_chance:
        line.append(f"{'chance' + (': ' if compact else ''):<{width}}", style="dim")
        line.append(step.text_for(view), style="dim")
    else:
        who = rp.who(step.seat) + ": " if compact else f"seat {step.seat} {rp.names[step.seat]}"
        line.append(f"{who:<{width}}", style="bold")
        line.append(step.text_for(view))
        if step.ms is not None:
            line.append(f"  {step.ms:.2f} ms", style="dim")
    if step.events:
        line.append("  <- " + ", ".join(str(e.get("kind")) for e in step.events), style="bold red")
    return line


def header(rp: Replay, k: int, seat: int | None) -> Text:
    rec = rp.record
    text = Text(f"{rec['game']} game {rec.get('game_id') or '-'}", style="bold")
    text.append(f"  step {k}/{rp.last}", style="bold cyan")
    text.append(f"  view: {rp.who(seat)}")
    step = rp.step(k)
    if step is None:
        text.append("\n  initial state")
    else:
        text.append(f"\n  step {k}: ")
        text.append_text(step_line(rp, step, seat, compact=True))
    mover = rp.to_move(k)
    if mover >= 0 or mover == -1:
        text.append(f"\n  to move: {rp.who(mover)}", style="dim")
    return text


def final_table(rp: Replay) -> Table:
    """The score breakdown: one row per category, one column per seat."""
    result = rp.result
    return score_table(
        rp.names, result["breakdown"], result["scores"], rp.final_ranks, rp.forfeited
    )


def score_table(
    names: Sequence[str],
    breakdown: Sequence[Mapping[str, object]],
    scores: Sequence[object],
    ranks: Sequence[int],
    forfeited: Collection[int],
) -> Table:
    """The final score of any source (a record, a live match's GameOver): one row per
    category (``total`` is the score row), one column per seat."""
    table = Table(title="final score", title_style="bold", show_lines=False)
    table.add_column("category")
    for s, name in enumerate(names):
        label = f"{s} {name}" + (" (forfeit)" if s in forfeited else "")
        table.add_column(label, justify="right")
    cats: list[str] = []
    for bd in breakdown:
        cats.extend(c for c in bd if c != "total" and c not in cats)
    for cat in cats:
        table.add_row(cat, *(_num(bd.get(cat, "")) for bd in breakdown))
    table.add_row(Text("score", style="bold"), *(Text(_num(v), style="bold") for v in scores))
    table.add_row("rank", *(str(r) for r in ranks))
    return table


def _num(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def print_frame(console: Console, rp: Replay, k: int, seat: int | None) -> None:
    """The header, events and the view of ``seat`` after step ``k`` (final score at the end)."""
    console.print(Text("─" * min(console.width, 100), style="cyan"))
    console.print(header(rp, k, seat))
    step = rp.step(k)
    for ev in step.events if step else ():
        console.print(event_text(ev))
    console.print(Text(rp.render(k, seat)), soft_wrap=True)
    if k == rp.last:
        print_final(console, rp)


def print_final(console: Console, rp: Replay) -> None:
    console.print(final_table(rp))
    for ev in rp.stray_events:
        console.print(event_text(ev))


def print_steps(console: Console, rp: Replay, seat: int | None = None) -> None:
    """Every step as one line as ``seat`` (None: the spectator) may read it (events
    highlighted), then the final score."""
    rec = rp.record
    players = ", ".join(f"{i} {n}" for i, n in enumerate(rp.names))
    console.print(
        Text(
            f"{rec['game']} game {rec.get('game_id') or '-'}: {players}; {rp.last} steps; "
            f"view: {rp.who(seat)}"
        ),
        style="bold",
        soft_wrap=True,
    )
    for step in rp.steps:
        console.print(step_line(rp, step, seat), soft_wrap=True)
        for ev in step.events:
            console.print(event_text(ev), soft_wrap=True)
    print_final(console, rp)


def print_log(console: Console, rp: Replay, k: int, seat: int | None, around: int = 5) -> None:
    for step in rp.steps[max(0, k - around - 1) : k + around]:
        line = step_line(rp, step, seat)
        if step.k == k:
            line.stylize("reverse")
        console.print(line, soft_wrap=True)


def interactive(
    console: Console,
    rp: Replay,
    seat: int | None,
    start: int = 0,
    read: Callable[[str], str] = input,
) -> None:
    """Step through the game with single-letter commands until ``q`` or end of input."""
    k = rp.clamp(start)
    print_frame(console, rp, k, seat)
    console.print(Text(HELP, style="dim"))
    while True:
        try:
            line = read(f"[{k}/{rp.last}] > ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        cmd, _, arg = line.partition(" ")
        arg = arg.strip()
        if cmd in ("q", "quit", "exit"):
            return
        if cmd in ("", "n", "next"):
            if k == rp.last:
                console.print("(this is the last step)", style="dim")
                continue
            k += 1
        elif cmd in ("p", "prev", "b"):
            if k == 0:
                console.print("(this is the initial state)", style="dim")
                continue
            k -= 1
        elif cmd in ("f", "first"):
            k = 0
        elif cmd in ("l", "last", "end"):
            k = rp.last
        elif cmd in ("j", "jump", "g"):
            if arg in ("end", "last", "$"):
                k = rp.last
            elif arg.lstrip("-").isdigit():
                k = rp.clamp(int(arg))
            else:
                console.print(f"j takes a step number 0..{rp.last} or 'end'", style="red")
                continue
        elif cmd in ("e", "event"):
            later = [s for s in rp.event_steps() if s > k]
            if not later:
                console.print("(no event after this step)", style="dim")
                continue
            k = later[0]
        elif cmd in ("s", "seat", "v"):
            try:
                seat = parse_seat(arg or None, rp.num_players)
            except ValueError as exc:
                console.print(str(exc), style="red")
                continue
        elif cmd == "log":
            print_log(console, rp, k, seat)
            continue
        elif cmd.isdigit():
            k = rp.clamp(int(cmd))
        else:
            console.print(HELP, style="dim")
            continue
        print_frame(console, rp, k, seat)
