"""The ladder's standings as tables: terminal, JSON, CSV, Markdown and HTML.

Rows are the store's (:meth:`arena.ladder.store.LadderStore.standings`): every active
version, best first by the conservative ordinal ``μ − 3σ``, plus the broken ones (last,
with the reason their author sees). A version is marked provisional (``?``) while its σ is
above the ladder's threshold.

``batch=True`` adds, side by side, the batch Plackett–Luce fit over every counted result
of the ladder with Laplace 95 % intervals (``arena.tournament.ratings.plackett_luce``,
the tournaments' headline rating; a k-player game counts as one ranking, forfeits ranked
last): the
online OpenSkill ratings follow the games as they come, the batch fit weighs them all
alike, so the two agreeing is a check on both.
"""

from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from arena.ladder.rating import outcome_of
from arena.ladder.store import LadderStore
from arena.ladder.views import LadderInfo, StandingRow
from arena.tournament.ratings import PRIOR_DRAWS, GameSummary, RatingFit, plackett_luce

SHOWN = ("active", "broken")


@dataclass(frozen=True)
class Standings:
    """A ladder's standings at one moment."""

    ladder: LadderInfo
    rows: list[StandingRow]
    reasons: dict[int, str]
    """Version id -> why it is broken."""
    counts: dict[str, int]
    """Matches per status (``arena.ladder.store.LadderStore.match_counts``)."""
    batch: RatingFit | None = None
    """The batch Plackett–Luce fit by version label (``--batch``)."""
    batch_games: int = 0

    @property
    def title(self) -> str:
        lad = self.ladder
        return (
            f"ladder {lad.name}: {lad.game}, {lad.players} players, "
            f"{self.counts.get('done', 0)} matches counted"
        )


def results_as_games(store: LadderStore, ladder: str) -> tuple[list[GameSummary], list[str]]:
    """Every counted result as a tournament game summary (names: ``bot@version``), and
    the labels of the versions that played them."""
    labels = {v.id: v.label for v in store.versions(ladder)}
    games: list[GameSummary] = []
    for match in store.matches(ladder, statuses=["done"]):
        if match.result is None:
            continue
        outcome = outcome_of(match.result)
        games.append(
            GameSummary(
                game_id=str(match.id),
                round=0,
                names=[labels[v] for v in match.seats],
                ranks=outcome.effective_ranks,
                scores=list(outcome.scores) or [0.0] * outcome.seats,
                failures=[(s, "forfeit") for s in outcome.forfeited],
                forfeited=list(outcome.forfeited),
            )
        )
    played = {name for game in games for name in game.names}
    return games, [label for label in labels.values() if label in played]


def load_standings(store: LadderStore, ladder: str, *, batch: bool = False) -> Standings:
    info = store.ladder(ladder)
    rows = store.standings(ladder, statuses=SHOWN)
    rows = [r for r in rows if r.status == "active"] + [r for r in rows if r.status != "active"]
    reasons = {
        v.id: v.reason or "broken"
        for v in store.versions(ladder, statuses=["broken"])
        if v.status == "broken"
    }
    counts = store.match_counts(ladder)
    fit: RatingFit | None = None
    n = 0
    if batch:
        games, labels = results_as_games(store, ladder)
        n = len(games)
        fit = plackett_luce(games, labels)
    return Standings(info, rows, reasons, counts, fit, n)


def _ordinal(row: StandingRow) -> str:
    return f"{row.ordinal:.2f}" + ("?" if row.provisional else "")


def _status(st: Standings, row: StandingRow) -> str:
    if row.status == "broken":
        return f"broken: {st.reasons.get(row.version_id, 'broken')}"
    return "provisional" if row.provisional else row.status


HEADERS = ("rank", "bot", "owner", "mu", "sigma", "ordinal", "games", "status")
BATCH_HEADERS = ("BT rating", "95% CI")


def _cells(st: Standings, row: StandingRow, rank: str) -> list[str]:
    cells = [
        rank,
        row.label,
        row.owner,
        f"{row.mu:.2f}",
        f"{row.sigma:.2f}",
        _ordinal(row),
        str(row.games),
        _status(st, row),
    ]
    if st.batch is not None:
        fit = st.batch
        if row.label in fit.rating:
            half = (fit.high[row.label] - fit.low[row.label]) / 2
            cells += [f"{fit.rating[row.label]:.0f}", f"±{half:.0f}"]
        else:
            cells += ["-", "-"]
    return cells


def _ranked(st: Standings) -> list[tuple[str, StandingRow]]:
    """(shown rank, row): active versions 1, 2, ...; broken ones ``-``."""
    out: list[tuple[str, StandingRow]] = []
    n = 0
    for row in st.rows:
        if row.status == "active":
            n += 1
            out.append((str(n), row))
        else:
            out.append(("-", row))
    return out


def headers(st: Standings) -> list[str]:
    return [*HEADERS, *(BATCH_HEADERS if st.batch is not None else ())]


def footnote(st: Standings) -> str:
    lad = st.ladder
    text = (
        f"ordinal = mu - 3 sigma (OpenSkill Plackett-Luce); ? = provisional (sigma > "
        f"{lad.rating.provisional_sigma:.2f})"
    )
    if st.batch is not None:
        text += (
            f"; BT rating: batch Plackett-Luce (Bradley-Terry for 2 seats) over "
            f"{st.batch_games} counted games, {PRIOR_DRAWS:g} virtual draws of prior, Elo "
            "scale (mean 1500), Laplace 95% interval"
        )
    return text


def rich_table(st: Standings) -> Table:
    table = Table(title=st.title, title_justify="left", caption=footnote(st))
    for h in headers(st):
        table.add_column(h, justify="left" if h in ("bot", "owner", "status") else "right")
    for rank, row in _ranked(st):
        table.add_row(*_cells(st, row, rank))
    return table


def to_json(st: Standings) -> dict[str, Any]:
    rows = []
    for rank, row in _ranked(st):
        item: dict[str, Any] = {
            "rank": int(rank) if rank.isdigit() else None,
            "bot": row.bot,
            "version": row.version,
            "label": row.label,
            "owner": row.owner,
            "mu": round(row.mu, 4),
            "sigma": round(row.sigma, 4),
            "ordinal": round(row.ordinal, 4),
            "games": row.games,
            "provisional": row.provisional,
            "status": row.status,
            "reason": st.reasons.get(row.version_id),
        }
        if st.batch is not None and row.label in st.batch.rating:
            item["bt_rating"] = round(st.batch.rating[row.label], 2)
            item["bt_low"] = round(st.batch.low[row.label], 2)
            item["bt_high"] = round(st.batch.high[row.label], 2)
        rows.append(item)
    lad = st.ladder
    return {
        "ladder": lad.name,
        "game": lad.game,
        "players": lad.players,
        "matches": st.counts,
        "provisional_sigma": lad.rating.provisional_sigma,
        "batch_games": st.batch_games if st.batch is not None else None,
        "rows": rows,
    }


def to_csv(st: Standings) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(headers(st))
    for rank, row in _ranked(st):
        writer.writerow(_cells(st, row, rank))
    return buf.getvalue()


def to_markdown(st: Standings) -> str:
    hs = headers(st)
    lines = [f"# {st.title}", "", "| " + " | ".join(hs) + " |"]
    lines.append(
        "|" + "|".join("---" if h in ("bot", "owner", "status") else "---:" for h in hs) + "|"
    )
    for rank, row in _ranked(st):
        lines.append("| " + " | ".join(_cells(st, row, rank)) + " |")
    lines += ["", footnote(st)]
    return "\n".join(lines) + "\n"


def to_html(st: Standings) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers(st))
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _cells(st, row, rank)) + "</tr>"
        for rank, row in _ranked(st)
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(st.title)}</title><style>"
        "body{font-family:sans-serif}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "td:nth-child(2),td:nth-child(3),td:nth-child(8){text-align:left}</style></head>"
        f"<body><h1>{html.escape(st.title)}</h1><table><tr>{head}</tr>{body}</table>"
        f"<p>{html.escape(footnote(st))}</p></body></html>\n"
    )
