"""``python -m envs.describe <game>``: a game's tensor layout, field by field (offset,
width, name, meaning), its action and chance space sizes and what the layout leaves out
(and, for Manatee Sanctuary, its decision space part by part)."""

from __future__ import annotations

import sys

from envs.layouts import SUPPORTED, spec
from envs.manatee import ManateeActions


def describe(game_id: str) -> str:
    game_spec = spec(game_id)
    lines = [
        f"{game_id}: observation {game_spec.layout.size} floats, "
        f"{game_spec.actions.size} actions, {game_spec.chance.size} chance outcomes",
        f"{'offset':>7} {'width':>5}  field: meaning",
    ]
    lines += [f"{o:7d} {w:5d}  {n}: {d}" for o, w, n, d in game_spec.layout.describe()]
    lines.append(f"not encoded: {game_spec.left_out}")
    if isinstance(game_spec.actions, ManateeActions):
        lines.append("actions (relative to the seat, envs/manatee.py):")
        lines += [f"{o:7d} {w:5d}  {d}" for o, w, d in game_spec.actions.parts()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(f"usage: python -m envs.describe GAME (one of {', '.join(SUPPORTED)})")
        return 2
    try:
        print(describe(args[0]))
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
