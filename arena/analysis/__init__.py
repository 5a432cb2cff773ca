"""Game analysis: every decision of a logged game evaluated from its seat's information.

- :mod:`~arena.analysis.analysers`: the :class:`Analyser` interface (one value per legal
  action of a :class:`bots.base.Turn`, a unit, per-game thresholds; optionally a full
  :class:`Evaluation` with standard errors and ties) and the ``rollout`` (paired samples,
  pruning, racing, a debiased loss; per-game defaults) and ``ismcts`` analysers;
- :mod:`~arena.analysis.evaluate`: :func:`analyse_record` replays a record and annotates
  each decision (move played, value, best move, loss, mark);
- :mod:`~arena.analysis.sidecar`: the annotations as a JSONL file keyed by game and step;
- :mod:`~arena.analysis.report`: per-bot mean loss, marks and phases over many games;
- :mod:`~arena.analysis.show`: terminal tables;
- :mod:`~arena.analysis.measure`: the figures that say how far an analysis can be trusted
  (time per decision, stability of the best move across seeds with ties counted, mean loss
  per bot), ``python -m arena.analysis.measure``.

The command is ``arena analyse`` (:mod:`arena.cli.analyse`); the HTML viewer draws a
sidecar with ``arena replay ... --html OUT --analysis FILE``.
"""

from __future__ import annotations

from arena.analysis.analysers import Analyser, Evaluation, Thresholds, make_analyser
from arena.analysis.evaluate import Annotation, analyse_record

__all__ = ["Analyser", "Annotation", "Evaluation", "Thresholds", "analyse_record", "make_analyser"]
