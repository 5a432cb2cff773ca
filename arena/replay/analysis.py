"""Analysis of logged games: the game list, per-bot statistics, export for notebooks.

- :func:`game_rows` / :func:`games_table`: one line per game (id, players, scores,
  ranks, events), filtered by bot, by game and to the games a bot lost;
- :func:`bot_stats`: per bot, the mean score by breakdown category, move-time
  percentiles (from ``steps[].ms``), failures by kind, games, wins (the sum of win
  shares: a shared first place is a share, see docs/design.md, *Scoring*);
- :func:`seat_rows` / :func:`export`: one row per game and seat, to CSV or Parquet.

A bot *lost* a game when it is not ranked first after forfeits (``standing.ranks``;
the engine's ranks when a record has no standing); a shared first place is not a loss.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from arena.errors import UserError
from arena.stats import percentile
from arena.tournament.ratings import win_share

PERCENTILES = (50, 90, 99)


def ranks_of(record: dict[str, Any]) -> list[int]:
    ranks = (record.get("standing") or {}).get("ranks") or record["result"]["ranks"]
    return [int(r) for r in ranks]


def names_of(record: dict[str, Any]) -> list[str]:
    players = record.get("players") or []
    return [str(p.get("name", f"seat {i}")) for i, p in enumerate(players)]


def seats_of(record: dict[str, Any], bot: str) -> list[int]:
    return [s for s, name in enumerate(names_of(record)) if name == bot]


def lost(record: dict[str, Any], bot: str) -> bool:
    ranks = ranks_of(record)
    return any(ranks[s] > 1 for s in seats_of(record, bot))


def filter_games(
    records: Iterable[dict[str, Any]],
    bot: str | None = None,
    only_lost: bool = False,
    game: str | None = None,
) -> list[dict[str, Any]]:
    """Records of ``game``, with ``bot`` in them, and (``only_lost``) lost by ``bot``."""
    if only_lost and bot is None:
        raise UserError("--lost needs --bot BOT (the bot whose lost games to list)")
    out = []
    for rec in records:
        if game is not None and rec.get("game") != game:
            continue
        if bot is not None and not seats_of(rec, bot):
            continue
        if only_lost and bot is not None and not lost(rec, bot):
            continue
        out.append(rec)
    return out


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def event_summary(record: dict[str, Any]) -> str:
    counts = Counter(
        f"{e.get('kind')}@{e.get('seat')}" for e in record.get("events") or [] if e.get("kind")
    )
    return ", ".join(f"{k}" + (f" x{n}" if n > 1 else "") for k, n in counts.items())


def game_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One dict per game: id, game, players, scores, ranks, steps, events."""
    rows = []
    for rec in records:
        rows.append(
            {
                "game_id": rec.get("game_id"),
                "game": rec.get("game"),
                "players": names_of(rec),
                "scores": list(rec["result"]["scores"]),
                "ranks": ranks_of(rec),
                "steps": len(rec.get("steps") or []),
                "events": [dict(e) for e in rec.get("events") or []],
            }
        )
    return rows


def games_table(records: Sequence[dict[str, Any]], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("game id", no_wrap=True)
    table.add_column("game")
    table.add_column("players (seat: bot score rank)")
    table.add_column("steps", justify="right")
    table.add_column("events")
    for rec in records:
        scores = rec["result"]["scores"]
        ranks = ranks_of(rec)
        cells = Text()
        for s, name in enumerate(names_of(rec)):
            if s:
                cells.append("  ")
            style = "bold green" if ranks[s] == 1 else ""
            cells.append(f"{s}: {name} {_num(scores[s])} #{ranks[s]}", style=style)
        ev = event_summary(rec)
        table.add_row(
            str(rec.get("game_id")),
            str(rec.get("game")),
            cells,
            str(len(rec.get("steps") or [])),
            Text(ev, style="bold red") if ev else Text("-", style="dim"),
        )
    return table


# ---------------------------------------------------------------------------
# Per-bot statistics
# ---------------------------------------------------------------------------


@dataclass
class BotStats:
    """What one bot did over a set of games (all seats it played)."""

    bot: str
    games: int = 0
    wins: float = 0.0
    """The sum of win shares (``arena.tournament.ratings.win_share``: a shared first
    place is a share; an all-forfeit game is no win)."""
    scores: list[float] = field(default_factory=list)
    categories: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    move_ms: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)

    @property
    def mean_score(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    def mean(self, category: str) -> float | None:
        values = self.categories.get(category)
        return sum(values) / len(values) if values else None

    def ms_percentiles(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {
            f"p{q}": (percentile(self.move_ms, q) if self.move_ms else None) for q in PERCENTILES
        }
        out["max"] = max(self.move_ms) if self.move_ms else None
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "games": self.games,
            "wins": round(self.wins, 4),
            "mean_score": round(self.mean_score, 4),
            "mean_by_category": {
                c: round(v, 4) for c in self.categories if (v := self.mean(c)) is not None
            },
            "moves": len(self.move_ms),
            "move_ms": {
                k: (round(v, 4) if v is not None else None)
                for k, v in self.ms_percentiles().items()
            },
            "failures": dict(self.failures),
        }


def bot_stats(records: Iterable[dict[str, Any]]) -> list[BotStats]:
    """Per-bot statistics, bots in order of first appearance."""
    stats: dict[str, BotStats] = {}
    for rec in records:
        names = names_of(rec)
        ranks = ranks_of(rec)
        result = rec["result"]
        for seat, name in enumerate(names):
            st = stats.setdefault(name, BotStats(name))
            st.games += 1
            st.wins += win_share(ranks, (rec.get("standing") or {}).get("forfeited") or [], seat)
            st.scores.append(float(result["scores"][seat]))
            for cat, value in (result["breakdown"][seat] or {}).items():
                if cat != "total" and isinstance(value, int | float):
                    st.categories[cat].append(float(value))
        for step in rec.get("steps") or []:
            seat = step.get("seat")
            ms = step.get("ms")
            if isinstance(seat, int) and 0 <= seat < len(names) and isinstance(ms, int | float):
                stats[names[seat]].move_ms.append(float(ms))
        for ev in rec.get("events") or []:
            seat = ev.get("seat")
            if isinstance(seat, int) and 0 <= seat < len(names):
                stats[names[seat]].failures[str(ev.get("kind"))] += 1
    return list(stats.values())


def _opt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def stats_tables(stats: Sequence[BotStats], title: str) -> list[Table]:
    """The summary (games, wins, score, move times, failures) and the category means."""
    main = Table(title=title, title_justify="left")
    for col, just in (
        ("bot", "left"),
        ("games", "right"),
        ("wins", "right"),
        ("mean score", "right"),
        ("moves", "right"),
        ("ms p50", "right"),
        ("ms p90", "right"),
        ("ms p99", "right"),
        ("ms max", "right"),
        ("failures", "left"),
    ):
        main.add_column(col, justify=just)  # type: ignore[arg-type]  # str, not rich's Literal
    for st in stats:
        pct = st.ms_percentiles()
        fails = ", ".join(f"{k} {n}" for k, n in sorted(st.failures.items()))
        main.add_row(
            st.bot,
            str(st.games),
            f"{st.wins:g}",
            f"{st.mean_score:.2f}",
            str(len(st.move_ms)),
            _opt(pct["p50"], 3),
            _opt(pct["p90"], 3),
            _opt(pct["p99"], 3),
            _opt(pct["max"], 3),
            Text(fails, style="bold red") if fails else Text("-", style="dim"),
        )
    cats: list[str] = []
    for st in stats:
        cats.extend(c for c in st.categories if c not in cats)
    by_cat = Table(title="mean score by category", title_justify="left")
    by_cat.add_column("category")
    for st in stats:
        by_cat.add_column(st.bot, justify="right")
    for cat in cats:
        by_cat.add_row(cat, *(_opt(st.mean(cat)) for st in stats))
    by_cat.add_row(
        Text("score", style="bold"), *(Text(f"{st.mean_score:.2f}", style="bold") for st in stats)
    )
    return [main, by_cat]


# ---------------------------------------------------------------------------
# Export: one row per game and seat
# ---------------------------------------------------------------------------

BASE_COLUMNS = (
    "game_id",
    "match_id",
    "tournament_id",
    "game",
    "game_version",
    "num_players",
    "seed",
    "round",
    "seat",
    "bot",
    "bot_spec",
    "bot_version",
    "score",
    "rank",
    "engine_rank",
    "won",
    "forfeited",
    "steps",
    "moves",
    "ms_total",
    "ms_mean",
    "ms_p50",
    "ms_p90",
    "ms_max",
    "events",
    "timeouts",
    "illegal",
    "crashes",
    "duration_ms",
)


def seat_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per game and seat; score categories as ``bd_<category>`` columns."""
    rows: list[dict[str, Any]] = []
    for rec in records:
        names = names_of(rec)
        players = rec.get("players") or []
        ranks = ranks_of(rec)
        result = rec["result"]
        forfeited = set((rec.get("standing") or {}).get("forfeited") or [])
        ms_by_seat: dict[int, list[float]] = defaultdict(list)
        for step in rec.get("steps") or []:
            seat, ms = step.get("seat"), step.get("ms")
            if isinstance(seat, int):
                ms_by_seat[seat].append(float(ms) if isinstance(ms, int | float) else 0.0)
        for seat in range(int(rec["num_players"])):
            ms = ms_by_seat.get(seat, [])
            events = [e for e in rec.get("events") or [] if e.get("seat") == seat]
            kinds = Counter(str(e.get("kind")) for e in events)
            player = players[seat] if seat < len(players) else {}
            row: dict[str, Any] = {
                "game_id": rec.get("game_id"),
                "match_id": rec.get("match_id"),
                "tournament_id": rec.get("tournament_id"),
                "game": rec.get("game"),
                "game_version": rec.get("game_version"),
                "num_players": rec.get("num_players"),
                "seed": str(rec.get("seed")),
                "round": (rec.get("schedule") or {}).get("round"),
                "seat": seat,
                "bot": names[seat] if seat < len(names) else None,
                "bot_spec": player.get("spec"),
                "bot_version": str(player.get("version")) if player else None,
                "score": float(result["scores"][seat]),
                "rank": ranks[seat],
                "engine_rank": int(result["ranks"][seat]),
                "won": ranks[seat] == 1,
                "forfeited": seat in forfeited,
                "steps": len(rec.get("steps") or []),
                "moves": len(ms),
                "ms_total": sum(ms),
                "ms_mean": sum(ms) / len(ms) if ms else None,
                "ms_p50": percentile(ms, 50) if ms else None,
                "ms_p90": percentile(ms, 90) if ms else None,
                "ms_max": max(ms) if ms else None,
                "events": len(events),
                "timeouts": kinds.get("timeout", 0),
                "illegal": kinds.get("illegal", 0),
                "crashes": kinds.get("crash", 0),
                "duration_ms": rec.get("duration_ms"),
            }
            for cat, value in (result["breakdown"][seat] or {}).items():
                if cat != "total":
                    row[f"bd_{cat}"] = float(value) if isinstance(value, int | float) else None
            rows.append(row)
    return rows


def export(records: Iterable[dict[str, Any]], out: Path) -> int:
    """Write one row per game-seat to ``out`` (``.parquet`` or ``.csv``); returns the rows."""
    import pyarrow as pa

    suffix = out.suffix.lower()
    if suffix not in (".parquet", ".csv"):
        raise UserError(f"--out must end in .parquet or .csv, got {out}")
    rows = seat_rows(records)
    columns = list(BASE_COLUMNS)
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    table = pa.Table.from_pylist([{c: r.get(c) for c in columns} for r in rows], schema=None)
    if not rows:
        table = pa.table({c: pa.array([], type=pa.string()) for c in columns})
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, out)
    else:
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, out)
    return len(rows)
