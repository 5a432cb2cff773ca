"""Zooloretto Mini: value trucks by the enclosure points they add minus barn penalties.

The estimate of a seat's final score, read from the state's public fields (no
observation is built; everything but the undrawn tiles' order is public):

* its current score (enclosures 1/2/3/4/8/12 by animals, 2 per landscape kind, -2 per
  kind in the barn);
* for each enclosure that is not full, a share of the points still reachable: the
  undrawn tiles of its species that will probably be drawn before the end, split among
  the players, fill it further (the 5th and 6th animals are worth 4 each), and an
  unpaired male/female pair still waiting for its partner may give an offspring;
* while the seat is still active in the round, half the gain of the best available
  truck (so a drawn tile is loaded where it helps the loader, not the rivals);
* while it is placing a truck, the gain of placing the rest of the truck greedily.

A truck's gain is simulated tile by tile: each tile goes where it adds most (an
enclosure of its species or an empty one, a landscape where its kind is new, the barn
when nothing fits), births are resolved, and a filled enclosure earns a bonus action
(worth about a barn kind discarded). The same quick model drives the rollout policy of
ISMCTS (take a good truck, load where it helps, place where it adds most).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from bots.heuristics.base import Heuristic
from engine import Action, State
from engine.zooloretto_mini.actions import (
    BonusDiscard,
    BonusSkip,
    BonusTake,
    Draw,
    Load,
    Place,
    TakeTruck,
)
from engine.zooloretto_mini.data import (
    DESTINATIONS,
    ENCLOSURE_POINTS,
    ENCLOSURE_SIZE,
    OVER,
    PLACE,
    SPECIES,
    TRUCK_IDS,
    animal_tiles,
)
from engine.zooloretto_mini.state import ZoolorettoMiniState

TRUCK_INDEX = {t: k for k, t in enumerate(TRUCK_IDS)}
"""Truck id -> index into the state's truck lists."""
ADULT_TILES = {s: len(animal_tiles(s)) for s in SPECIES}
"""Adult animal tiles per species (11: the engine's tile set)."""
BONUS_VALUE = 1.5
POTENTIAL_WEIGHT = 0.7
OPTION_WEIGHT = 0.5


class Enclosure:
    """Quick model of one enclosure: species, animals, tiles, landscape kinds, unpaired sexes."""

    __slots__ = ("animals", "females", "kinds", "males", "species", "tiles")

    def __init__(self, species: str, tiles: Sequence[str], paired: Collection[str]) -> None:
        """``paired``: the paired tiles (those of this enclosure, or any superset)."""
        self.species = species
        self.tiles = len(tiles)
        animals = males = females = 0
        kinds: set[str] = set()
        for t in tiles:  # one pass: a rollout builds a zoo model every step
            if t.startswith("L"):
                kinds.add(t[1])
            else:
                animals += 1
            if len(t) > 2 and t not in paired:
                if t[2] == "M":
                    males += 1
                elif t[2] == "F":
                    females += 1
        self.animals, self.kinds, self.males, self.females = animals, kinds, males, females

    def copy(self) -> Enclosure:
        other = object.__new__(Enclosure)
        other.species, other.tiles, other.animals = self.species, self.tiles, self.animals
        other.kinds, other.males, other.females = set(self.kinds), self.males, self.females
        return other

    def fits(self, tile: str) -> bool:
        if self.tiles >= ENCLOSURE_SIZE:
            return False
        return tile.startswith("L") or self.species in ("", tile[:2])


class Zoo:
    """Quick model of one player's zoo (enclosures + barn kinds) with its score."""

    __slots__ = ("barn", "encs")

    def __init__(self, encs: list[Enclosure], barn: set[str]) -> None:
        self.encs = encs
        self.barn = barn

    @classmethod
    def from_obs(cls, player: Mapping[str, Any]) -> Zoo:
        encs = [Enclosure(e["species"], e["tiles"], e["paired"]) for e in player["enclosures"]]
        return cls(encs, {kind_of(t) for t in player["barn"]})

    @classmethod
    def from_state(cls, state: ZoolorettoMiniState, seat: int) -> Zoo:
        """The same as :meth:`from_obs` of the seat's entry, read from the state."""
        species, enclosures, paired = state.enclosure_species, state.enclosures, state.paired
        encs = [Enclosure(species[i], enclosures[i], paired) for i in range(3 * seat, 3 * seat + 3)]
        return cls(encs, {kind_of(t) for t in state.barns[seat]})

    def copy(self) -> Zoo:
        return Zoo([e.copy() for e in self.encs], set(self.barn))

    def score(self) -> int:
        kinds: set[str] = set()
        total = 0
        for e in self.encs:
            total += ENCLOSURE_POINTS[e.animals]
            kinds |= e.kinds
        return total + 2 * len(kinds) - 2 * len(self.barn)

    def place(self, tile: str, dest: int) -> int:
        """Put ``tile`` in enclosure ``dest`` (3 = barn); returns 1 if that filled it."""
        if dest == 3:
            self.barn.add(kind_of(tile))
            return 0
        e = self.encs[dest]
        before = e.tiles
        e.tiles += 1
        if tile.startswith("L"):
            e.kinds.add(tile[1])
            return int(e.tiles >= ENCLOSURE_SIZE > before)
        e.species = tile[:2]
        e.animals += 1
        sex = tile[2] if len(tile) > 2 else ""
        if sex == "M" and e.females:
            e.females -= 1
            self._birth(e)
        elif sex == "F" and e.males:
            e.males -= 1
            self._birth(e)
        elif sex == "M":
            e.males += 1
        elif sex == "F":
            e.females += 1
        return int(e.tiles >= ENCLOSURE_SIZE > before)

    def _birth(self, e: Enclosure) -> None:
        if e.tiles < ENCLOSURE_SIZE:
            e.tiles += 1
            e.animals += 1
        else:
            self.barn.add(e.species)

    def best_place(self, tile: str) -> tuple[int, float]:
        """(destination, gain in points) of the best single placement of ``tile``.

        The rollouts' innermost loop (every truck considered, tile by tile): what does
        not depend on the enclosure (kind, sex, a landscape kind already shown) is worked
        out once, and :meth:`Enclosure.fits` is inlined."""
        barn = self.barn
        landscape = tile.startswith("L")
        kind = tile[1] if landscape else tile[:2]  # kind_of
        best_dest, best_gain = 3, (0.0 if kind in barn else -2.0)
        new_kind = 0.0 if landscape and any(kind in x.kinds for x in self.encs) else 2.0
        sex = tile[2] if len(tile) > 2 else ""
        for dest, e in enumerate(self.encs):
            tiles = e.tiles
            if tiles >= ENCLOSURE_SIZE:
                continue
            tiles += 1
            if landscape:
                gain = new_kind
            else:
                species = e.species
                if species and species != kind:
                    continue
                animals = e.animals
                gain = float(ENCLOSURE_POINTS[animals + 1] - ENCLOSURE_POINTS[animals])
                if (sex == "M" and e.females) or (sex == "F" and e.males):
                    if tiles < ENCLOSURE_SIZE:
                        tiles += 1
                        gain += ENCLOSURE_POINTS[animals + 2] - ENCLOSURE_POINTS[animals + 1]
                    elif kind not in barn:
                        gain -= 2.0
                if not species:
                    gain -= 0.5  # opening an enclosure uses one of only three
            if tiles >= ENCLOSURE_SIZE:
                gain += BONUS_VALUE if barn else 0.5
            if gain > best_gain:
                best_dest, best_gain = dest, gain
        return best_dest, best_gain

    def truck_gain(self, tiles: Sequence[str]) -> float:
        """Points gained by placing ``tiles`` greedily, bonus actions included."""
        return self.truck_gains(tiles, "")[0]

    def truck_gains(self, tiles: Sequence[str], extra: str) -> tuple[float, float]:
        """``truck_gain(tiles)`` and ``truck_gain([*tiles, extra])`` in one simulation
        (the second is the first when ``extra`` is ""): what loading ``extra`` adds."""
        trial = self.copy()
        gain = 0.0
        for tile in tiles:
            dest, g = trial.best_place(tile)
            trial.place(tile, dest)
            gain += g
        if not extra:
            return gain, gain
        return gain, gain + trial.best_place(extra)[1]


def kind_of(tile: str) -> str:
    """Species id (``S3``) or landscape kind letter (``P``/``S``/``R``) of a tile id."""
    return tile[1] if tile.startswith("L") else tile[:2]


def unseen_by_species(state: ZoolorettoMiniState) -> dict[str, int]:
    """Undrawn adult animal tiles per species in play (public: pool minus everything seen)."""
    removed = set(state.removed_species)
    left = {s: n for s, n in ADULT_TILES.items() if s not in removed}
    seen: list[str] = list(state.out_of_play)
    if state.drawn_tile:
        seen.append(state.drawn_tile)
    for tiles in state.trucks:
        seen.extend(tiles)
    for barn in state.barns:
        seen.extend(barn)
    for tiles in state.enclosures:
        seen.extend(tiles)
    for t in seen:
        if not t.startswith("L") and len(t) > 2 and t[2] != "K" and t[:2] in left:
            left[t[:2]] -= 1
    return left


def potential(zoo: Zoo, unseen: Mapping[str, int], drawn_share: float) -> float:
    """Points an open enclosure may still reach with the tiles that will probably come."""
    total = 0.0
    spare = max(unseen.values(), default=0)
    for e in zoo.encs:
        free = ENCLOSURE_SIZE - e.tiles
        if free <= 0:
            continue
        expected = (unseen.get(e.species, 0) if e.species else spare) * drawn_share
        k = min(float(free), expected)
        whole = int(k)
        lo = ENCLOSURE_POINTS[min(ENCLOSURE_SIZE, e.animals + whole)]
        hi = ENCLOSURE_POINTS[min(ENCLOSURE_SIZE, e.animals + whole + 1)]
        gain = lo + (hi - lo) * (k - whole) - ENCLOSURE_POINTS[e.animals]
        if e.species and (e.males > 0) != (e.females > 0):
            gain += drawn_share  # an unpaired parent may still meet its partner
        total += gain * (1.0 if e.species else 0.5)
    return total


class ZoolorettoHeuristic(Heuristic):
    game_id = "zooloretto_mini"
    scale = 8.0
    samples = 1
    rollout_depth = 10
    option_weight = OPTION_WEIGHT
    potential_weight = POTENTIAL_WEIGHT

    def estimate(self, state: State) -> list[float]:
        st = _zooloretto(state)
        n = st.num_players
        zoos = [Zoo.from_state(st, s) for s in range(n)]
        unseen = unseen_by_species(st)
        slots = sum(st.capacities)
        undrawn = st.bag_count + st.end_count
        to_come = st.bag_count + (slots if not st.last_round else slots // 2)
        share = min(1.0, to_come / undrawn) / n if undrawn else 0.0
        phase = st.phase
        current = st.current_player
        available = [t for k, t in enumerate(st.trucks) if st.taken_by[k] < 0 and t]
        totals = st.scores()
        out = []
        for s in range(n):
            zoo = zoos[s]
            est = float(totals[s])
            if phase == OVER:
                out.append(est)
                continue
            taken = st.taken_truck[s]
            if phase == PLACE and current == s and taken >= 0:
                zoo = zoo.copy()
                for tile in st.trucks[taken]:
                    dest, g = zoo.best_place(tile)
                    zoo.place(tile, dest)
                    est += g
            elif taken < 0 and available:
                est += self.option_weight * max(0.0, max(zoo.truck_gain(t) for t in available))
            est += self.potential_weight * potential(zoo, unseen, share)
            out.append(est)
        return out

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        # read from the state's public fields: an observation per rollout step cost more
        # than the choice itself
        state = _zooloretto(state)
        seat = state.current_player
        zoo = Zoo.from_state(state, seat)
        trucks = TRUCK_INDEX
        match legal[0]:
            case Draw() | TakeTruck():
                best: Action | None = None
                best_gain = -1e9
                for a in legal:
                    match a:
                        case TakeTruck(truck=truck_id):
                            ti = trucks[truck_id]
                        case _:
                            continue
                    gain = zoo.truck_gain(state.trucks[ti])
                    if len(state.trucks[ti]) < state.capacities[ti]:
                        gain -= 1.0 + rng.random() * 2.0  # waiting may fill it further
                    if gain > best_gain:
                        best, best_gain = a, gain
                if isinstance(legal[0], Draw) and (best is None or best_gain < 0):
                    return legal[0]
                assert best is not None
                return best
            case Load():
                tile = state.drawn_tile
                scored = []
                for a in legal:
                    match a:
                        case Load(truck=truck_id):
                            without, with_tile = zoo.truck_gains(
                                state.trucks[trucks[truck_id]], tile
                            )
                            gain = with_tile - without
                            scored.append((gain, rng.random(), a))
                return max(scored, key=lambda x: (x[0], x[1]))[2]
            case Place():
                tile = state.trucks[state.taken_truck[seat]][0]
                dest, _ = zoo.best_place(tile)
                want = DESTINATIONS[dest]
                for a in legal:
                    match a:
                        case Place(tile=t, to=to) if t == tile and to == want:
                            return a
            case BonusTake() | BonusDiscard() | BonusSkip():
                base = zoo.score()
                best_a, best_v = legal[-1], 0.0
                for a in legal:
                    match a:
                        case BonusTake(tile=tile, to=to):
                            trial = zoo.copy()
                            trial.place(tile, DESTINATIONS.index(to))
                            v = float(trial.score() - base)
                        case BonusDiscard(tile=tile):
                            barn = state.barns[seat]
                            k = kind_of(tile)
                            v = 2.0 if sum(1 for t in barn if kind_of(t) == k) == 1 else 0.0
                        case _:
                            continue
                    if v > best_v:
                        best_a, best_v = a, v
                return best_a
        return legal[rng.randrange(len(legal))]


def _zooloretto(state: State) -> ZoolorettoMiniState:
    """``state`` as a Zooloretto Mini state: the heuristic reads its public fields."""
    if not isinstance(state, ZoolorettoMiniState):
        raise TypeError(f"the Zooloretto Mini heuristic needs its state, got {type(state)!r}")
    return state


HEURISTIC = ZoolorettoHeuristic()
