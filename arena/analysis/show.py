"""Terminal output of an analysis: the annotated game, the thresholds, the per-bot table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from arena.analysis.analysers import Analyser
from arena.analysis.evaluate import MARKS, Annotation, analyser_label
from arena.analysis.report import BotLoss

STYLES = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red"}
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def thresholds_line(analyser: Analyser, game_id: str) -> str:
    t = analyser.thresholds(game_id)
    return (
        f"{game_id}: values in {analyser.unit} ({analyser_label(analyser, game_id)}); loss >= "
        f"{t.inaccuracy:g} inaccuracy ?!, >= {t.mistake:g} mistake ?, >= {t.blunder:g} blunder ??"
    )


def annotations_table(record: Mapping[str, Any], anns: Sequence[Annotation]) -> Table:
    """The annotated game: a move within the noise of the best is shown as a ``tie`` (not
    a mistake), the loss with its standard error, and the moves tied with the best."""
    table = Table(title=f"{record['game']} game {record.get('game_id')}: {len(anns)} decisions")
    cols = ("step", "seat", "played", "value", "best", "best value", "loss ± se", "mark", "tied")
    for col in cols:
        table.add_column(col, justify="right" if col in ("step", "value", "loss ± se") else "left")
    for a in anns:
        style = STYLES.get(a.mark or "", "")
        mark = f"{a.mark} {SYMBOLS[a.mark]}" if a.mark else ("tie" if a.tie else "")
        table.add_row(
            str(a.step),
            f"{a.seat} {a.player}",
            a.played,
            f"{a.value:.2f}" + ("" if a.value_se is None else f" ± {a.value_se:.2f}"),
            "=" if a.played == a.best else a.best,
            f"{a.best_value:.2f}",
            f"{a.loss:.2f}" + ("" if a.loss_se is None else f" ± {a.loss_se:.2f}"),
            Text(mark, style=style),
            ", ".join(t for t in a.tied if t != a.played)[:40],
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
