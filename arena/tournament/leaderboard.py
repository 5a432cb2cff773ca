"""The leaderboard as a terminal table, CSV, Markdown and HTML (each with the
:data:`LEGEND`), the crosstable of pairwise results, and the Elo plot."""

from __future__ import annotations

import csv
import html
import io
import os
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from arena.tournament.ratings import PRIOR_DRAWS, Point, Row

LEGEND = (
    "rating: the headline rating, a Plackett-Luce fit of every game as a ranking "
    f"(Bradley-Terry for 2 seats) with a prior of {PRIOR_DRAWS:g} virtual draws against the "
    "field, on the Elo scale (mean of the rated bots 1500), with its 95% interval "
    "(Laplace); unrated: no game that compares the bot with another; group: bots of "
    "different groups never met (their ratings are not comparable). elo (seq.): a sequential "
    "estimate (K=16, games in a fixed order), not the headline. score: share of pairwise "
    "contests won (ties half). points: mean game score. win rate: mean win share (a "
    "first place shared by m seats is 1/m; an all-forfeit game is no win for anyone). "
    "failures: recorded events by kind. (docs/design.md, Scoring)"
)
"""What every column means; printed under every leaderboard."""

HEADERS = (
    "rank",
    "bot",
    "rating",
    "95% interval",
    "elo (seq.)",
    "games",
    "score",
    "points",
    "win rate",
    "failures",
)


def _failures(row: Row) -> str:
    return ", ".join(f"{k} {v}" for k, v in row.failures.items()) or "-"


def _rating(row: Row) -> str:
    if row.rating is None:
        return "unrated"
    return f"{row.rating:.0f}" + (f" (group {row.group})" if row.group is not None else "")


def _interval(row: Row) -> str:
    if row.low is None or row.high is None:
        return "-"
    return f"[{row.low:.0f}, {row.high:.0f}]"


def _cells(row: Row, with_ci: bool = True) -> list[str]:
    return [
        "-" if row.rank is None else str(row.rank),
        row.name,
        _rating(row),
        _interval(row) if with_ci else "-",
        f"{row.elo:.0f}",
        str(row.games),
        f"{100 * row.score:.1f}%",
        f"{row.points:.2f}",
        f"{100 * row.win_rate:.1f}%",
        _failures(row),
    ]


def make_console(stderr: bool = False, quiet: bool = False) -> Console:
    """A rich console; wide enough for the leaderboard when output is not a terminal."""
    console = Console(stderr=stderr, quiet=quiet)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(stderr=stderr, quiet=quiet, width=160)
    return console


def rich_table(rows: Sequence[Row], title: str, live: bool = False) -> Table:
    """``live``: ranked by live Elo without intervals (the fit is done at the end)."""
    table = Table(
        title=title,
        title_justify="left",
        caption=None if live else LEGEND,
        caption_justify="left",
    )
    for h in HEADERS:
        if live and h in ("rating", "95% interval"):
            continue
        table.add_column(
            h, justify="left" if h in ("bot", "failures") else "right", no_wrap=h != "failures"
        )
    for row in rows:
        cells = _cells(row, not live)
        if live:
            del cells[2:4]
        table.add_row(*cells)
    return table


def to_csv(rows: Sequence[Row]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    keys = list(rows[0].to_json()) if rows else ["rank", "bot"]
    writer.writerow(keys)
    for row in rows:
        data = row.to_json()
        data["failures"] = ";".join(f"{k}={v}" for k, v in row.failures.items())
        writer.writerow([data[k] for k in keys])
    return buf.getvalue()


def to_markdown(rows: Sequence[Row], title: str) -> str:
    lines = [f"# {title}", "", "| " + " | ".join(HEADERS) + " |"]
    lines.append("|" + "|".join("---:" if h not in ("bot", "failures") else "---" for h in HEADERS))
    lines[-1] += "|"
    for row in rows:
        lines.append("| " + " | ".join(_cells(row)) + " |")
    lines += ["", LEGEND]
    return "\n".join(lines) + "\n"


def to_html(rows: Sequence[Row], title: str) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADERS)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _cells(row)) + "</tr>"
        for row in rows
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "td:nth-child(2),th:nth-child(2){text-align:left}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><table><tr>{head}</tr>{body}</table>"
        f"<p class='legend'>{html.escape(LEGEND)}</p></body></html>\n"
    )


def crosstable_rows(
    order: Sequence[str], cells: dict[tuple[str, str], tuple[float, int]]
) -> list[list[str]]:
    """The crosstable as text cells: a header row, then one row per bot with its
    ``points/contests`` against each other bot (a tie is half a point)."""
    out = [["bot", *order]]
    for a in order:
        row = [a]
        for b in order:
            if a == b:
                row.append("")
                continue
            pts, n = cells.get((a, b), (0.0, 0))
            row.append(f"{pts:g}/{n}" if n else "-")
        out.append(row)
    return out


def crosstable_csv(order: Sequence[str], cells: dict[tuple[str, str], tuple[float, int]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(crosstable_rows(order, cells))
    return buf.getvalue()


def crosstable_table(
    order: Sequence[str], cells: dict[tuple[str, str], tuple[float, int]], title: str
) -> Table:
    rows = crosstable_rows(order, cells)
    table = Table(
        title=title,
        title_justify="left",
        caption="row bot's points/contests against the column bot (a tie is half a point)",
        caption_justify="left",
    )
    for i, h in enumerate(rows[0]):
        table.add_column(h, justify="left" if i == 0 else "right")
    for row in rows[1:]:
        table.add_row(*row)
    return table


def plot_ratings(
    trajectory: Sequence[Point],
    path: Path,
    title: str,
) -> None:
    """Elo over games completed, one line per bot, as a PNG (matplotlib Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5), dpi=100)
    ax = fig.subplots()
    names = sorted({n for _, elo, _ in trajectory for n in elo})
    steps = [s for s, _, _ in trajectory]
    for name in names:
        ax.plot(steps, [elo.get(name, float("nan")) for _, elo, _ in trajectory], label=name)
    ax.set_xlabel("games completed")
    ax.set_ylabel("Elo (sequential estimate)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if names:
        ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    fig.savefig(path)
