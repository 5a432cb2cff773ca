"""Tournaments: a round robin of a roster on Ray, every game journaled, rated, tracked.

Modules: ``config`` (the validated YAML/flags config), ``schedule`` (the games, an
iterator), ``ray_runner`` (batched Ray tasks that play them), ``journal`` (the durable
JSONL of finished records), ``ratings`` (Elo, Bradley–Terry), ``leaderboard`` (tables,
files, the Elo plot), ``tracking`` (MLflow), ``reporter`` (the progress bar and the live
table), ``run`` (:class:`arena.tournament.run.Tournament`: one run of all of it,
``run_tournament``, ``arena sync``), ``results`` (what a run leaves: the result, the
leaderboard files, sample replays, the report).
"""
