"""Game analysis: every decision of a logged game evaluated from its seat's information.

- :mod:`~arena.analysis.analysers`: the :class:`Analyser` interface (one value per legal
  action of a :class:`bots.base.Turn`, a unit, per-game thresholds) and the ``rollout``
  and ``ismcts`` analysers;
- :mod:`~arena.analysis.evaluate`: :func:`analyse_record` replays a record and annotates
  each decision (move played, value, best move, loss, mark);
- :mod:`~arena.analysis.sidecar`: the annotations as a JSONL file keyed by game and step;
- :mod:`~arena.analysis.report`: per-bot mean loss, marks and phases over many games;
- :mod:`~arena.analysis.show`: terminal tables.

The command is ``arena analyse`` (:mod:`arena.cli.analyse`); the HTML viewer draws a
sidecar with ``arena replay ... --html OUT --analysis FILE``.
"""

from __future__ import annotations

from arena.analysis.analysers import Analyser, Thresholds, make_analyser
from arena.analysis.evaluate import Annotation, analyse_record

__all__ = ["Analyser", "Annotation", "Thresholds", "analyse_record", "make_analyser"]
