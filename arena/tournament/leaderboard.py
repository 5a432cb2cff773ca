"""The leaderboard as a terminal table, CSV, Markdown and HTML; the rating plot."""

from __future__ import annotations

import csv
import html
import io
import os
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from arena.tournament.ratings import Point, Row

HEADERS = (
    "rank",
    "bot",
    "rating",
    "95% CI",
    "elo",
    "games",
    "score",
    "points",
    "win rate",
    "failures",
)


def _failures(row: Row) -> str:
    return ", ".join(f"{k} {v}" for k, v in row.failures.items()) or "-"


def _cells(row: Row, with_ci: bool = True) -> list[str]:
    return [
        str(row.rank),
        row.name,
        f"{row.rating:.0f}",
        f"±{row.ci:.0f}" if with_ci else "-",
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
    table = Table(title=title, title_justify="left")
    for h in HEADERS:
        if live and h in ("rating", "95% CI"):
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
    lines += [
        "",
        "rating: Bradley–Terry on the Elo scale (mean 1500) with its bootstrap 95% interval;",
        "elo: sequential Elo; score: share of pairwise contests won (ties half);",
        "points: mean game score; failures: recorded events by kind.",
    ]
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
        f"<h1>{html.escape(title)}</h1><table><tr>{head}</tr>{body}</table></body></html>\n"
    )


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
    ax.set_ylabel("Elo")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if names:
        ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    fig.savefig(path)
