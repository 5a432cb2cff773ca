"""``make demo``: a small round-robin tournament on every registered game, then a ladder.

The reference bots (random, and greedy and ismcts with small budgets when they exist)
play a round robin of 2-player games on each game, on a local Ray with 2 workers, every
game journaled in ``demo-out/`` and tracked in the MLflow SQLite store ``mlflow.db``.
Then the leaderboards are printed, a few records are replayed and verified, and the
commands to look further are shown (MLflow UI, ``arena ratings``, ``arena replay``).
Running it again resumes: games already in the journals are not played again (delete
``demo-out/`` to start over).

It ends with a small ladder (``arena ladder``): a fresh one on one game in
``demo-out/ladder.db`` (home ``demo-out/ladder/``), the same three bots submitted as
specs and validated, :data:`LADDER_MATCHES` matches played by the ladder runner on the
same Ray, and the standings printed (OpenSkill, with the batch Bradley–Terry fit beside).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from arena.match.records import verify_record
from arena.tournament.config import load_config
from arena.tournament.journal import read_journal
from arena.tournament.ray_runner import ray_session
from arena.tournament.results import TournamentResult
from arena.tournament.run import run_tournament
from bots.registry import REFERENCE_BOTS
from engine import GAMES, Game

OUT = Path("demo-out")
ROUNDS = 3
WORKERS = 2
LADDER_GAME = "dziobaki"
"""The demo ladder's game (a fast one; the first 2-player game if it is not registered)."""
LADDER_MATCHES = 36


def demo_bots() -> list[str]:
    bots = ["random"]
    if "greedy" in REFERENCE_BOTS:
        bots.append("greedy")
    if "ismcts" in REFERENCE_BOTS:
        bots.append("ismcts:iterations=24")
    while len(bots) < 3:
        bots.append("random")
    return bots


def main() -> None:
    bots = demo_bots()
    print(f"demo: a round robin of {', '.join(bots)} on {len(GAMES)} games, {ROUNDS} rounds")
    with ray_session(WORKERS) as where:
        print(f"on {where}\n")
        results = [_tournament(game, bots) for game in GAMES.values()]
        _report(results)
        print()
        ladder_seconds = demo_ladder(bots)
    print(f"\n(the ladder took {ladder_seconds:.0f} s of the demo)")


def _tournament(game: Game, bots: list[str]) -> TournamentResult:
    players = 2 if game.min_players <= 2 <= game.max_players else game.min_players
    cfg = load_config(
        None,
        {
            "game": game.id,
            "bots": bots,
            "players": players,
            "rounds": ROUNDS,
            "seed": 1,
            "workers": WORKERS,
            "name": f"demo-{game.id}",
            "experiment": "menagerie-demo",
            "out": str(OUT / "tournaments" / f"demo-{game.id}"),
        },
    )
    result = run_tournament(cfg)
    print()
    return result


def demo_ladder(bots: list[str]) -> float:
    """A fresh ladder of ``bots`` on :data:`LADDER_GAME`: submit, validate, run
    :data:`LADDER_MATCHES` matches, print the standings; returns the seconds it took."""
    from arena.cli.common import rich_console
    from arena.ladder.runner import LadderRunner, RunnerConfig
    from arena.ladder.standings import load_standings, rich_table
    from arena.ladder.store import LadderStore
    from arena.ladder.submission import Archives
    from arena.ladder.validation import validate_version

    started = time.perf_counter()
    game = LADDER_GAME if LADDER_GAME in GAMES else _two_player_game()
    db, home = OUT / "ladder.db", OUT / "ladder"
    for stale in (db, db.with_name("ladder.db-wal"), db.with_name("ladder.db-shm")):
        stale.unlink(missing_ok=True)
    shutil.rmtree(home, ignore_errors=True)
    print(f"ladder: a fresh ladder 'demo' of {game} in {db}, {', '.join(bots)} submitted")
    with LadderStore(str(db)) as store:
        store.create_ladder("demo", game, 2)
        archives = Archives(home)
        for name, spec in zip(("random", "greedy", "ismcts"), bots, strict=False):
            version = store.add_version("demo", name, spec=spec, owner="demo")
            after, outcome = validate_version(store, version, archives)
            why = f" ({outcome.reason})" if outcome.reason else ""
            print(f"  {after.label} ({spec}): validated against random: {after.status}{why}")
        config = RunnerConfig(workers=WORKERS, games=LADDER_MATCHES, experiment="menagerie-demo")
        summary = LadderRunner(store, "demo", home=home, config=config).run()
        print(
            f"  {summary.counted} matches counted at {summary.games_per_s:.1f}/s "
            f"(MLflow run {summary.run_id})"
        )
        rich_console().print(rich_table(load_standings(store, "demo", batch=True)))
    print(f"  .venv/bin/arena ladder standings demo --db {db} --batch")
    print(f"  .venv/bin/arena ladder history ismcts --db {db}   # with `arena replay` ids")
    print(f"  .venv/bin/arena ladder run demo --db {db} --home {home} --games 100  # more")
    return time.perf_counter() - started


def _two_player_game() -> str:
    return next(g.id for g in GAMES.values() if g.min_players <= 2 <= g.max_players)


def _report(results: list[TournamentResult]) -> None:
    checked = bad = 0
    for res in results:
        for i, record in enumerate(read_journal(res.out_dir / "journal.jsonl")):
            if i >= 3:
                break
            checked += 1
            bad += not verify_record(record).ok
    print(f"replayed {checked} records: {checked - bad} verified, {bad} failed")
    print(f"\nthe tournaments are in {OUT}/tournaments/; to look further:")
    print("  .venv/bin/mlflow ui --backend-store-uri sqlite:///mlflow.db  # http://127.0.0.1:5000")
    print("      (experiment 'menagerie-demo': one run per game, metrics elo/*, artifacts)")
    if results:
        first = results[0]
        game_id = next(iter(read_journal(first.out_dir / "journal.jsonl")))["game_id"]
        print(f"  .venv/bin/arena verify {first.out_dir}/journal.jsonl")
        print(f"  .venv/bin/arena ratings {first.out_dir}")
        print(f"  .venv/bin/arena replay {first.out_dir} {game_id[:8]}")
        if first.run_id:
            print(f"  .venv/bin/arena ratings {first.run_id}          # from the MLflow run")
            print(f"  .venv/bin/arena replay {first.run_id} {game_id[:8]} --html replay.html")
        print(f"  open {first.out_dir}/replays/*.html   # HTML replays of a few games")


if __name__ == "__main__":
    main()
