"""Logged games: where they come from, replayed, shown, analysed.

Modules: ``sources`` (a record/journal file, a tournament dir or an MLflow run id; the
verified loader), ``model`` (a verified record with every state: ``load_replay``),
``terminal`` (``arena replay`` on the terminal), ``viewer`` (the self-contained HTML
viewer; its JS/CSS in ``assets/``, per-game static data from ``Game.components()``) and
``analysis`` (``arena games/stats/export``).
"""
