"""Terminal output of an analysis: the annotated game, the thresholds, the per-bot table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from arena.analysis.analysers import Analyser
from arena.analysis.evaluate import MARKS, Annotation
from arena.analysis.report import BotLoss

STYLES = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red"}
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def thresholds_line(analyser: Analyser, game_id: str) -> str:
    t = analyser.thresholds(game_id)
    return (
        f"{game_id}: values in {analyser.unit} ({analyser.name}:{analyser.budget}); loss >= "
        f"{t.inaccuracy:g} inaccuracy ?!, >= {t.mistake:g} mistake ?, >= {t.blunder:g} blunder ??"
    )


def annotations_table(record: Mapping[str, Any], anns: Sequence[Annotation]) -> Table:
    table = Table(title=f"{record['game']} game {record.get('game_id')}: {len(anns)} decisions")
    for col in ("step", "seat", "played", "value", "best", "best value", "loss", "mark"):
        table.add_column(col, justify="right" if col in ("step", "value", "loss") else "left")
    for a in anns:
        style = STYLES.get(a.mark or "", "")
        table.add_row(
            str(a.step),
            f"{a.seat} {a.player}",
            a.played,
            f"{a.value:.2f}",
            "=" if a.loss == 0 else a.best,
            f"{a.best_value:.2f}",
            f"{a.loss:.2f}",
            Text(f"{a.mark} {SYMBOLS[a.mark]}" if a.mark else "", style=style),
        )
    return table


def report_table(report: Sequence[BotLoss], unit: str) -> Table:
    table = Table(title=f"per bot: loss per move in {unit}")
    for col in ("bot", "decisions", "mean loss", *MARKS, "early", "mid", "late", "worst phase"):
        table.add_column(col, justify="left" if col in ("bot", "worst phase") else "right")
    for b in report:
        phases = [b.phase_mean(p) for p in ("early", "mid", "late")]
        table.add_row(
            b.bot,
            str(b.decisions),
            f"{b.mean_loss:.3f}",
            *(str(b.marks[m]) for m in MARKS),
            *("-" if m is None else f"{m:.3f}" for m in phases),
            b.worst_phase,
        )
    return table
