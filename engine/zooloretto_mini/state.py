"""Zooloretto Mini rules: the state, its decisions, chance nodes, transitions and views."""

from __future__ import annotations

import random
from typing import Annotated

from engine.core import CHANCE, JSON, TERMINAL, Action, Result, State, competition_ranks
from engine.fields import Digest
from engine.zooloretto_mini.actions import (
    DISCARD_ACTIONS,
    DRAW_ACTION,
    DRAW_TILE_OUTCOMES,
    LOAD_ACTIONS,
    PLACE_ACTIONS,
    REMOVE_OUTCOMES,
    SKIP_ACTION,
    TAKE_ACTIONS,
    BonusDiscard,
    BonusSkip,
    BonusTake,
    Draw,
    DrawTile,
    Load,
    Place,
    RemoveSpecies,
    StartPlayer,
    TakeTruck,
    bonus_take_action,
    start_player_outcome,
)
from engine.zooloretto_mini.data import (
    BONUS,
    DESTINATIONS,
    DRAW,
    ENCLOSURE_IDS,
    ENCLOSURE_SIZE,
    END_STACK,
    LOAD,
    OVER,
    PHASE_NAMES,
    PLACE,
    SETUP_REMOVE,
    SETUP_START,
    SPECIES,
    TRUCK_IDS,
    TURN,
    offspring_pool,
    removed_count,
    score_zoo,
    tile_pool,
    truck_capacities,
)
from engine.zooloretto_mini.render import render

_TRUCK_INDEX = {t: i for i, t in enumerate(TRUCK_IDS)}
_DEST_INDEX = {d: i for i, d in enumerate(DESTINATIONS)}


class ZoolorettoMiniState(State):
    """A Zooloretto Mini position. Zoos are flat lists: enclosure k (0-2) of seat p is
    ``enclosures[3 * p + k]``. The digest keeps the version-1 keys (``Digest(key=...)``)."""

    phase: int
    """The step due next: an index into PHASE_NAMES (SETUP_REMOVE ... OVER)."""
    current: Annotated[int, Digest(key="cur")]
    """The seat to decide (-1 during setup and at the end; see ``current_player``)."""
    removed_species: Annotated[list[str], Digest(key="removed")]
    """The species taken out at setup, sorted."""
    undrawn: list[str]
    """The tiles not drawn yet, sorted: bag and end stack together (no order is modelled)."""
    bag_count: int
    """Tiles left in the bag."""
    end_count: int
    """Tiles left in the end stack."""
    last_round: bool
    """True once the first end-stack tile was drawn: the current round is the last."""
    offspring_supply: Annotated[list[str], Digest(key="supply")]
    """The offspring tiles still in the supply, sorted."""
    capacities: Annotated[tuple[int, ...], Digest(skip=True)]
    """Slots per truck (derived from the player count)."""
    trucks: list[list[str]]
    """Each truck's tiles in slot order."""
    taken_by: Annotated[list[int], Digest(key="owner")]
    """Per truck, the seat that took it this round, or -1 while it is available."""
    taken_truck: Annotated[list[int], Digest(key="taken")]
    """Per seat, the index of the truck it took this round, or -1 while it is active."""
    enclosures: Annotated[list[list[str]], Digest(key="enc")]
    """Every seat's three enclosures (flat, see the class docstring), tiles in arrival order."""
    enclosure_species: Annotated[list[str], Digest(skip=True)]
    """The species of each enclosure, "" while it holds no animal (derived from the tiles)."""
    barns: list[list[str]]
    """Each seat's barn, tiles in arrival order."""
    paired: set[str]
    """The marked (male/female) tiles that are paired."""
    out_of_play: Annotated[list[str], Digest(key="out")]
    """Tiles out of the game, in order: bonus discards and 2-player leftovers."""
    drawn_tile: Annotated[str, Digest(key="drawn")]
    """The tile waiting to be loaded, "" if none."""
    bonus_pending: Annotated[int, Digest(key="bonus")]
    """Bonus decisions still due this turn."""
    round: int
    """The round number (0 during setup)."""
    round_start_player: Annotated[int, Digest(key="round_start")]
    """The seat that started the round (-1 during setup)."""
    last_taker: int
    """The seat that took the most recent truck (starts the next round), -1 before any."""

    # -- setup ----------------------------------------------------------------

    def _setup(self) -> None:
        n = self.num_players
        self.phase = SETUP_REMOVE
        self.current = -1
        self.removed_species = []
        self.undrawn = []
        self.bag_count = self.end_count = 0
        self.last_round = False
        self.offspring_supply = []
        self.capacities = truck_capacities(n)
        self.trucks = [[] for _ in self.capacities]
        self.taken_by = [-1] * len(self.capacities)
        self.taken_truck = [-1] * n
        self.enclosures = [[] for _ in range(3 * n)]
        self.enclosure_species = [""] * (3 * n)
        self.barns = [[] for _ in range(n)]
        self.paired = set()
        self.out_of_play = []
        self.drawn_tile = ""
        self.bonus_pending = 0
        self.round = 0
        self.round_start_player = -1
        self.last_taker = -1
        given = self.options.get("removed_species")
        if given is not None:
            self.removed_species = sorted(given)
        self._advance_setup()

    def _advance_setup(self) -> None:
        if len(self.removed_species) < removed_count(self.num_players):
            self.phase = SETUP_REMOVE
            return
        self.undrawn = tile_pool(self.removed_species)
        self.offspring_supply = offspring_pool(self.removed_species)
        self.bag_count = len(self.undrawn) - END_STACK
        self.end_count = END_STACK
        start = self.options.get("start_player")
        if start is None:
            self.phase = SETUP_START
        else:
            self._start_round(int(start))

    def _start_round(self, seat: int) -> None:
        self.round += 1
        self.round_start_player = self.current = seat
        self.phase = TURN

    # -- contract hooks ---------------------------------------------------------

    @property
    def current_player(self) -> int:
        phase = self.phase
        if phase in (SETUP_REMOVE, SETUP_START, DRAW):
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return self.current

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self.phase
        if phase == DRAW:
            p = 1.0 / len(self.undrawn)
            return [(DRAW_TILE_OUTCOMES[t], p) for t in self.undrawn]
        if phase == SETUP_REMOVE:
            left = [s for s in SPECIES if s not in self.removed_species]
            q = 1.0 / len(left)
            return [(REMOVE_OUTCOMES[s], q) for s in left]
        q = 1.0 / self.num_players
        return [(start_player_outcome(s), q) for s in range(self.num_players)]

    def is_legal(self, action: Action) -> bool:
        # Same answer as the base class; a draw outcome is looked up among the undrawn
        # tiles instead of building every outcome and comparing it with each (the search
        # bots apply a draw every few steps).
        if self.phase == DRAW:
            return type(action) is DrawTile and action.tile in self.undrawn
        return State.is_legal(self, action)

    def _can_draw(self) -> bool:
        if self.bag_count + self.end_count <= 0:
            return False
        caps, trucks, taken_by = self.capacities, self.trucks, self.taken_by
        return any(taken_by[k] < 0 and len(trucks[k]) < caps[k] for k in range(len(caps)))

    def _fits(self, seat: int, enclosure: int, tile: str) -> bool:
        i = 3 * seat + enclosure
        if len(self.enclosures[i]) >= ENCLOSURE_SIZE:
            return False
        if tile[0] == "L":
            return True
        sp = self.enclosure_species[i]
        return sp == "" or sp == tile[:2]

    def _legal_actions(self) -> list[Action]:
        phase = self.phase
        p = self.current
        out: list[Action] = []
        if phase == PLACE:
            for t in self.trucks[self.taken_truck[p]]:
                acts = PLACE_ACTIONS[t]
                for e in (0, 1, 2):
                    if self._fits(p, e, t):
                        out.append(acts[e])
                out.append(acts[3])
        elif phase == TURN:
            if self._can_draw():
                out.append(DRAW_ACTION)
            for k, tiles in enumerate(self.trucks):
                if tiles and self.taken_by[k] < 0:
                    out.append(TAKE_ACTIONS[k])
        elif phase == LOAD:
            caps, trucks, taken_by = self.capacities, self.trucks, self.taken_by
            for k, cap in enumerate(caps):
                if taken_by[k] < 0 and len(trucks[k]) < cap:
                    out.append(LOAD_ACTIONS[k])
        elif phase == BONUS:
            for q in range(self.num_players):
                if q == p:
                    continue
                for t in self.barns[q]:
                    for e in (0, 1, 2):
                        if self._fits(p, e, t):
                            out.append(bonus_take_action(q, t, e))
            out.extend(DISCARD_ACTIONS[t] for t in self.barns[p])
            out.append(SKIP_ACTION)
        return out

    def _apply(self, action: Action) -> None:
        match action:
            case Place(tile=tile, to=to):
                self._place(tile, _DEST_INDEX[to])
            case DrawTile(tile=tile):
                self.undrawn.remove(tile)
                if self.bag_count > 0:
                    self.bag_count -= 1
                else:
                    self.end_count -= 1
                    self.last_round = True
                self.drawn_tile = tile
                self.phase = LOAD
            case Draw():
                self.phase = DRAW
            case Load(truck=truck):
                self.trucks[_TRUCK_INDEX[truck]].append(self.drawn_tile)
                self.drawn_tile = ""
                self._end_turn()
            case TakeTruck(truck=truck):
                k = _TRUCK_INDEX[truck]
                p = self.current
                self.taken_by[k] = p
                self.taken_truck[p] = k
                self.last_taker = p
                self.bonus_pending = 0
                self.phase = PLACE
            case BonusTake(from_=seat, tile=tile, to=to):
                self.barns[seat].remove(tile)
                self._enter(self.current, _DEST_INDEX[to], tile, False)
                self._bonus_done()
            case BonusDiscard(tile=tile):
                self.barns[self.current].remove(tile)
                self.out_of_play.append(tile)
                self._bonus_done()
            case BonusSkip():
                self._bonus_done()
            case RemoveSpecies(species=species):
                self.removed_species = sorted([*self.removed_species, species])
                self._advance_setup()
            case StartPlayer(seat=seat):
                self._start_round(seat)

    def _place(self, tile: str, dest: int) -> None:
        p = self.current
        truck = self.trucks[self.taken_truck[p]]
        truck.remove(tile)
        if dest == 3:
            self.barns[p].append(tile)
        else:
            self._enter(p, dest, tile, True)
        if not truck:
            if self.bonus_pending > 0:
                self.phase = BONUS
            else:
                self._end_turn()

    def _enter(self, p: int, e: int, tile: str, from_truck: bool) -> None:
        """``tile`` enters enclosure ``e`` of seat ``p``; offspring resolution; bonus count."""
        i = 3 * p + e
        enc = self.enclosures[i]
        enc.append(tile)
        if tile[0] == "S" and not self.enclosure_species[i]:
            self.enclosure_species[i] = tile[:2]
        sex = tile[2]
        if sex == "M" or sex == "F":
            opposite = "F" if sex == "M" else "M"
            paired = self.paired
            mates = [t for t in enc if t[2] == opposite and t not in paired]
            if mates:
                paired.add(tile)
                paired.add(min(mates))
                sp = tile[:2]
                supply = self.offspring_supply
                for baby in supply:
                    if baby[:2] == sp:
                        supply.remove(baby)
                        if len(enc) < ENCLOSURE_SIZE:
                            enc.append(baby)
                        else:
                            self.barns[p].append(baby)
                        break
        if from_truck and len(enc) == ENCLOSURE_SIZE:
            self.bonus_pending += 1

    def _bonus_done(self) -> None:
        self.bonus_pending -= 1
        if self.bonus_pending <= 0:
            self.bonus_pending = 0
            self._end_turn()

    def _end_turn(self) -> None:
        n = self.num_players
        p = self.current
        taken = self.taken_truck
        for i in range(1, n + 1):
            q = (p + i) % n
            if taken[q] < 0:
                self.current = q
                self.phase = TURN
                return
        # Round end: every player has taken a truck.
        for k, tiles in enumerate(self.trucks):
            if self.taken_by[k] < 0:
                self.out_of_play.extend(tiles)  # 2 players: the untaken truck's tiles leave (D7)
            self.trucks[k] = []
            self.taken_by[k] = -1
        self.taken_truck = [-1] * n
        if self.last_round:
            self.phase = OVER
            self.current = -1
        else:
            self._start_round(self.last_taker)

    # -- scoring ------------------------------------------------------------------

    def zoo(self, seat: int) -> tuple[list[list[str]], list[str]]:
        """The enclosures (E1, E2, E3) and the barn of ``seat`` (copies)."""
        return [e[:] for e in self.enclosures[3 * seat : 3 * seat + 3]], self.barns[seat][:]

    def score(self, seat: int) -> dict[str, int]:
        """The current score breakdown of ``seat`` (the final one once the game is over)."""
        return score_zoo(self.enclosures[3 * seat : 3 * seat + 3], self.barns[seat])

    def _scores(self) -> list[float]:
        return [self.score(s)["total"] for s in range(self.num_players)]

    def _result(self) -> Result:
        breakdown = [self.score(s) for s in range(self.num_players)]
        ranks = competition_ranks([(b["total"], b["landscape_tiles"]) for b in breakdown])
        return Result(
            scores=[b["total"] for b in breakdown],
            breakdown=[dict(b) for b in breakdown],
            ranks=ranks,
        )

    # -- views ----------------------------------------------------------------------

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        """Everything is public: every seat and the spectator see the same (but ``you``);
        the undrawn tiles are the only unknown and never appear, only their two counts."""
        n = self.num_players
        players: list[JSON] = []
        scores: list[JSON] = []
        for s in range(n):
            encs: list[JSON] = []
            for e in range(3):
                tiles = self.enclosures[3 * s + e]
                encs.append(
                    {
                        "id": ENCLOSURE_IDS[e],
                        "species": self.enclosure_species[3 * s + e],
                        "tiles": list(tiles),
                        "paired": [t for t in tiles if t in self.paired],
                    }
                )
            score = self.score(s)
            scores.append(score["total"])
            k = self.taken_truck[s]
            players.append(
                {
                    "seat": s,
                    "active": k < 0,
                    "truck": TRUCK_IDS[k] if k >= 0 else "",
                    "enclosures": encs,
                    "barn": list(self.barns[s]),
                    "score": score,
                }
            )
        return {
            "you": seat,
            "current_player": self.current_player,
            "phase": PHASE_NAMES[self.phase],
            "round": self.round,
            "round_start_player": self.round_start_player,
            "last_round": self.last_round,
            "bag_count": self.bag_count,
            "end_count": self.end_count,
            "removed_species": list(self.removed_species),
            "offspring_supply": list(self.offspring_supply),
            "out_of_play": list(self.out_of_play),
            "drawn_tile": self.drawn_tile,
            "bonus_pending": self.bonus_pending,
            "trucks": [
                {
                    "id": TRUCK_IDS[k],
                    "capacity": cap,
                    "tiles": list(self.trucks[k]),
                    "taken_by": self.taken_by[k],
                }
                for k, cap in enumerate(self.capacities)
            ],
            "players": players,
            "scores": scores,
        }

    def render(self, seat: int | None = None) -> str:
        ranks = self._result().ranks if self.phase == OVER else None
        return render(self._observation(seat), ranks)

    def _resample(self, seat: int, rng: random.Random) -> State:
        """A clone: the engine keeps only the SET of undrawn tiles and two counters (spec
        Setup 5); which of them is in the bag or the end stack and in which order is not
        modelled but decided by each later ``draw_tile`` chance node. Every other part of the
        state is public, so the only state consistent with any observation is this one."""
        return self.clone()

    def _illegal_reason(self, action: Action) -> str:
        p = self.current
        phase = self.phase
        match action:
            case Place(tile=tile, to=to) if phase == PLACE:
                if tile not in self.trucks[self.taken_truck[p]]:
                    return f"{tile} is not on seat {p}'s truck"
                if to != "barn":
                    i = 3 * p + _DEST_INDEX[to]
                    if len(self.enclosures[i]) >= ENCLOSURE_SIZE:
                        return f"{action}: {to} is full"
                    return f"{action}: {to} already holds species {self.enclosure_species[i]}"
            case BonusTake(from_=q, tile=tile, to=to) if phase == BONUS:
                if q == p or not (0 <= q < self.num_players):
                    return (
                        f"{action}: 'from' must be another seat "
                        f"(0..{self.num_players - 1}, not {p})"
                    )
                if tile not in self.barns[q]:
                    return f"{action}: {tile} is not in seat {q}'s barn"
                return f"{action}: {tile} does not fit into {to}"
            case TakeTruck(truck=truck) if phase == TURN:
                k = _TRUCK_INDEX[truck]
                if k >= len(self.capacities):
                    return f"{action}: there is no {truck} with {self.num_players} players"
                if self.taken_by[k] >= 0:
                    return f"{action}: {truck} was already taken by seat {self.taken_by[k]}"
                if not self.trucks[k]:
                    return f"{action}: {truck} is empty"
            case Draw() if phase == TURN:
                return "draw is not legal now: no available truck has a free slot (or no tile left)"
        return super()._illegal_reason(action)
