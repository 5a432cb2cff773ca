"""Test helpers for Zooloretto Mini: a short script notation for play, and a position builder.

``play(state, "0: dl S1N1 T3", "1: tk T1 S2N1->E1", "bonus_skip")`` applies actions through
the public API (the JSON of each step, applied with ``kit.act``). Each line is one of
- an action or chance outcome in its ``str`` form (``draw``, ``draw_tile S1N3``,
  ``load T2``, ``take_truck T2``, ``place S1N1->E2``, ``bonus_take 1:S2F1->E2``,
  ``bonus_discard LR2``, ``bonus_skip``, ``remove_species S4``, ``start_player 0``);
- ``dl TILE TRUCK``: ``draw``, chance ``draw_tile TILE``, ``load TRUCK``;
- ``tk TRUCK TILE->DEST ...``: ``take_truck TRUCK`` and then one ``place`` per placement;
optionally prefixed by ``N:`` to assert that seat N is to move when the line starts.

``build`` constructs a position directly (with :func:`engine.fields.build`) for what play
cannot reach, or reaches only after a long prefix.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine import fields
from engine.core import JSON
from engine.zooloretto_mini import GAME, ZoolorettoMiniState
from engine.zooloretto_mini.data import (
    ENCLOSURE_IDS,
    END_STACK,
    OVER,
    TRUCK_IDS,
    TURN,
    offspring_pool,
    tile_pool,
    truck_capacities,
)
from tests.games.kit import GameKit, act

KIT = GameKit(GAME, ZoolorettoMiniState)


def action_json(text: str) -> dict[str, JSON]:
    """The JSON of an action or chance outcome given in its short ``str`` form."""
    kind, *args = text.split()
    if kind in ("draw", "bonus_skip"):
        return {"kind": kind}
    (arg,) = args
    if kind in ("take_truck", "load"):
        return {"kind": kind, "truck": arg}
    if kind == "place":
        tile, to = arg.split("->")
        return {"kind": kind, "tile": tile, "to": to}
    if kind == "bonus_take":
        seat, rest = arg.split(":")
        tile, to = rest.split("->")
        return {"kind": kind, "from": int(seat), "tile": tile, "to": to}
    if kind in ("bonus_discard", "draw_tile"):
        return {"kind": kind, "tile": arg}
    if kind == "remove_species":
        return {"kind": kind, "species": arg}
    if kind == "start_player":
        return {"kind": kind, "seat": int(arg)}
    raise ValueError(f"unknown step {text!r}")


def expand(line: str) -> tuple[int | None, list[str]]:
    """Split an optional ``N:`` seat prefix and expand the ``dl``/``tk`` macros."""
    words = line.split()
    seat = None
    if words[0].endswith(":") and words[0][:-1].isdigit():
        seat = int(words[0][:-1])
        words = words[1:]
    if words[0] == "dl":
        _, tile, truck = words
        return seat, ["draw", f"draw_tile {tile}", f"load {truck}"]
    if words[0] == "tk":
        return seat, [f"take_truck {words[1]}", *(f"place {p}" for p in words[2:])]
    return seat, [" ".join(words)]


def play(state: ZoolorettoMiniState, *script: str) -> None:
    """Apply the script lines through the public API (see the module docstring)."""
    for line in script:
        seat, steps = expand(line)
        if seat is not None:
            assert state.current_player == seat, (line, state.current_player)
        for text in steps:
            action = act(state, action_json(text))
            assert str(action) == text, (text, action)


def build(
    num_players: int,
    removed: Sequence[str],
    *,
    zoos: Mapping[int, Mapping[str, Sequence[str]]] | None = None,
    trucks: Mapping[str, Sequence[str]] | None = None,
    taken: Mapping[int, str] | None = None,
    current: int = 0,
    paired: Iterable[str] = (),
    over: bool = False,
) -> ZoolorettoMiniState:
    """Construct a position directly, for scenarios play cannot reach (ZM-15) or reaches
    only through a long prefix (ZM-06, ZM-13, ZM-14; tests say which).

    A round-1 state of the game ``new_game(num_players, {"removed_species": removed,
    "start_player": current})`` starts, built with :func:`engine.fields.build`, holding the
    given zoos (seat -> {"E1"/"E2"/"E3"/"barn": tiles}), truck contents, taken trucks (seat
    -> truck id) and paired flags. The tile accounting stays consistent: every tile put
    anywhere leaves the undrawn tiles (the bag count drops by as many, spilling into the end
    stack), every offspring leaves the supply. The result is a ``turn`` decision of
    ``current``, or the final state if ``over``.
    """
    n = num_players
    undrawn = tile_pool(removed)
    supply = offspring_pool(removed)
    drawn = 0

    def use(tile: str) -> None:
        nonlocal drawn
        if tile[2] == "K":
            supply.remove(tile)
        else:
            undrawn.remove(tile)
            drawn += 1

    enclosures: list[list[str]] = [[] for _ in range(3 * n)]
    species = [""] * (3 * n)
    barns: list[list[str]] = [[] for _ in range(n)]
    for seat, zoo in (zoos or {}).items():
        for key, tiles in zoo.items():
            for t in tiles:
                use(t)
            if key == "barn":
                barns[seat] = list(tiles)
            else:
                e = ENCLOSURE_IDS.index(key)
                enclosures[3 * seat + e] = list(tiles)
                animals = [t[:2] for t in tiles if t[0] == "S"]
                assert len(set(animals)) <= 1 and len(tiles) <= 6, (seat, key, tiles)
                species[3 * seat + e] = animals[0] if animals else ""
    capacities = truck_capacities(n)
    loads: list[list[str]] = [[] for _ in capacities]
    for truck, tiles in (trucks or {}).items():
        for t in tiles:
            use(t)
        loads[TRUCK_IDS.index(truck)] = list(tiles)
    taken_by = [-1] * len(capacities)
    taken_truck = [-1] * n
    for seat, truck in (taken or {}).items():
        k = TRUCK_IDS.index(truck)
        taken_by[k] = seat
        taken_truck[seat] = k
    bag = len(undrawn) + drawn - END_STACK
    end_count = END_STACK - max(0, drawn - bag)
    state: ZoolorettoMiniState = fields.build(
        ZoolorettoMiniState,
        GAME,
        n,
        {"removed_species": list(removed), "start_player": current},
        phase=OVER if over else TURN,
        current=-1 if over else current,
        removed_species=sorted(removed),
        undrawn=undrawn,
        bag_count=max(0, bag - drawn),
        end_count=end_count,
        last_round=end_count < END_STACK,
        offspring_supply=supply,
        capacities=capacities,
        trucks=loads,
        taken_by=taken_by,
        taken_truck=taken_truck,
        enclosures=enclosures,
        enclosure_species=species,
        barns=barns,
        paired=set(paired),
        out_of_play=[],
        drawn_tile="",
        bonus_pending=0,
        round=1,
        round_start_player=current,
        last_taker=-1,
    )
    return state
