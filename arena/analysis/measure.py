"""The figures that say whether an analysis can be trusted, per game (``python -m
arena.analysis.measure``).

For each game, ``--games`` games of ``random``, ``greedy`` and ``ismcts:iterations=200``
at one table (seats rotated over the seeds; kept in ``--records DIR`` and reused) are
analysed twice, with seeds 0 and 1, and it reports:

- **ms per decision**: the median analysis time of a decision (seed 0's run);
- **stability**: the share of decisions whose best move is the same with both seeds
  (``agree``), and the share where it is the same *or* each analysis's best move is
  within the other's noise (``agree_or_tie``: the analysis said they were tied, so naming
  either is not an error); ``tied`` is the share of decisions with a tie at the top;
- **mean loss per move** of each bot (seed 0), with its standard error over the
  decisions: the analysis should order random > greedy > ismcts.

The figures are machine-dependent only in ``ms``; everything else is reproducible from the
seeds. Performance goals live here, not in tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.analysis.analysers import Analyser, make_analyser, mean_se
from arena.analysis.evaluate import Annotation, analyse_record, analyser_label

GAMES = ("panorama", "carson_city_zoo", "manatee_sanctuary", "zooloretto_mini", "dziobaki")
BOTS = ("random", "greedy", "ismcts:iterations=200")


@dataclass
class GameFigures:
    """The figures of one game (see the module docstring)."""

    game: str
    analyser: str
    """The analyser and the settings in effect for the game."""
    decisions: int
    ms_median: float
    agree: float
    agree_or_tie: float
    tied: float
    mean_loss: dict[str, float] = field(default_factory=dict)
    """Per bot (its name in the records): mean loss per move."""
    loss_se: dict[str, float] = field(default_factory=dict)
    """Per bot: the standard error of that mean over the decisions."""

    @property
    def ordered(self) -> bool:
        """Whether the mean losses order random > greedy > ismcts."""
        m = self.mean_loss
        return m.get("random", 0.0) > m.get("greedy", 0.0) > m.get("ismcts", 0.0)


def sample_games(game: str, n: int, records: Path | None) -> list[dict[str, Any]]:
    """``n`` games of :data:`BOTS` (seat order rotated by the seed), read from
    ``records/<game>.jsonl`` when it holds them, else played and written there."""
    from arena.match.cmdbots import open_bots
    from arena.match.records import dumps_line, read_records
    from arena.match.runner import MatchConfig, MatchSpec

    path = None if records is None else records / f"{game}.jsonl"
    if path is not None and path.exists():
        have = list(read_records(path))
        if len(have) >= n:
            return have[:n]
    out = []
    for seed in range(n):
        order = [BOTS[(seed + k) % len(BOTS)] for k in range(len(BOTS))]
        spec = MatchSpec(game, len(order), seed, match_id=f"m{seed}", game_id=f"{game}-{seed}")
        with open_bots(order, spec, MatchConfig(), names=[s.split(":")[0] for s in order]) as s:
            out.append(s.play())
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(dumps_line(r) + "\n" for r in out), encoding="utf-8")
    return out


def stability(
    first: Sequence[Annotation], second: Sequence[Annotation]
) -> tuple[float, float, float]:
    """(agree, agree_or_tie, tied) over the decisions both analyses annotated."""
    by_key = {(a.game_id, a.step): a for a in second}
    pairs = [(a, by_key[(a.game_id, a.step)]) for a in first if (a.game_id, a.step) in by_key]
    if not pairs:
        return 0.0, 0.0, 0.0
    agree = sum(1 for a, b in pairs if a.best == b.best)
    close = sum(1 for a, b in pairs if a.best == b.best or b.best in a.tied or a.best in b.tied)
    tied = sum(1 for a, _ in pairs if any(t != a.played or a.tie for t in a.tied))
    return agree / len(pairs), close / len(pairs), tied / len(pairs)


def measure_game(
    game: str, records: Sequence[Mapping[str, Any]], analyser: Analyser
) -> GameFigures:
    """The figures of ``game`` over ``records`` (seeds 0 and 1)."""
    runs = [[a for r in records for a in analyse_record(r, analyser, seed)] for seed in (0, 1)]
    agree, close, tied = stability(runs[0], runs[1])
    per_bot: dict[str, list[float]] = {}
    for a in runs[0]:
        per_bot.setdefault(a.player, []).append(a.loss)
    figures = GameFigures(
        game=game,
        analyser=analyser_label(analyser, game),
        decisions=len(runs[0]),
        ms_median=statistics.median(a.ms for a in runs[0]) if runs[0] else 0.0,
        agree=agree,
        agree_or_tie=close,
        tied=tied,
    )
    for bot, losses in sorted(per_bot.items()):
        figures.mean_loss[bot], figures.loss_se[bot] = mean_se(losses)
    return figures


def row(f: GameFigures) -> str:
    """One line of the figures table (Markdown)."""
    losses = " / ".join(
        f"{f.mean_loss.get(b, float('nan')):.2f}±{f.loss_se.get(b, float('nan')):.2f}"
        for b in ("ismcts", "greedy", "random")
    )
    return (
        f"| {f.game} | {f.analyser} | {f.ms_median:.0f} | {f.agree:.2f} | {f.agree_or_tie:.2f}"
        f" | {f.tied:.2f} | {losses} | {'yes' if f.ordered else 'NO'} | {f.decisions} |"
    )


HEADER = (
    "| game | analyser | ms/decision | same best | same or tied | tie at top "
    "| mean loss ismcts / greedy / random | ordered | decisions |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="(repeat; default all)")
    parser.add_argument("--games", type=int, default=6, help="games per game type")
    parser.add_argument("--bot", default="rollout", help="analyser spec (arena analyse --bot)")
    parser.add_argument("--budget", default=None, help="iterations=N (default: per game)")
    parser.add_argument("--records", type=Path, default=None, help="keep/reuse games here")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 1000:
        parser.error("--games must be 1..1000")
    try:
        analyser = make_analyser(args.bot, args.budget)
    except ValueError as exc:
        parser.error(str(exc))
    out = []
    print(HEADER, flush=True)
    for game in args.game or GAMES:
        records = sample_games(game, args.games, args.records)
        figures = measure_game(game, records, analyser)
        out.append(figures)
        print(row(figures), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(f) for f in out], indent=1), encoding="utf-8")
    return 0 if all(f.ordered for f in out) else 1


if __name__ == "__main__":
    sys.exit(main())
