"""The leaderboard as a terminal table, CSV, Markdown and HTML (each with the
:data:`LEGEND`), the crosstable of pairwise results, and the Elo plot (a PNG drawn with Pillow)."""

from __future__ import annotations

import csv
import html
import io
import math
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


PLOT_SIZE = (800, 450)
"""The Elo plot's size in pixels."""
PLOT_COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
"""Line colours, one per bot in name order (matplotlib's tab10, repeated)."""


def nice_ticks(low: float, high: float, most: int = 6, min_step: float = 0.0) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart, at least ``min_step``)
    covering [low, high].

    >>> nice_ticks(1480, 1523)
    [1480.0, 1490.0, 1500.0, 1510.0, 1520.0, 1530.0]
    """
    if high <= low:
        low, high = low - 1, high + 1
    raw = (high - low) / max(1, most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = max(min_step, next(m * power for m in (1, 2, 5, 10) if m * power >= raw))
    first = math.floor(low / step) * step
    count = math.ceil((high - first) / step - 1e-9) + 1
    return [float(round(first + k * step, 10)) for k in range(count)]


def plot_ratings(
    trajectory: Sequence[Point],
    path: Path,
    title: str,
) -> None:
    """Elo over games completed, one line per bot, as a PNG.

    Drawn with Pillow rather than matplotlib: importing matplotlib costs about a second
    of CPU, more than a small tournament takes to play (issue 19), and a line chart with
    axes, ticks and a legend needs nothing matplotlib adds."""
    from PIL import Image, ImageDraw, ImageFont

    width, height = PLOT_SIZE
    image = Image.new("RGB", PLOT_SIZE, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=12)
    big = ImageFont.load_default(size=15)
    names = sorted({n for _, elo, _ in trajectory for n in elo})
    steps = [s for s, _, _ in trajectory]
    values = [v for _, elo, _ in trajectory for v in elo.values() if math.isfinite(v)]
    yticks = nice_ticks(min(values, default=1490), max(values, default=1510))
    xticks = nice_ticks(min(steps, default=0), max(steps, default=1), most=8, min_step=1)
    left, top, right, bottom = 70, 50, width - 150, height - 50
    x0, x1, y0, y1 = xticks[0], xticks[-1], yticks[0], yticks[-1]

    def at(x: float, y: float) -> tuple[float, float]:
        return (
            left + (x - x0) / ((x1 - x0) or 1) * (right - left),
            bottom - (y - y0) / ((y1 - y0) or 1) * (bottom - top),
        )

    draw.text((left, 6), title, fill="black", font=big)
    for y in yticks:
        _, py = at(x0, y)
        draw.line([(left, py), (right, py)], fill="#e6e6e6")
        draw.text((left - 6, py), f"{y:g}", fill="black", font=font, anchor="rm")
    for x in xticks:
        px, _ = at(x, y0)
        draw.line([(px, top), (px, bottom)], fill="#e6e6e6")
        draw.text((px, bottom + 6), f"{x:g}", fill="black", font=font, anchor="mt")
    draw.rectangle([left, top, right, bottom], outline="black")
    draw.text(
        ((left + right) / 2, height - 8), "games completed", fill="black", font=font, anchor="mb"
    )
    draw.text((8, top - 18), "Elo (sequential estimate)", fill="black", font=font)
    for k, name in enumerate(names):
        color = PLOT_COLORS[k % len(PLOT_COLORS)]
        line = [
            at(step, elo[name])
            for step, elo, _ in trajectory
            if name in elo and math.isfinite(elo[name])
        ]
        if len(line) > 1:
            draw.line(line, fill=color, width=2, joint="curve")
        elif line:
            (px, py) = line[0]
            draw.ellipse([px - 3, py - 3, px + 3, py + 3], fill=color)
        ly = top + 8 + 18 * k
        if ly < bottom:  # a legend longer than the plot is cut (the CSV has every bot)
            draw.line([(right + 10, ly), (right + 30, ly)], fill=color, width=2)
            label = name if len(name) <= 16 else name[:15] + "…"
            draw.text((right + 36, ly), label, fill="black", font=font, anchor="lm")
    image.save(path, format="PNG")
