"""``make demo``: a few complete games between the reference bots, records verified.

Plays every registered game between random bots with fixed seeds, shows the first
Zooloretto Mini game step by step, writes each record to ``demo-out/`` and verifies it.
"""

from __future__ import annotations

from pathlib import Path

from arena.play import play_one
from arena.records import read_records, verify_record
from engine import GAMES

OUT = Path("demo-out")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for i, game in enumerate(GAMES.values()):
        for seed in (1, 2, 3):
            n = min(max(game.min_players, 3), game.max_players)
            path = OUT / f"{game.id}-seed{seed}.json"
            show = "spectator" if i == 0 and seed == 1 else None
            play_one(game.id, "random", n, seed, {}, path, show, None, "forfeit")
            for rec in read_records(path):
                verified = verify_record(rec)
                print(f"verify {path}: {'ok' if verified.ok else verified.problem}")
            print()
    print(f"records are in {OUT}/; replay one with: .venv/bin/arena verify {OUT}/*.json")


if __name__ == "__main__":
    main()
