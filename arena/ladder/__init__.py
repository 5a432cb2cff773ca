"""The ladder: bot authors submit bots, bots play continuously, ratings persist.

A ladder is one continuous competition of one game at one player count. Bots are
submitted as versions (a spec, or a content-addressed archive of files), validated, and
then matched continuously against the field; every counted game updates OpenSkill
ratings in a database that survives restarts.

```
models.py        the tables (SQLAlchemy 2 typed models): ladders, bots, versions, matches,
                 ratings, rating history, leases, bot tokens
migrations/      Alembic migrations shipped in the package (run in code by db.upgrade)
db.py            where the database is (ladder.db / $MENAGERIE_LADDER_DB / a URL), SQLite
                 WAL set-up, schema upgrade
store.py         LadderStore: every state change in one transaction (exactly-once results,
                 leases, dead-runner recovery, standings, history, snapshots)
views.py         the frozen dataclasses the store returns
errors.py        LadderError and its kinds (one-line user errors)
submission.py    deterministic content-addressed archives: pack, unpack into a cache
rating.py        OpenSkill Plackett–Luce updates, forfeits, ordinal, provisional status
matchmaking.py   the next group of k versions: pure, seeded, with a proved fairness bound
validation.py    a new version against random (the ``arena bot check`` checks for programs)
hosting.py       a ladder's files (records, standings) and the spec a version plays as
launch.py        ``python -m arena.ladder.launch``: a submitted archive's bot, from the cache
runner.py        LadderRunner (``arena ladder run``): lease, recovery, matchmaking, play on
                 Ray, records file, exactly-once commits, clean stop
standings.py     the standings as tables (terminal, JSON, CSV, Markdown, HTML), --batch fit
tracking.py      the ladder's MLflow run
tokens.py        remote bots' tokens (only their sha256 is stored; several per bot)
remote.py        the lobby's side of the runner: remote seats' matches on game servers
```

Its measurements (``arena bench ladder``) are in :mod:`arena.bench.ladder`.

Modules are imported by name (``from arena.ladder.store import LadderStore``): the pure
ones (rating, matchmaking, submission) do not pull in the database stack.
"""
