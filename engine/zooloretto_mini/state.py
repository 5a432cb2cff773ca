"""Zooloretto Mini rules: the state, its decisions, chance nodes and transitions."""

from __future__ import annotations

import random

from engine.core import CHANCE, JSON, TERMINAL, Action, Result, State, competition_ranks
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
)
from engine.zooloretto_mini.components import (
    BONUS,
    DESTINATIONS,
    DRAW,
    ENCLOSURE_SIZE,
    END_STACK,
    LOAD,
    OVER,
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
from engine.zooloretto_mini.view import observation, render

_TRUCK_INDEX = {t: i for i, t in enumerate(TRUCK_IDS)}
_DEST_INDEX = {d: i for i, d in enumerate(DESTINATIONS)}


class ZoolorettoState(State):
    """A Zooloretto Mini position. Zoos are flat lists: enclosure k of seat p is ``enc[3p+k]``.

    Fields: ``phase``; ``cur`` (seat to decide); ``removed`` (sorted species ids);
    ``undrawn`` (sorted tile ids not drawn yet: bag and end stack together), ``bag_count``,
    ``end_count``, ``last_round``; ``supply`` (sorted offspring ids); ``caps``, ``trucks``
    (tile lists in slot order), ``owner`` (seat that took each truck, -1 if available),
    ``taken`` (truck index per seat, -1 while active); ``enc``, ``esp`` (species of each
    enclosure, "" while it holds no animal), ``barns``, ``paired`` (ids of paired marked
    tiles); ``out`` (tiles out of play); ``drawn`` (tile waiting to be loaded, "" if none);
    ``bonus`` (bonus decisions still due); ``round``, ``round_start``, ``last_taker``.
    """

    phase: int
    cur: int
    removed: list[str]
    undrawn: list[str]
    bag_count: int
    end_count: int
    last_round: bool
    supply: list[str]
    caps: tuple[int, ...]
    trucks: list[list[str]]
    owner: list[int]
    taken: list[int]
    enc: list[list[str]]
    esp: list[str]
    barns: list[list[str]]
    paired: set[str]
    out: list[str]
    drawn: str
    bonus: int
    round: int
    round_start: int
    last_taker: int

    # -- setup ----------------------------------------------------------------

    def _setup(self) -> None:
        n = self.num_players
        self.phase = SETUP_REMOVE
        self.cur = -1
        self.removed = []
        self.undrawn = []
        self.bag_count = self.end_count = 0
        self.last_round = False
        self.supply = []
        self.caps = truck_capacities(n)
        self.trucks = [[] for _ in self.caps]
        self.owner = [-1] * len(self.caps)
        self.taken = [-1] * n
        self.enc = [[] for _ in range(3 * n)]
        self.esp = [""] * (3 * n)
        self.barns = [[] for _ in range(n)]
        self.paired = set()
        self.out = []
        self.drawn = ""
        self.bonus = 0
        self.round = 0
        self.round_start = -1
        self.last_taker = -1
        given = self.options.get("removed_species")
        if given is not None:
            self.removed = sorted(given)
        self._advance_setup()

    def _advance_setup(self) -> None:
        if len(self.removed) < removed_count(self.num_players):
            self.phase = SETUP_REMOVE
            return
        self.undrawn = tile_pool(self.removed)
        self.supply = offspring_pool(self.removed)
        self.bag_count = len(self.undrawn) - END_STACK
        self.end_count = END_STACK
        start = self.options.get("start_player")
        if start is None:
            self.phase = SETUP_START
        else:
            self._start_round(int(start))

    def _start_round(self, seat: int) -> None:
        self.round += 1
        self.round_start = self.cur = seat
        self.phase = TURN

    # -- contract hooks ---------------------------------------------------------

    @property
    def current_player(self) -> int:
        phase = self.phase
        if phase in (SETUP_REMOVE, SETUP_START, DRAW):
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return self.cur

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self.phase
        if phase == DRAW:
            p = 1.0 / len(self.undrawn)
            return [(DRAW_TILE_OUTCOMES[t], p) for t in self.undrawn]
        if phase == SETUP_REMOVE:
            left = [s for s in SPECIES if s not in self.removed]
            q = 1.0 / len(left)
            return [(REMOVE_OUTCOMES[s], q) for s in left]
        q = 1.0 / self.num_players
        return [(StartPlayer(s), q) for s in range(self.num_players)]

    def _can_draw(self) -> bool:
        if self.bag_count + self.end_count <= 0:
            return False
        caps, trucks, owner = self.caps, self.trucks, self.owner
        return any(owner[k] < 0 and len(trucks[k]) < caps[k] for k in range(len(caps)))

    def _fits(self, seat: int, enc: int, tile: str) -> bool:
        i = 3 * seat + enc
        if len(self.enc[i]) >= ENCLOSURE_SIZE:
            return False
        if tile[0] == "L":
            return True
        sp = self.esp[i]
        return sp == "" or sp == tile[:2]

    def _legal_actions(self) -> list[Action]:
        phase = self.phase
        p = self.cur
        out: list[Action] = []
        if phase == PLACE:
            for t in self.trucks[self.taken[p]]:
                acts = PLACE_ACTIONS[t]
                for e in (0, 1, 2):
                    if self._fits(p, e, t):
                        out.append(acts[e])
                out.append(acts[3])
        elif phase == TURN:
            if self._can_draw():
                out.append(DRAW_ACTION)
            for k, tiles in enumerate(self.trucks):
                if tiles and self.owner[k] < 0:
                    out.append(TAKE_ACTIONS[k])
        elif phase == LOAD:
            caps, trucks, owner = self.caps, self.trucks, self.owner
            for k, cap in enumerate(caps):
                if owner[k] < 0 and len(trucks[k]) < cap:
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
        kind = type(action)
        if kind is Place:
            self._place(action)  # type: ignore[arg-type]
        elif kind is DrawTile:
            tile = action.tile  # type: ignore[attr-defined]
            self.undrawn.remove(tile)
            if self.bag_count > 0:
                self.bag_count -= 1
            else:
                self.end_count -= 1
                self.last_round = True
            self.drawn = tile
            self.phase = LOAD
        elif kind is Draw:
            self.phase = DRAW
        elif kind is Load:
            self.trucks[_TRUCK_INDEX[action.truck]].append(self.drawn)  # type: ignore[attr-defined]
            self.drawn = ""
            self._end_turn()
        elif kind is TakeTruck:
            k = _TRUCK_INDEX[action.truck]  # type: ignore[attr-defined]
            p = self.cur
            self.owner[k] = p
            self.taken[p] = k
            self.last_taker = p
            self.bonus = 0
            self.phase = PLACE
        elif kind is BonusTake:
            a: BonusTake = action  # type: ignore[assignment]
            self.barns[a.from_].remove(a.tile)
            self._enter(self.cur, _DEST_INDEX[a.to], a.tile, False)
            self._bonus_done()
        elif kind is BonusDiscard:
            tile = action.tile  # type: ignore[attr-defined]
            self.barns[self.cur].remove(tile)
            self.out.append(tile)
            self._bonus_done()
        elif kind is BonusSkip:
            self._bonus_done()
        elif kind is RemoveSpecies:
            self.removed = sorted([*self.removed, action.species])  # type: ignore[attr-defined]
            self._advance_setup()
        elif kind is StartPlayer:
            self._start_round(action.seat)  # type: ignore[attr-defined]

    def _place(self, action: Place) -> None:
        p = self.cur
        truck = self.trucks[self.taken[p]]
        truck.remove(action.tile)
        dest = _DEST_INDEX[action.to]
        if dest == 3:
            self.barns[p].append(action.tile)
        else:
            self._enter(p, dest, action.tile, True)
        if not truck:
            if self.bonus > 0:
                self.phase = BONUS
            else:
                self._end_turn()

    def _enter(self, p: int, e: int, tile: str, from_truck: bool) -> None:
        """``tile`` enters enclosure ``e`` of seat ``p``; offspring resolution; bonus count."""
        i = 3 * p + e
        enc = self.enc[i]
        enc.append(tile)
        if tile[0] == "S" and not self.esp[i]:
            self.esp[i] = tile[:2]
        sex = tile[2]
        if sex == "M" or sex == "F":
            opposite = "F" if sex == "M" else "M"
            paired = self.paired
            mates = [t for t in enc if t[2] == opposite and t not in paired]
            if mates:
                paired.add(tile)
                paired.add(min(mates))
                sp = tile[:2]
                for baby in self.supply:
                    if baby[:2] == sp:
                        self.supply.remove(baby)
                        if len(enc) < ENCLOSURE_SIZE:
                            enc.append(baby)
                        else:
                            self.barns[p].append(baby)
                        break
        if from_truck and len(enc) == ENCLOSURE_SIZE:
            self.bonus += 1

    def _bonus_done(self) -> None:
        self.bonus -= 1
        if self.bonus <= 0:
            self.bonus = 0
            self._end_turn()

    def _end_turn(self) -> None:
        n = self.num_players
        p = self.cur
        taken = self.taken
        for i in range(1, n + 1):
            q = (p + i) % n
            if taken[q] < 0:
                self.cur = q
                self.phase = TURN
                return
        # Round end: every player has taken a truck.
        for k, tiles in enumerate(self.trucks):
            if self.owner[k] < 0:
                self.out.extend(tiles)  # 2 players: the untaken truck's tiles leave (D7)
            self.trucks[k] = []
            self.owner[k] = -1
        self.taken = [-1] * n
        if self.last_round:
            self.phase = OVER
            self.cur = -1
        else:
            self._start_round(self.last_taker)

    def _copy_into(self, other: State) -> None:
        assert isinstance(other, ZoolorettoState)
        other.phase = self.phase
        other.cur = self.cur
        other.removed = self.removed[:]
        other.undrawn = self.undrawn[:]
        other.bag_count = self.bag_count
        other.end_count = self.end_count
        other.last_round = self.last_round
        other.supply = self.supply[:]
        other.caps = self.caps
        other.trucks = [t[:] for t in self.trucks]
        other.owner = self.owner[:]
        other.taken = self.taken[:]
        other.enc = [e[:] for e in self.enc]
        other.esp = self.esp[:]
        other.barns = [b[:] for b in self.barns]
        other.paired = set(self.paired)
        other.out = self.out[:]
        other.drawn = self.drawn
        other.bonus = self.bonus
        other.round = self.round
        other.round_start = self.round_start
        other.last_taker = self.last_taker

    # -- scoring ------------------------------------------------------------------

    def zoo(self, seat: int) -> tuple[list[list[str]], list[str]]:
        """The enclosures (E1, E2, E3) and the barn of ``seat`` (copies)."""
        return [e[:] for e in self.enc[3 * seat : 3 * seat + 3]], self.barns[seat][:]

    def score(self, seat: int) -> dict[str, int]:
        """The current score breakdown of ``seat`` (the final one once the game is over)."""
        return score_zoo(self.enc[3 * seat : 3 * seat + 3], self.barns[seat])

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
        return observation(self)

    def render(self, seat: int | None = None) -> str:
        return render(self)

    def _full_state(self) -> JSON:
        return {
            "phase": self.phase,
            "cur": self.cur,
            "removed": list(self.removed),
            "undrawn": list(self.undrawn),
            "bag_count": self.bag_count,
            "end_count": self.end_count,
            "last_round": self.last_round,
            "supply": list(self.supply),
            "trucks": [list(t) for t in self.trucks],
            "owner": list(self.owner),
            "taken": list(self.taken),
            "enc": [list(e) for e in self.enc],
            "barns": [list(b) for b in self.barns],
            "paired": sorted(self.paired),
            "out": list(self.out),
            "drawn": self.drawn,
            "bonus": self.bonus,
            "round": self.round,
            "round_start": self.round_start,
            "last_taker": self.last_taker,
        }

    def _resample(self, seat: int, rng: random.Random) -> State:
        """A clone: the engine keeps only the SET of undrawn tiles and two counters (spec
        Setup 5); which of them is in the bag or the end stack and in which order is not
        modelled but decided by each later ``draw_tile`` chance node. Every other part of the
        state is public, so the only state consistent with any observation is this one."""
        return self.clone()

    def _illegal_reason(self, action: Action) -> str:
        p = self.cur
        if self.phase == PLACE and isinstance(action, Place):
            if action.tile not in self.trucks[self.taken[p]]:
                return f"{action.tile} is not on seat {p}'s truck"
            if action.to != "barn":
                e = _DEST_INDEX[action.to]
                if len(self.enc[3 * p + e]) >= ENCLOSURE_SIZE:
                    return f"{action}: {action.to} is full"
                return f"{action}: {action.to} already holds species {self.esp[3 * p + e]}"
        if self.phase == BONUS and isinstance(action, BonusTake):
            q = action.from_
            if q == p or not (0 <= q < self.num_players):
                return f"{action}: 'from' must be another seat (0..{self.num_players - 1}, not {p})"
            if action.tile not in self.barns[q]:
                return f"{action}: {action.tile} is not in seat {q}'s barn"
            return f"{action}: {action.tile} does not fit into {action.to}"
        if self.phase == TURN and isinstance(action, TakeTruck):
            k = _TRUCK_INDEX[action.truck]
            if k >= len(self.caps):
                return f"{action}: there is no {action.truck} with {self.num_players} players"
            if self.owner[k] >= 0:
                return f"{action}: {action.truck} was already taken by seat {self.owner[k]}"
            if not self.trucks[k]:
                return f"{action}: {action.truck} is empty"
        if self.phase == TURN and isinstance(action, Draw):
            return "draw is not legal now: no available truck has a free slot (or no tile left)"
        return super()._illegal_reason(action)
