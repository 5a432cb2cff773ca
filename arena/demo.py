"""``make demo``: a small round-robin tournament on every registered game.

The reference bots (random, and greedy and ismcts with small budgets when they exist)
play a round robin of 2-player games on each game, on a local Ray with 2 workers, every
game journaled in ``demo-out/`` and tracked in the MLflow SQLite store ``mlflow.db``.
Then the leaderboards are printed, a few records are replayed and verified, and the
commands to look further are shown (MLflow UI, ``arena ratings``, ``arena replay``).
Running it again resumes: games already in the journals are not played again (delete
``demo-out/`` to start over).
"""

from __future__ import annotations

from pathlib import Path

from arena.match.records import verify_record
from arena.tournament.config import load_config
from arena.tournament.journal import read_journal
from arena.tournament.ray_runner import ray_session
from arena.tournament.results import TournamentResult
from arena.tournament.run import run_tournament
from bots.registry import REFERENCE_BOTS
from engine import GAMES

OUT = Path("demo-out")
ROUNDS = 3
WORKERS = 2


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
    results: list[TournamentResult] = []
    print(f"demo: a round robin of {', '.join(bots)} on {len(GAMES)} games, {ROUNDS} rounds")
    with ray_session(WORKERS) as where:
        print(f"on {where}\n")
        for game in GAMES.values():
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
            results.append(run_tournament(cfg))
            print()
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
