"""Per-bot figures over many analysed games: where each bot loses value.

:func:`bot_report` groups annotations by the bot that played them (``Annotation.player``):
decisions analysed, mean loss per move (in the analyser's unit), counts of inaccuracies,
mistakes and blunders, and the mean loss in each phase of the game (early, mid, late
thirds of its steps), so "where does my bot lose" has a number per phase.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from arena.analysis.evaluate import MARKS, PHASES, Annotation


@dataclass
class BotLoss:
    """One bot's losses over the analysed decisions."""

    bot: str
    """The bot's name in the records."""
    decisions: int = 0
    """Decisions analysed (forced moves are not)."""
    total_loss: float = 0.0
    """Sum of the losses."""
    marks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MARKS, 0))
    """Count of each mark."""
    phase_loss: dict[str, list[float]] = field(
        default_factory=lambda: {p: [0.0, 0.0] for p in PHASES}
    )
    """Per phase: [sum of losses, decisions]."""

    @property
    def mean_loss(self) -> float:
        return self.total_loss / self.decisions if self.decisions else 0.0

    def phase_mean(self, phase: str) -> float | None:
        total, n = self.phase_loss[phase]
        return total / n if n else None

    @property
    def worst_phase(self) -> str:
        """The phase with the highest mean loss ("-" without decisions)."""
        means = [(m, p) for p in PHASES if (m := self.phase_mean(p)) is not None]
        return max(means)[1] if means else "-"


def bot_report(annotations: Iterable[Annotation]) -> list[BotLoss]:
    """Per-bot losses, by increasing mean loss (the strongest first)."""
    bots: dict[str, BotLoss] = defaultdict(lambda: BotLoss(""))
    for ann in annotations:
        b = bots[ann.player]
        b.bot = ann.player
        b.decisions += 1
        b.total_loss += ann.loss
        if ann.mark is not None:
            b.marks[ann.mark] += 1
        b.phase_loss[ann.phase][0] += ann.loss
        b.phase_loss[ann.phase][1] += 1
    return sorted(bots.values(), key=lambda b: (b.mean_loss, b.bot))


def report_rows(report: list[BotLoss]) -> list[dict[str, str | int | float]]:
    rows: list[dict[str, str | int | float]] = []
    for b in report:
        row: dict[str, str | int | float] = {
            "bot": b.bot,
            "decisions": b.decisions,
            "mean_loss": round(b.mean_loss, 4),
        }
        for m in MARKS:
            row[m] = b.marks[m]
        for p in PHASES:
            mean = b.phase_mean(p)
            row[f"loss_{p}"] = "" if mean is None else round(mean, 4)
        row["worst_phase"] = b.worst_phase
        rows.append(row)
    return rows


def write_csv(report: list[BotLoss], path: str | Path) -> None:
    rows = report_rows(report)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as fh:
        if not rows:
            return
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
