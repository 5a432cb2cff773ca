"""Rebuild a Zooloretto Mini state from one seat's observation (``Game._from_observation``).

Nothing is drawn at random here, and ``rng`` is not used. Zooloretto Mini has no private
information: every seat and the spectator get the same observation, and it shows every tile
that is not in the bag or the end stack. The engine keeps no order and no bag/end-stack split
of the undrawn tiles either (spec Setup 5: each ``draw_tile`` chance node is uniform over all
of them, and the two counters say which pile a draw counts for). So the only state
consistent with an observation is fixed:

- the undrawn tiles are the tile pool of the species in play (``tile_pool``) minus every
  tile the observation shows (trucks, the drawn tile, enclosures, barns, out of play), and
  their number must be ``bag_count + end_count``. Every offspring tile of the species in
  play must be in the supply, a zoo or out of play. No tile may appear twice. So the
  components are conserved by construction;
- the enclosure species and ``paired`` flags, the trucks and who took them, the counters,
  ``last_round``, the phase, the drawn tile and the pending bonuses are copied;
- the one field that the observation leaves open is ``last_taker`` (who took the most recent
  truck). It only matters at round end, and by then a later take has always overwritten it
  (at a ``turn``/``load`` decision the current seat still has to take a truck). It is set to
  the current seat during its ``place``/``bonus`` decisions, to ``round_start_player`` (or
  -1 in round 1) before the first take of a round, and otherwise to the first seat
  counter-clockwise from the current seat that has already taken a truck.

Malformed or impossible observations raise ``ValueError`` saying what is wrong: a bad field
type, an unknown or duplicated tile, lost components, a broken rule invariant (an overfull or
mixed enclosure, inconsistent pairs, a phase the seat cannot be in). Any derived field
(scores, ``active``, ``species``...) that does not match the tiles is caught afterwards by
``Game.from_observation``, which compares the rebuilt state's observation with the given one
and names the first field that differs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.core import JSON
from engine.fields import build
from engine.observed import read_bool, read_int, read_list, read_obj, read_str
from engine.zooloretto_mini.data import (
    BONUS,
    ENCLOSURE_IDS,
    ENCLOSURE_SIZE,
    END_STACK,
    LOAD,
    MAX_BONUSES,
    PLACE,
    SPECIES,
    TRUCK_IDS,
    TURN,
    offspring_pool,
    removed_count,
    tile_pool,
    truck_capacities,
)
from engine.zooloretto_mini.state import ZoolorettoMiniState

_SEAT_PHASES: dict[str, int] = {"turn": TURN, "load": LOAD, "place": PLACE, "bonus": BONUS}

# What a place may hold: any tile, no offspring (trucks, the drawn tile), only offspring.
_ANY, _NO_OFFSPRING, _OFFSPRING = 0, 1, 2


def from_observation(
    state: ZoolorettoMiniState, seat: int, obs: Mapping[str, JSON], rng: random.Random
) -> ZoolorettoMiniState:
    """The state that shows ``obs`` to ``seat``, with the game, players and options of
    ``state`` (a fresh ``new_game``); ``rng`` is unused (nothing is hidden)."""
    n = state.num_players
    removed = _removed_species(state, obs)

    phase_name = read_str(obs["phase"], "phase")
    if phase_name not in _SEAT_PHASES:
        raise _bad(f"phase must be turn, load, place or bonus at a seat's turn, got {phase_name!r}")
    phase = _SEAT_PHASES[phase_name]
    cur = read_int(obs["current_player"], "current_player", 0, n - 1)
    if cur != seat:
        raise _bad(f"current_player is {cur}, so this is not one of seat {seat}'s turns")
    round_no = read_int(obs["round"], "round", 1, 10_000)
    round_start = read_int(obs["round_start_player"], "round_start_player", 0, n - 1)
    start_option = state.options.get("start_player")
    if round_no == 1 and start_option is not None and round_start != start_option:
        raise _bad(
            f"round 1 started with seat {round_start}, but option start_player is {start_option}"
        )

    pool = tile_pool(removed)
    bag_count = read_int(obs["bag_count"], "bag_count", 0, len(pool) - END_STACK)
    end_count = read_int(obs["end_count"], "end_count", 0, END_STACK)
    last_round = read_bool(obs["last_round"], "last_round")
    if bag_count > 0 and end_count < END_STACK:
        raise _bad("the end stack is opened only once the bag is empty")
    if last_round != (end_count < END_STACK):
        raise _bad("last_round must be true exactly when a tile was drawn from the end stack")
    drawn = read_str(obs["drawn_tile"], "drawn_tile")
    if (drawn != "") != (phase == LOAD):
        raise _bad("drawn_tile is set exactly in the load phase")
    bonus = read_int(obs["bonus_pending"], "bonus_pending", 0, MAX_BONUSES)
    if (phase == BONUS and bonus == 0) or (phase in (TURN, LOAD) and bonus > 0):
        raise _bad(f"bonus_pending {bonus} is impossible in the {phase_name} phase")
    supply = _tiles(obs["offspring_supply"], "offspring_supply")
    if supply != sorted(supply):
        raise _bad("offspring_supply must be sorted")
    out = _tiles(obs["out_of_play"], "out_of_play")

    caps = truck_capacities(n)
    trucks, owner = _trucks(obs, caps, n)
    taken, enc, esp, barns, paired = _players(obs, n, len(caps))
    for k, p in enumerate(owner):
        if p >= 0 and taken[p] != k:
            raise _bad(f"truck {TRUCK_IDS[k]} is taken by seat {p}, but that seat's truck differs")
    for p, k in enumerate(taken):
        if k >= 0 and owner[k] != p:
            raise _bad(f"seat {p} took {TRUCK_IDS[k]}, but that truck is not taken by it")
    _check_phase(phase_name, cur, taken, trucks, owner, caps)

    places: list[tuple[str, Sequence[str], int]] = [("offspring_supply", supply, _OFFSPRING)]
    places += [(f"truck {TRUCK_IDS[k]}", t, _NO_OFFSPRING) for k, t in enumerate(trucks)]
    places.append(("drawn_tile", [drawn] if drawn else [], _NO_OFFSPRING))
    places += [(f"seat {i // 3} {ENCLOSURE_IDS[i % 3]}", e, _ANY) for i, e in enumerate(enc)]
    places += [(f"seat {p} barn", b, _ANY) for p, b in enumerate(barns)]
    places.append(("out_of_play", out, _ANY))
    undrawn = _unseen_tiles(pool, offspring_pool(removed), places)
    if len(undrawn) != bag_count + end_count:
        raise _bad(
            f"{len(undrawn)} tiles of the pool are unseen, but bag_count + end_count is "
            f"{bag_count + end_count}"
        )

    rebuilt: ZoolorettoMiniState = build(
        ZoolorettoMiniState,
        state.game,
        n,
        state.options,
        phase=phase,
        current=cur,
        removed_species=removed,
        undrawn=undrawn,
        bag_count=bag_count,
        end_count=end_count,
        last_round=last_round,
        offspring_supply=supply,
        capacities=caps,
        trucks=trucks,
        taken_by=owner,
        taken_truck=taken,
        enclosures=enc,
        enclosure_species=esp,
        barns=barns,
        paired=paired,
        out_of_play=out,
        drawn_tile=drawn,
        bonus_pending=bonus,
        round=round_no,
        round_start_player=round_start,
        last_taker=_last_taker(phase, cur, taken, round_no, round_start),
    )
    return rebuilt


# -- the parts of the observation ---------------------------------------------------------


def _removed_species(state: ZoolorettoMiniState, obs: Mapping[str, JSON]) -> list[str]:
    removed = read_list(obs["removed_species"], "removed_species")
    k = removed_count(state.num_players)
    if len(removed) != k or len(set(removed)) != k or not set(removed) <= set(SPECIES):
        raise _bad(f"removed_species must be {k} distinct species ids, got {removed!r}")
    if removed != sorted(removed):
        raise _bad("removed_species must be sorted")
    given = state.options.get("removed_species")
    if given is not None and sorted(given) != removed:
        raise _bad(f"removed_species {removed} differs from the option {sorted(given)}")
    return removed


def _trucks(
    obs: Mapping[str, JSON], caps: tuple[int, ...], n: int
) -> tuple[list[list[str]], list[int]]:
    items = read_list(obs["trucks"], "trucks")
    if len(items) != len(caps):
        raise _bad(f"{n} players use {len(caps)} trucks, the observation lists {len(items)}")
    trucks: list[list[str]] = []
    owner: list[int] = []
    for k, item in enumerate(items):
        where = f"trucks[{k}]"
        truck = read_obj(item, where)
        if truck["id"] != TRUCK_IDS[k]:
            raise _bad(f"{where}.id must be {TRUCK_IDS[k]}, got {truck['id']!r}")
        read_int(truck["capacity"], f"{where}.capacity", caps[k], caps[k])
        tiles = _tiles(truck["tiles"], f"{where}.tiles")
        if len(tiles) > caps[k]:
            raise _bad(f"{TRUCK_IDS[k]} holds {len(tiles)} tiles, more than its {caps[k]} slots")
        trucks.append(tiles)
        owner.append(read_int(truck["taken_by"], f"{where}.taken_by", -1, n - 1))
    return trucks, owner


def _players(
    obs: Mapping[str, JSON], n: int, num_trucks: int
) -> tuple[list[int], list[list[str]], list[str], list[list[str]], set[str]]:
    """Per seat: the taken truck index (-1 if active); the enclosures (flat, 3 per seat)
    with their species; the barns; and the set of paired tiles."""
    items = read_list(obs["players"], "players")
    if len(items) != n:
        raise _bad(f"players must list {n} seats, got {len(items)}")
    taken: list[int] = []
    enc: list[list[str]] = []
    esp: list[str] = []
    barns: list[list[str]] = []
    paired: set[str] = set()
    for p, item in enumerate(items):
        player = read_obj(item, f"players[{p}]")
        read_int(player["seat"], f"players[{p}].seat", p, p)
        truck = read_str(player["truck"], f"players[{p}].truck")
        if truck and truck not in TRUCK_IDS[:num_trucks]:
            raise _bad(f"players[{p}].truck must be empty or one of the trucks, got {truck!r}")
        taken.append(TRUCK_IDS.index(truck) if truck else -1)
        encs = read_list(player["enclosures"], f"players[{p}].enclosures")
        if len(encs) != len(ENCLOSURE_IDS):
            raise _bad(f"players[{p}].enclosures must list E1, E2 and E3")
        for e, data in enumerate(encs):
            where = f"seat {p} {ENCLOSURE_IDS[e]}"
            enclosure = read_obj(data, where)
            if enclosure["id"] != ENCLOSURE_IDS[e]:
                raise _bad(f"{where} has id {enclosure['id']!r}")
            tiles = _tiles(enclosure["tiles"], f"{where} tiles")
            pairs = _tiles(enclosure["paired"], f"{where} paired")
            esp.append(_check_enclosure(where, tiles, pairs))
            enc.append(tiles)
            paired.update(pairs)
        barns.append(_tiles(player["barn"], f"players[{p}].barn"))
    return taken, enc, esp, barns, paired


def _check_enclosure(where: str, tiles: list[str], pairs: list[str]) -> str:
    """Check one enclosure (size, one species, consistent pairs); return its species."""
    if len(tiles) > ENCLOSURE_SIZE:
        raise _bad(f"{where} holds {len(tiles)} tiles, more than {ENCLOSURE_SIZE}")
    species = {t[:2] for t in tiles if t[0] == "S"}
    if len(species) > 1:
        raise _bad(f"{where} holds more than one species: {sorted(species)}")
    if any(t not in tiles or t[2] not in "MF" for t in pairs):
        raise _bad(f"{where} lists paired tiles {pairs} that are not marked tiles in it")
    paired_sexes = [t[2] for t in pairs]
    if paired_sexes.count("M") != paired_sexes.count("F"):
        raise _bad(f"{where} pairs {pairs} do not match males with females")
    free = {t[2] for t in tiles if t[2] in "MF" and t not in pairs}
    if free == {"M", "F"}:
        raise _bad(f"{where} holds an unpaired male and an unpaired female")
    return species.pop() if species else ""


def _check_phase(
    phase: str,
    cur: int,
    taken: list[int],
    trucks: list[list[str]],
    owner: list[int],
    caps: tuple[int, ...],
) -> None:
    """The current seat's status and the taken trucks fit the phase."""
    mine = taken[cur]
    if (mine < 0) != (phase in ("turn", "load")):
        status = "is active" if mine < 0 else "has taken a truck"
        raise _bad(f"seat {cur} {status}, which is impossible in the {phase} phase")
    for k, p in enumerate(owner):
        if p >= 0 and trucks[k] and not (phase == "place" and k == mine):
            raise _bad(f"{TRUCK_IDS[k]} was taken by seat {p} but still holds tiles")
    if phase == "place" and not trucks[mine]:
        raise _bad(f"seat {cur} has nothing left to place from {TRUCK_IDS[mine]}")
    if phase == "load" and not any(
        owner[k] < 0 and len(trucks[k]) < caps[k] for k in range(len(caps))
    ):
        raise _bad("no available truck has a free slot for the drawn tile")


def _last_taker(phase: int, cur: int, taken: list[int], round_no: int, round_start: int) -> int:
    """A seat that may have taken the most recent truck (see the module docstring)."""
    if phase in (PLACE, BONUS):
        return cur
    n = len(taken)
    for i in range(1, n):
        q = (cur - i) % n
        if taken[q] >= 0:
            return q
    return round_start if round_no > 1 else -1


def _unseen_tiles(
    pool: list[str], offspring: list[str], places: list[tuple[str, Sequence[str], int]]
) -> list[str]:
    """The pool tiles shown nowhere (sorted); checks that every shown tile is in play, is
    shown once and may be where it is, and that every offspring tile is somewhere."""
    valid = set(pool).union(offspring)
    seen: dict[str, str] = {}
    for where, tiles, allowed in places:
        for t in tiles:
            if t not in valid:
                raise _bad(f"{where} holds {t!r}, which is not a tile in play")
            is_offspring = t[2] == "K"
            if (allowed == _NO_OFFSPRING and is_offspring) or (
                allowed == _OFFSPRING and not is_offspring
            ):
                raise _bad(f"{where} cannot hold {t}")
            if t in seen:
                raise _bad(f"{t} appears twice: in {seen[t]} and in {where}")
            seen[t] = where
    lost = [t for t in offspring if t not in seen]
    if lost:
        raise _bad(f"offspring tiles {lost} are nowhere (supply, zoos or out of play)")
    return [t for t in pool if t not in seen]


# -- field readers ----------------------------------------------------------------------------


def _bad(message: str) -> ValueError:
    return ValueError(f"zooloretto_mini observation: {message}")


def _tiles(value: JSON, where: str) -> list[str]:
    """A list of tile id strings (a fresh list; ids are checked against the pool later)."""
    tiles = read_list(value, where)
    for t in tiles:
        if not isinstance(t, str) or len(t) < 3:
            raise _bad(f"{where} must list tile ids, got {t!r}")
    return list(tiles)
