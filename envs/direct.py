"""Tensors read from a state's fields, for the games that have such an encoder.

:meth:`envs.tensors.Layout.encode` reads the JSON observation a bot receives, which the
engine builds for the purpose (ids as strings, a dict per entry, score breakdowns the
layout does not use). Building it is most of a step's cost, so the training environment
takes a shorter road where one is written here: the same vector, written straight from
the state's public, documented fields (the ones the game's observation is built from),
at the offsets of the game's own layout. ``tests/envs`` checks, at every step of random
playouts and for every seat, that it equals ``layout.encode(state.observation(seat))``,
so everything proved of the layout (no hidden information, the fields it describes) holds
for it too. A game without one here is encoded from its observation.

All five games have one. Panorama's state is public (every seat sees the same), so its
encoder writes the whole vector, rotating the seats. The other four change little from
one step to the next, so theirs name the parts of the vector (:class:`_Parts`) and
rewrite only those whose inputs changed since the seat's last vector; Dziobaki's boards,
which recur, are written and scored once per position (:class:`_Blocks`). Where a game
hides something (Dziobaki's commitments, Manatee Sanctuary's hands, draft and deck), the
encoder reads only what the observation shows the seat, as the engine's observation code
does (its docstring says which fields).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from engine.carson_city_zoo import data as ccz_data
from engine.carson_city_zoo.state import CarsonCityZooState
from engine.core import TERMINAL, State
from engine.dziobaki import data as dz_data
from engine.dziobaki import scoring as dz_scoring
from engine.dziobaki.state import DziobakiState
from engine.manatee_sanctuary import data as ms_data
from engine.manatee_sanctuary import steps as ms_steps
from engine.manatee_sanctuary.state import ManateeSanctuaryState
from engine.panorama import scoring as pn_scoring
from engine.panorama.data import PHASE_NAMES, REVEAL_NODE, TILE_IDS
from engine.panorama.state import PanoramaState
from engine.zooloretto_mini import data as zm_data
from engine.zooloretto_mini.state import ZoolorettoMiniState
from envs.manatee import MAX_PLACED
from envs.tensors import (
    Field,
    Layout,
    Number,
    OneHot,
    Record,
    Rows,
    Seat,
    Seats,
    Sink,
    Tokens,
    Vector,
)

Direct = Callable[[State, int], Vector]
"""``(state, seat) -> the seat's tensor`` (equal to the layout's encoding)."""


def _at(fields: Iterable[Field]) -> dict[str, tuple[int, Field]]:
    """Each of ``fields`` (laid out in order) by key: (its offset, the field)."""
    out: dict[str, tuple[int, Field]] = {}
    at = 0
    for f in fields:
        out[f.key or ""] = (at, f)
        at += f.width
    return out


def _offsets(layout: Layout) -> dict[str, tuple[int, Field]]:
    """Each top-level field of ``layout`` by key: (its offset, the field)."""
    return _at(layout.fields)


def _inner(record: Field) -> dict[str, tuple[int, Field]]:
    """The fields of a :class:`Record` by key: (offset within the record, the field)."""
    assert isinstance(record, Record)
    return _at(record.fields)


def _index(field: Field) -> dict[object, int]:
    assert isinstance(field, OneHot)  # Tokens too
    return cast(dict[object, int], field.index)


def _scale(field: Field) -> float:
    """What a :class:`Number` field divides its value by."""
    assert isinstance(field, Number)
    return field.scale


def _item(field: Field) -> tuple[int, dict[str, tuple[int, Field]]]:
    """The width of a :class:`Rows` (or :class:`Seats`) entry and its record's fields."""
    assert isinstance(field, Rows)
    item = field.item
    return item.width, (_inner(item) if isinstance(item, Record) else {"": (0, item)})


_Block = tuple[tuple[int, ...], float]
"""One entry of a seat list (a board): the positions that get 1 (distinct) from
the entry's start, and the seat's score (which goes elsewhere in the vector). A plain
tuple of numbers, which the collector stops tracking (it never untracks a tuple subclass):
a cache of thousands then costs its full collections nothing. (A cache pays only where
positions recur: Zooloretto Mini's zoos, written afresh, seldom do.)"""


class _Blocks:
    """Seat entries (:class:`_Block`) by the key of what they encode, shared by every
    observer (an entry only moves with the observer). Bounded: it starts over when
    full."""

    __slots__ = ("limit", "table")

    def __init__(self, limit: int = 20_000) -> None:
        self.limit = limit
        self.table: dict[Hashable, _Block] = {}

    def get(self, key: Hashable) -> _Block | None:
        return self.table.get(key)

    def put(self, key: Hashable, block: _Block) -> _Block:
        if len(self.table) >= self.limit:
            self.table.clear()
        self.table[key] = block
        return block


Written = tuple[list[int], list[int], list[float], object]
"""A part of the vector: the positions of its ones, the positions of its other numbers
and those numbers (positions absolute and distinct), and the snapshot of its key."""


class _Parts:
    """A vector made of parts, each rewritten only when what it is written from changed.

    Most steps change little: a tile is loaded, a seat places one card, and the rest of
    the observation is what it was. So an encoder names its parts, each by a *key*,
    every value the part is written from (the state's own lists may be in it), and a
    writer, which also returns a snapshot of the key (copies of those lists, equal to
    the key). For each observing seat the last vector and snapshots are kept; a part
    whose key equals its last snapshot is left as it is, any other has its old entries
    cleared and is written again. Keys hold everything their part reads, so the vector
    is the same as one written from scratch (``tests/envs`` checks it at every step,
    against the layout's encoding of the observation, with states of many games in
    turn); the cache only decides how much is rewritten. The vector is a float32 array,
    handed out as a fresh copy (or kept, for :class:`_Rotation` to copy)."""

    __slots__ = ("last", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.last: dict[int, tuple[Vector, Any, list[object], list[list[int]]]] = {}
        """Per observing seat: its last vector, the snapshot of each part's key, and the
        positions each part wrote."""

    def vector(
        self, seat: int, keys: list[object], write: Callable[[int], Written], copy: bool = True
    ) -> Vector:
        """The vector for ``seat`` whose part ``i`` has key ``keys[i]`` and is written
        by ``write(i)`` (called only for the parts whose key changed); ``copy=False``:
        the kept vector itself, which the caller must not hand out or change."""
        view: Any
        last = self.last.get(seat)
        if last is None or len(last[2]) != len(keys):
            vec = np.zeros(self.size, dtype=np.float32)
            # its memoryview sets one item for a fraction of numpy's cost (Any: typeshed's
            # memoryview takes only ints; this one's items are float32, format "f")
            view = vec.data
            old: list[object] = [_NEVER] * len(keys)
            spots: list[list[int]] = [[] for _ in keys]
        else:
            vec, view, old, spots = last
        cleared: list[int] = []
        ones: list[int] = []
        at_values: list[int] = []
        values: list[float] = []
        for i, key in enumerate(keys):
            if key != old[i]:
                cleared += spots[i]
                part_ones, part_at, part_values, old[i] = write(i)
                ones += part_ones
                at_values += part_at
                values += part_values
                spots[i] = part_ones + part_at
        _write(vec, view, cleared, ones, at_values, values)
        self.last[seat] = (vec, view, old, spots)
        return vec.copy() if copy else vec


def _write(
    vec: Vector,
    view: Any,
    cleared: list[int],
    ones: list[int],
    at_values: list[int],
    values: list[float],
) -> None:
    """Set ``vec`` (``view``: its memoryview) to 0 at ``cleared``, then to 1 at ``ones``
    and to ``values`` at ``at_values``."""
    if len(cleared) + len(ones) + len(at_values) <= _ITEMWISE:
        for i in cleared:
            view[i] = 0.0
        for i in ones:
            view[i] = 1.0
        for i, value in zip(at_values, values, strict=True):
            view[i] = value
    else:  # a seat's first vector, a new round
        if cleared:
            vec[np.array(cleared, dtype=np.intp)] = 0.0
        if ones:
            vec[np.array(ones, dtype=np.intp)] = 1.0
        if at_values:
            vec[np.array(at_values, dtype=np.intp)] = values


_ITEMWISE = 256
"""Up to this many changed positions are set one at a time (through a memoryview of the
vector), above it through index arrays (three arrays to build cost about as much as
a few hundred single writes, compiled)."""

_NEVER = object()
"""A key no part ever has (the first vector of a seat writes every part)."""


class _Rotation:
    """Any seat's vector from seat 0's, for a game whose observation is the same for
    every seat but ``you`` (Zooloretto Mini, Carson City Zoo): seat ``v``'s vector is
    seat 0's with every :class:`Seat` one-hot and every :class:`Seats` list rotated by
    ``v``. An encoder then keeps one vector (seat 0's) whose parts change once per step,
    instead of one per observing seat, each catching up on every step since it last
    observed. Built from the layout's fields; a :class:`Seat` inside a :class:`Seats`
    entry is not supported (ValueError: no layout has one)."""

    __slots__ = ("moves", "picks")

    def __init__(self, layout: Layout, num_players: int) -> None:
        n = num_players
        seats: list[int] = []  # offsets of Seat one-hots
        lists: list[tuple[int, int]] = []  # (offset, entry width) of Seats lists

        def walk(f: Field, at: int, inside: bool) -> None:
            if isinstance(f, Seat):
                if inside:
                    raise ValueError(f"{f.key}: a seat inside a seat list cannot be rotated")
                seats.append(at)
            elif isinstance(f, Seats):
                if inside:
                    raise ValueError(f"{f.key}: a seat list inside a seat list")
                walk(f.item, 0, True)
                lists.append((at, f.item.width))
            elif isinstance(f, Rows):
                for i in range(f.count):
                    walk(f.item, at + i * f.item.width, inside)
            elif isinstance(f, Record):
                for g in f.fields:
                    walk(g, at, inside)
                    at += g.width

        start = 0
        for f in layout.fields:
            walk(f, start, False)
            start += f.width
        self.moves: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        """Per seat: (to, from, width) slices of seat 0's vector."""
        self.picks: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]] = []
        """Per seat: single positions (to, from) of seat 0's vector."""
        for v in range(n):
            to: list[int] = []
            frm: list[int] = []
            for at in seats:
                to += [at + (x - v) % n for x in range(n)]
                frm += [at + x for x in range(n)]
            for at, width in lists:
                for q in range(n):
                    if width == 1:
                        to.append(at + (q - v) % n)
                        frm.append(at + q)
                    else:
                        self.moves[v].append((at + ((q - v) % n) * width, at + q * width, width))
            self.picks.append((np.array(to, dtype=np.intp), np.array(frm, dtype=np.intp)))

    def rotate(self, vec: Vector, seat: int) -> Vector:
        """Seat ``seat``'s vector from seat 0's ``vec`` (a new array)."""
        out = vec.copy()
        if seat:
            for to, frm, width in self.moves[seat]:
                out[to : to + width] = vec[frm : frm + width]
            to_at, from_at = self.picks[seat]
            out[to_at] = vec[from_at]
        return out


_TOTALS = 20_000
"""At most this many positions' scores kept by an encoder (it starts over when full)."""


def panorama(layout: Layout, num_players: int) -> Direct:
    """The Panorama encoder of ``layout`` (envs.layouts) for ``num_players`` seats."""
    top = _offsets(layout)
    at_current = top["current_player"][0]
    at_phase, phase_field = top["phase"]
    phase_at = [_index(phase_field)[name] for name in PHASE_NAMES]
    at_pending, pending_field = top["pending_space"]
    pending_at = _index(pending_field)
    at_goals, goals_field = top["goals"]
    goal_at = _index(goals_field)
    at_num_spaces = top["num_spaces"][0]
    num_spaces_scale = 9.0
    at_token_space, token_field = top["token_space"]
    token_at = _index(token_field)
    at_face, face_field = top["token_face"]
    sun, moon = _index(face_field)["sun"], _index(face_field)["moon"]
    at_active = top["active_player"][0]
    at_held, held_field = top["held_tile"]
    tile_at = [_index(held_field)[t] for t in TILE_IDS]
    at_unrevealed = top["unrevealed_tiles"][0]
    at_spaces, spaces_field = top["spaces"]
    assert isinstance(spaces_field, Rows)
    space_width = spaces_field.item.width
    space = _inner(spaces_field.item)
    at_count, at_top, at_balloon_seat = (space[k][0] for k in ("count", "top", "balloon_seat"))
    at_players, players_field = top["players"]
    assert isinstance(players_field, Seats)
    player_width = players_field.item.width
    player = _inner(players_field.item)
    at_panorama, panorama_field = player["panorama"]
    assert isinstance(panorama_field, Tokens)
    panorama_at = [_index(panorama_field)[t] for t in TILE_IDS]
    at_start = player["start_index"][0]
    at_balloon_space, balloon_space_field = player["balloon_space"]
    balloon_space_at = _index(balloon_space_field)
    at_balloon, balloon_field = player["balloon"]
    balloon_at = _index(balloon_field)
    none_at, standing_at, deflated_at = (balloon_at[k] for k in ("none", "standing", "deflated"))
    at_scores = top["scores"][0]
    n = num_players
    size = layout.size
    totals: dict[tuple[Any, ...], list[int]] = {}
    """The scores by what they are computed from (the panoramas, start tiles, goals)."""

    def encode(state: State, seat: int) -> Vector:
        s = cast(PanoramaState, state)
        out = Sink()
        ones, spots, values = out.ones, out.spots, out.values
        if s.current >= 0:
            ones.append(at_current + (s.current - seat) % n)
        ones.append(at_phase + phase_at[s.phase])
        if s.phase == REVEAL_NODE and s.pending_space in pending_at:
            ones.append(at_pending + pending_at[s.pending_space])
        for g in s.goals:  # "" until a goal is drawn (goal_set random): nothing
            if g:
                ones.append(at_goals + goal_at[g])
        if s.num_spaces:
            spots.append(at_num_spaces)
            values.append(s.num_spaces / num_spaces_scale)
        if s.token_space in token_at:
            ones.append(at_token_space + token_at[s.token_space])
        ones.append(at_face + (moon if s.moon else sun))
        if s.active_player >= 0:
            ones.append(at_active + (s.active_player - seat) % n)
        if s.held_tile >= 0:
            ones.append(at_held + tile_at[s.held_tile])
        if s.unrevealed:
            spots.append(at_unrevealed)
            values.append(len(s.unrevealed) / 40.0)
        counts, tops, occupants = s.stack_counts, s.tops, s.occupants
        for i in range(s.num_spaces):
            base = at_spaces + i * space_width
            if counts[i]:
                spots.append(base + at_count)
                values.append(counts[i] / 4.0)
            if tops[i] >= 0:
                ones.append(base + at_top + tile_at[tops[i]])
            if occupants[i] >= 0:
                ones.append(base + at_balloon_seat + (occupants[i] - seat) % n)
        key = (tuple(map(tuple, s.panoramas)), tuple(s.start_index), tuple(s.goals))
        scores = totals.get(key)
        if scores is None:  # scored once per position of the panoramas, whoever observes
            if len(totals) >= _TOTALS:
                totals.clear()
            scored = pn_scoring.breakdowns(list(key[0]), list(key[1]), list(key[2]))
            scores = totals[key] = [b["total"] for b in scored]
        for q in range(n):
            rel = (q - seat) % n
            base = at_players + rel * player_width
            ones.extend([base + at_panorama + panorama_at[t] for t in s.panoramas[q]])
            if s.start_index[q]:
                spots.append(base + at_start)
                values.append(s.start_index[q] / 10.0)
            where = s.balloon_space[q]
            if where < 0:
                ones.append(base + at_balloon + none_at)
            else:
                if where in balloon_space_at:
                    ones.append(base + at_balloon_space + balloon_space_at[where])
                ones.append(base + at_balloon + (standing_at if s.standing[q] else deflated_at))
            if scores[q]:
                spots.append(at_scores + rel)
                values.append(scores[q] / 10.0)
        return out.vector(size, distinct=True)  # every tile and goal is in play once

    return encode


def zooloretto_mini(layout: Layout, num_players: int) -> Direct:
    """The Zooloretto Mini encoder of ``layout`` for ``num_players`` seats (everything is
    public; the undrawn tiles appear only as the two counts, as in the observation).
    Parts (:class:`_Parts`): the counters, the tile lists, the trucks, and each seat's
    zoo with its score."""
    top = _offsets(layout)
    at_current = top["current_player"][0]
    at_phase, phase_field = top["phase"]
    phase_at = [_index(phase_field)[name] for name in zm_data.PHASE_NAMES]
    at_round, round_field = top["round"]
    round_scale = _scale(round_field)
    at_round_start = top["round_start_player"][0]
    at_last = top["last_round"][0]
    at_bag, bag_field = top["bag_count"]
    bag_scale = _scale(bag_field)
    at_end, end_field = top["end_count"]
    end_scale = _scale(end_field)
    at_removed, removed_field = top["removed_species"]
    species_at = _index(removed_field)
    at_supply, supply_field = top["offspring_supply"]
    tile_at = _index(supply_field)
    at_out = top["out_of_play"][0]
    at_drawn = top["drawn_tile"][0]
    at_bonus, bonus_field = top["bonus_pending"]
    bonus_scale = _scale(bonus_field)
    at_trucks, trucks_field = top["trucks"]
    truck_width, truck = _item(trucks_field)
    at_capacity, capacity_field = truck["capacity"]
    capacity_scale = _scale(capacity_field)
    at_truck_tiles, at_taken_by = truck["tiles"][0], truck["taken_by"][0]
    at_players, players_field = top["players"]
    player_width, player = _item(players_field)
    at_active = player["active"][0]
    at_truck, truck_field = player["truck"]
    truck_at = [_index(truck_field)[t] for t in zm_data.TRUCK_IDS]
    at_enclosures, enclosures_field = player["enclosures"]
    enclosure_width, enclosure = _item(enclosures_field)
    at_species, at_tiles, at_paired = (enclosure[k][0] for k in ("species", "tiles", "paired"))
    at_barn = player["barn"][0]
    at_scores, scores_field = top["scores"]
    score_scale = _scale(_item(scores_field)[1][""][1])
    n = num_players

    parts = _Parts(layout.size)
    rotation = _Rotation(layout, n)

    def encode(state: State, observer: int) -> Vector:
        s = cast(ZoolorettoMiniState, state)
        seat = 0  # written for seat 0, then rotated (_Rotation)
        current = s.current_player
        counters = (
            current,
            s.phase,
            s.round,
            s.round_start_player,
            s.last_round,
            s.bag_count,
            s.end_count,
            s.drawn_tile,
            s.bonus_pending,
        )
        lists = (s.removed_species, s.offspring_supply, s.out_of_play)
        trucks = (s.capacities, s.trucks, s.taken_by)
        enclosures, species, barns, paired = s.enclosures, s.enclosure_species, s.barns, s.paired
        keys: list[object] = [counters, lists, trucks]
        for q in range(n):
            keys.append(
                (
                    s.taken_truck[q],
                    species[3 * q : 3 * q + 3],
                    enclosures[3 * q : 3 * q + 3],
                    barns[q],
                    paired,
                )
            )

        def write(part: int) -> Written:
            ones: list[int] = []
            spots: list[int] = []
            values: list[float] = []
            snapshot: object
            if part == 0:
                snapshot = counters
                if current >= 0:
                    ones.append(at_current + (current - seat) % n)
                ones.append(at_phase + phase_at[s.phase])
                if s.round:
                    spots.append(at_round)
                    values.append(s.round / round_scale)
                if s.round_start_player >= 0:
                    ones.append(at_round_start + (s.round_start_player - seat) % n)
                if s.last_round:
                    ones.append(at_last)
                if s.bag_count:
                    spots.append(at_bag)
                    values.append(s.bag_count / bag_scale)
                if s.end_count:
                    spots.append(at_end)
                    values.append(s.end_count / end_scale)
                if s.drawn_tile:
                    ones.append(at_drawn + tile_at[s.drawn_tile])
                if s.bonus_pending:
                    spots.append(at_bonus)
                    values.append(s.bonus_pending / bonus_scale)
            elif part == 1:
                snapshot = (lists[0][:], lists[1][:], lists[2][:])
                ones.extend(at_removed + species_at[x] for x in s.removed_species)
                ones.extend(at_supply + tile_at[t] for t in s.offspring_supply)
                ones.extend(at_out + tile_at[t] for t in s.out_of_play)
            elif part == 2:
                snapshot = (s.capacities, [t[:] for t in s.trucks], s.taken_by[:])
                taken_by = s.taken_by
                for k, capacity in enumerate(s.capacities):
                    base = at_trucks + k * truck_width
                    if capacity:
                        spots.append(base + at_capacity)
                        values.append(capacity / capacity_scale)
                    ones.extend(base + at_truck_tiles + tile_at[t] for t in s.trucks[k])
                    if taken_by[k] >= 0:
                        ones.append(base + at_taken_by + (taken_by[k] - seat) % n)
            else:
                q = part - 3
                rel = (q - seat) % n
                k = s.taken_truck[q]
                zoo_now = enclosures[3 * q : 3 * q + 3]
                kinds = species[3 * q : 3 * q + 3]
                barn = barns[q]
                snapshot = (k, kinds, [e[:] for e in zoo_now], barn[:], frozenset(paired))
                # (zoos seldom recur in a game: written and scored afresh, not cached)
                base = at_players + rel * player_width
                ones.append(base + (at_active if k < 0 else at_truck + truck_at[k]))
                for e, tiles in enumerate(zoo_now):
                    at = base + at_enclosures + e * enclosure_width
                    if kinds[e]:
                        ones.append(at + at_species + species_at[kinds[e]])
                    for t in tiles:
                        ones.append(at + at_tiles + tile_at[t])
                        if t in paired:
                            ones.append(at + at_paired + tile_at[t])
                ones.extend(base + at_barn + tile_at[t] for t in barn)
                total = zm_data.score_zoo(zoo_now, barn)["total"]
                if total:
                    spots.append(at_scores + rel)
                    values.append(total / score_scale)
            return ones, spots, values, snapshot

        return rotation.rotate(parts.vector(0, keys, write, copy=False), observer)

    return encode


def dziobaki(layout: Layout, num_players: int) -> Direct:
    """The Dziobaki encoder of ``layout`` for ``num_players`` seats. What a seat cannot
    see is the other seats' commitments of this round, which are in ``commitments``
    beside its own: only ``commitments[seat]`` is read. Parts (:class:`_Parts`): the
    round's public facts with the observer's commitment, and each seat's board with
    its score (scored once per board, whoever observes)."""
    top = _offsets(layout)
    at_current = top["current_player"][0]
    at_phase, phase_field = top["phase"]
    reveal_at, place_at, over_at = (_index(phase_field)[k] for k in ("reveal", "place", "over"))
    at_round, round_field = top["round"]
    round_scale = _scale(round_field)
    at_side, side_field = top["board_side"]
    side_at = _index(side_field)
    at_together = top["all_together"][0]
    at_tile, tile_field = top["revealed_tile"]
    tile_at = [_index(tile_field)[t] for t in dz_data.TILE_IDS]
    at_revealed = top["revealed"][0]
    at_stack, stack_field = top["stack_size"]
    stack_scale = _scale(stack_field)
    at_unrevealed = top["unrevealed"][0]
    at_supply = top["supply"][0]
    at_committed = top["committed"][0]
    at_mine, mine_field = top["my_commitment"]
    mine = _inner(mine_field)
    at_mine_space, mine_space_field = mine["space"]
    mine_space_at = _index(mine_space_field)
    at_mine_rotation, mine_rotation_field = mine["rotation"]
    mine_rotation_at = _index(mine_rotation_field)
    at_boards, boards_field = top["boards"]
    board_width, board = _item(boards_field)
    at_spaces, spaces_field = board["spaces"]
    space_width, space = _item(spaces_field)
    at_space_tile, at_space_rotation = space["tile"][0], space["rotation"][0]
    rotation_at = _index(space["rotation"][1])
    at_scores, scores_field = top["scores"]
    score_scale = _scale(_item(scores_field)[1][""][1])
    n = num_players
    num_tiles = dz_data.NUM_TILES
    parts = _Parts(layout.size)
    boards = _Blocks()

    def board_block(key: tuple[Hashable, ...]) -> _Block:
        codes, side, together = cast(tuple[tuple[int, ...], str, bool], key)
        ones: list[int] = []
        for i, code in enumerate(codes):
            if code >= 0:
                at = at_spaces + i * space_width
                ones.append(at + at_space_tile + tile_at[code >> 2])
                ones.append(at + at_space_rotation + rotation_at[code & 3])
        return tuple(ones), dz_scoring.score_board(codes, side, together)["total"]

    def encode(state: State, seat: int) -> Vector:
        s = cast(DziobakiState, state)
        cp = s.current
        side = s.options["board_side"]
        together = bool(s.options["all_together"])
        own = s.commitments[seat]
        revealed = s.revealed
        keys: list[object] = [(cp, s.round, side, together, s.remaining, own, revealed)]
        keys.extend((codes, side, together) for codes in s.boards)

        def write(part: int) -> Written:
            ones: list[int] = []
            spots: list[int] = []
            values: list[float] = []
            snapshot: object
            if part == 0:
                snapshot = (cp, s.round, side, together, s.remaining, own, revealed[:])
                if cp >= 0:
                    ones.append(at_current + (cp - seat) % n)
                    ones.append(at_phase + place_at)
                    ones.extend(at_committed + (j - seat) % n for j in range(cp))
                else:
                    ones.append(at_phase + (over_at if cp == TERMINAL else reveal_at))
                if s.round:
                    spots.append(at_round)
                    values.append(s.round / round_scale)
                ones.append(at_side + side_at[side])
                if together:
                    ones.append(at_together)
                awaiting = revealed[-1] if cp >= 0 else -1
                if awaiting >= 0:
                    ones.append(at_tile + tile_at[awaiting])
                ones.extend(at_revealed + tile_at[t] for t in revealed)
                if num_tiles - len(revealed):
                    spots.append(at_stack)
                    values.append((num_tiles - len(revealed)) / stack_scale)
                remaining = s.remaining
                for t in range(num_tiles):
                    if remaining >> t & 1:
                        ones.append(at_unrevealed + tile_at[t])
                        ones.append(at_supply + tile_at[t])
                    elif t == awaiting:
                        ones.append(at_supply + tile_at[t])
                if own >= 0:
                    ones.append(at_mine + at_mine_space + mine_space_at[own >> 2])
                    ones.append(at_mine + at_mine_rotation + mine_rotation_at[own & 3])
            else:
                q = part - 1
                rel = (q - seat) % n
                codes = s.boards[q]
                snapshot = (codes[:], side, together)
                key = (tuple(codes), side, together)
                block = boards.get(key)
                if block is None:
                    block = boards.put(key, board_block(key))
                base = at_boards + rel * board_width
                block_ones, total = block
                ones.extend(map(base.__add__, block_ones))
                if total:
                    spots.append(at_scores + rel)
                    values.append(total / score_scale)
            return ones, spots, values, snapshot

        return parts.vector(seat, keys, write)

    return encode


def carson_city_zoo(layout: Layout, num_players: int) -> Direct:
    """The Carson City Zoo encoder of ``layout`` for ``num_players`` seats. What a seat
    cannot see is the order of the undealt cards, never read here; a space's cards show
    only their count and the top card's value (none while dealing), as in the
    observation. Parts (:class:`_Parts`): the phase and counters, the board, the mutant
    marks, and each seat's characters and piles with its score."""
    top = _offsets(layout)
    at_phase, phase_field = top["phase"]
    phase_at = [_index(phase_field)[name] for name in ccz_data.PHASE_NAMES]
    at_current = top["current_player"][0]
    at_start = top["start_player"][0]
    at_dealt, dealt_field = top["cards_dealt"]
    dealt_scale = _scale(dealt_field)
    at_spaces, spaces_field = top["spaces"]
    space_width, space = _item(spaces_field)
    at_cards, cards_field = space["cards"]
    cards_scale = _scale(cards_field)
    at_value, value_field = space["top_value"]
    value_scale = _scale(value_field)
    at_occupant, occupant_field = space["occupant"]
    char_at = _index(occupant_field)
    at_mutated = space["mutated"][0]
    at_players, players_field = top["players"]
    player_width, player = _item(players_field)
    at_team, team_field = player["team"]
    team_at = _index(team_field)
    at_hand, at_on_board = player["hand"][0], player["on_board"][0]
    at_zoo_pile, zoo_pile_field = player["zoo_pile"]
    card_at = [_index(zoo_pile_field)[c] for c in ccz_data.CARD_IDS]
    at_char_pile = player["character_pile"][0]
    points = [player[k] for k in ("zoo_cards", "captured_characters", "surviving_characters")]
    points_at = [(at, _scale(f)) for at, f in points]
    at_found = top["mutant_found"][0]
    at_scores, scores_field = top["scores"]
    score_scale = _scale(_item(scores_field)[1][""][1])
    n = num_players
    deal, play = ccz_data.PHASE_NAMES.index("deal"), ccz_data.PHASE_NAMES.index("play")
    in_hand, values, mutant = ccz_data.IN_HAND, ccz_data.CARD_VALUE, ccz_data.CARD_MUTANT
    num_spaces, row = ccz_data.NUM_SPACES, ccz_data.SIZE
    rows = 2 + num_spaces // row
    """The parts before the seats': the counters, the mutant marks and the board's rows."""
    parts = _Parts(layout.size)
    rotation = _Rotation(layout, n)

    def encode(state: State, observer: int) -> Vector:
        s = cast(CarsonCityZooState, state)
        seat = 0  # written for seat 0, then rotated (_Rotation)
        phase = s.phase
        names = s.roster.names
        counters = (phase, s.current_player, s.start_player, len(s.dealt))
        dealing, teams, bottom, top_card, occupant = (
            phase == deal,
            s.teams,
            s.bottom,
            s.top,
            s.occupant,
        )
        spaces, piles, mutated = s.character_space, s.character_piles, s.mutated
        keys: list[object] = [counters, s.zoo_piles]
        for a in range(0, num_spaces, row):  # a move changes one or two rows
            b = a + row
            keys.append((dealing, teams, bottom[a:b], top_card[a:b], occupant[a:b], mutated))
        for q in range(n):
            keys.append(
                (
                    teams,
                    [x if x < 0 else 0 for x in spaces[4 * q : 4 * q + 4]],  # hand, board, captured
                    mutated[4 * q : 4 * q + 4],
                    s.zoo_piles[q],
                    piles[q],
                    s.zoo_points[q],
                    s.character_points[q],
                )
            )

        def write(part: int) -> Written:
            ones: list[int] = []
            spots: list[int] = []
            numbers: list[float] = []
            snapshot: object
            if part == 0:
                snapshot = counters
                ones.append(at_phase + phase_at[phase])
                current = s.current_player
                if current >= 0:
                    ones.append(at_current + (current - seat) % n)
                if phase >= play and s.start_player >= 0:
                    ones.append(at_start + (s.start_player - seat) % n)
                if s.dealt:
                    spots.append(at_dealt)
                    numbers.append(len(s.dealt) / dealt_scale)
            elif part == 1:
                snapshot = [p[:] for p in s.zoo_piles]
                found = {values[card] for pile in s.zoo_piles for card in pile if mutant[card]}
                ones.extend(at_found + v for v in found)
            elif part < rows:
                a = (part - 2) * row
                key = cast(tuple[Any, ...], keys[part])
                snapshot = (*key[:5], mutated[:])
                for i in range(a, a + row):
                    at = at_spaces + i * space_width
                    cards = (bottom[i] >= 0) + (top_card[i] >= 0)
                    if cards:
                        spots.append(at + at_cards)
                        numbers.append(cards / cards_scale)
                    value = -1
                    if not dealing:
                        card = top_card[i] if top_card[i] >= 0 else bottom[i]
                        value = values[card] if card >= 0 else -1
                    if value:
                        spots.append(at + at_value)
                        numbers.append(value / value_scale)
                    o = occupant[i]
                    if o >= 0:
                        ones.append(at + at_occupant + char_at[names[o]])
                        if mutated[o]:
                            ones.append(at + at_mutated)
            else:
                q = part - rows
                key = cast(tuple[Any, ...], keys[part])
                snapshot = (
                    s.teams,
                    key[1],
                    key[2],
                    s.zoo_piles[q][:],
                    piles[q][:],
                    s.zoo_points[q],
                    s.character_points[q],
                )
                rel = (q - seat) % n
                base = at_players + rel * player_width
                ones.append(base + at_team + team_at[s.teams[q]])
                for c in range(4 * q, 4 * q + 4):
                    if spaces[c] == in_hand:
                        ones.append(base + at_hand + char_at[names[c]])
                    elif spaces[c] >= 0:
                        ones.append(base + at_on_board + char_at[names[c]])
                ones.extend(base + at_zoo_pile + card_at[z] for z in s.zoo_piles[q])
                ones.extend(base + at_char_pile + char_at[names[c]] for c in piles[q])
                breakdown = s.breakdown(q)
                for (at, scale), category in zip(points_at, _CCZ_POINTS, strict=True):
                    if breakdown[category]:
                        spots.append(base + at)
                        numbers.append(breakdown[category] / scale)
                if breakdown["total"]:
                    spots.append(at_scores + rel)
                    numbers.append(breakdown["total"] / score_scale)
            return ones, spots, numbers, snapshot

        return rotation.rotate(parts.vector(0, keys, write, copy=False), observer)

    return encode


_CCZ_POINTS = ("zoo_cards", "captured_characters", "surviving_characters")
"""Carson City Zoo's score categories, in the layout's order."""


def _counted(
    at: int, base: list[int], cards: list[int], spots: list[int], values: list[float]
) -> None:
    """Cards as counts of their base cards (:class:`envs.manatee.Cards`) from ``at``:
    both editions of a card count at one position, so positions repeat and are summed."""
    counts: dict[int, int] = {}
    for c in cards:
        b = base[c]
        counts[b] = counts.get(b, 0) + 1
    for b, count in counts.items():
        spots.append(at + b)
        values.append(float(count))


def manatee_sanctuary(layout: Layout, num_players: int) -> Direct:
    """The Manatee Sanctuary encoder of ``layout`` for ``num_players`` seats. What a seat
    cannot see is the deck's cards, other seats' dealt cards, splits, stacks and the
    cards of other hands it has not seen: only their counts are read, and of another
    hand only the cards whose origin the seat saw (:func:`known_cards`, the engine's own
    rule). Like Zooloretto Mini's, the public parts (:class:`_Parts`: the counters, each
    seat's entry with its score, each seat's placed cards) are written once for seat 0
    and rotated to the observer (:class:`_Rotation`); what only the observer sees (its
    own cards, and of each hand the cards whose origin it saw) is then written into its
    copy, afresh at every call."""
    top = _offsets(layout)
    number_at = {}
    for key in ("round", "deck_size", "solo_token", "power_cap_used", "challenge_lost"):
        at, f = top[key]
        number_at[key] = (at, _scale(f))
    at_phase, phase_field = top["phase"]
    phase_at = [_index(phase_field)[name] for name in ms_steps.PHASE_OF_STEP]
    at_step, step_field = top["step"]
    step_at = [_index(step_field)[name] for name in ms_steps.STEP_NAMES]
    at_direction, direction_field = top["direction"]
    left_at, right_at = _index(direction_field)["left"], _index(direction_field)["right"]
    at_current, at_turn, at_deal_seat = (top[k][0] for k in ("current_player", "turn", "deal_seat"))
    at_mode, mode_field = top["mode"]
    mode_at = _index(mode_field)
    at_bag, bag_field = top["bag"]
    bag_at = [(at_bag + at, _scale(f)) for at, f in _inner(bag_field).values()]
    at_bonuses, bonuses_field = top["round_bonuses"]
    bonus_width, bonus = _item(bonuses_field)
    at_bonus_round, bonus_round_field = bonus["round"]
    bonus_round_scale = _scale(bonus_round_field)
    at_bonus_card, bonus_card_field = bonus["card"]
    bonus_at = [_index(bonus_card_field)[b] for b in ms_data.BONUS_IDS]
    at_challenge, challenge_field = top["solo_challenge"]
    challenge_at = _index(challenge_field)
    at_offer, at_discards = top["solo_offer"][0], top["solo_discards"][0]
    at_resolving, resolving_field = top["resolving"]
    resolving = _inner(resolving_field)
    at_res_seat = at_resolving + resolving["seat"][0]
    at_res_card = at_resolving + resolving["card"][0]
    res_numbers = [
        (at_resolving + resolving[k][0], _scale(resolving[k][1]))
        for k in ("draws_left", "new_grey", "new_pink", "new_yellow", "harvest_icons")
    ]
    at_return_kind, return_kind_field = top["return_kind"]
    return_kind_at = {
        ms_steps.RETURN_SPACE: _index(return_kind_field)["space"],
        ms_steps.RETURN_FOOD: _index(return_kind_field)["food"],
    }
    at_deficit, deficit_field = top["return_deficit"]
    deficit_scale = _scale(deficit_field)
    at_players, players_field = top["players"]
    player_width, player = _item(players_field)
    player_numbers = {k: (at, _scale(f)) for k, (at, f) in player.items() if isinstance(f, Number)}
    at_kept, kept_field = player["kept"]
    kept_at = [_index(kept_field)[k] for k in ("small", "large")]
    at_pile, at_known = player["action_pile"][0], player["known_cards"][0]
    at_sanctuary, sanctuary_field = player["sanctuary"]
    placed_width = _item(sanctuary_field)[0]
    at_scores, scores_field = top["scores"]
    score_scale = _scale(_item(scores_field)[1][""][1])
    at_hand, at_dealt, at_split, at_small, at_large = (
        top[k][0] for k in ("hand", "dealt", "my_split", "received_small", "received_large")
    )
    at_keep, keep_field = top["my_keep"]
    keep_at = [_index(keep_field)[k] for k in ("small", "large")]
    base = ms_data.BASE
    edges, habitat, endgame = ms_data.EDGES, ms_data.HABITAT, ms_data.ENDGAME
    endgame_at = {kind: i for i, kind in enumerate(ms_data.ENDGAME_KINDS)}
    n = num_players
    drafting, committing = (ms_steps.DEAL, ms_steps.SPLIT), (ms_steps.SPLIT, ms_steps.KEEP)
    parts = _Parts(layout.size)
    rotation = _Rotation(layout, n)

    def placed(
        at: int,
        c: int,
        x: int,
        y: int,
        r: int,
        ones: list[int],
        spots: list[int],
        values: list[float],
    ) -> None:
        """One placed card as :class:`envs.manatee.Placed` writes it."""
        k = r // 90
        spots += [at, at + 1]
        values += [x / MAX_PLACED, y / MAX_PLACED]
        ones.append(at + 2 + k)
        sides = ms_data.rotated_edges(edges[c], k)
        ones.extend(at + 6 + 4 * d + sides[d] for d in range(4))
        if endgame[c]:
            ones.append(at + 23 + endgame_at[endgame[c]])
        if habitat[c]:
            spots.append(at + 22)
            values.append(habitat[c] / 5)

    def encode(state: State, observer: int) -> Vector:
        s = cast(ManateeSanctuaryState, state)
        seat = 0  # the public parts are written for seat 0, then rotated (_Rotation)
        step = s.step
        draft, commit = step in drafting, step in committing
        keys: list[object] = [_ALWAYS]
        for j, p in enumerate(s.players):
            keys.append(
                (
                    p.food,
                    p.flowers,
                    p.housed,
                    p.capacity,
                    len(p.hand),
                    len(s.dealt[j]) if draft else 0,
                    commit and j < s.current,
                    s.split_size[j],
                    s.kept[j],
                    p.pile,
                    p.points,
                )
            )
        for p in s.players:  # placed cards only change when one is placed: parts of their own
            keys.append(p.sanctuary.placements)

        def write(part: int) -> Written:
            ones: list[int] = []
            spots: list[int] = []
            values: list[float] = []
            snapshot: object
            if part == 0:
                snapshot = _NEVER
                for field, number in (
                    ("round", s.round),
                    ("deck_size", len(s.deck)),
                    ("solo_token", s.solo_token),
                    ("power_cap_used", s.power_cap_used),
                    ("challenge_lost", s.saver_lost),
                ):
                    if number:
                        at, scale = number_at[field]
                        spots.append(at)
                        values.append(number / scale)
                ones.append(at_phase + phase_at[step])
                ones.append(at_step + step_at[step])
                ones.append(at_direction + (right_at if s.round == 2 else left_at))
                for at, value in ((at_current, s.current), (at_turn, s.turn)):
                    if value >= 0:
                        ones.append(at + (value - seat) % n)
                if step == ms_steps.DEAL and s.deal_seat >= 0:
                    ones.append(at_deal_seat + (s.deal_seat - seat) % n)
                mode = "solo" if s.solo else ("scramble" if s.scramble else "standard")
                ones.append(at_mode + mode_at[mode])
                for (at, scale), value in zip(bag_at, s.bag, strict=True):
                    if value:
                        spots.append(at)
                        values.append(value / scale)
                i = 0
                for r, b in enumerate(s.round_bonus):
                    if b >= 0:
                        at = at_bonuses + i * bonus_width
                        spots.append(at + at_bonus_round)
                        values.append((r + 1) / bonus_round_scale)
                        ones.append(at + at_bonus_card + bonus_at[b])
                        i += 1
                if s.challenge in challenge_at:
                    ones.append(at_challenge + challenge_at[s.challenge])
                _counted(at_offer, base, s.solo_offer, spots, values)
                _counted(at_discards, base, s.solo_discards, spots, values)
                res = s.resolving
                if res is not None:
                    if res.seat >= 0:
                        ones.append(at_res_seat + (res.seat - seat) % n)
                    ones.append(at_res_card + base[res.card])
                    for (at, scale), value in zip(
                        res_numbers, (res.draws_left, *res.new, res.harvest_icons), strict=True
                    ):
                        if value:
                            spots.append(at)
                            values.append(value / scale)
                if step in return_kind_at:
                    ones.append(at_return_kind + return_kind_at[step])
                    if s.return_deficit:
                        spots.append(at_deficit)
                        values.append(s.return_deficit / deficit_scale)
                return ones, spots, values, snapshot
            j = part - 1 - len(s.players)
            if j >= 0:  # a seat's placed cards
                placements = s.players[j].sanctuary.placements
                at = at_players + ((j - seat) % n) * player_width + at_sanctuary
                for i, (c, x, y, r) in enumerate(placements):
                    placed(at + i * placed_width, c, x, y, r, ones, spots, values)
                return ones, spots, values, placements[:]
            j = part - 1
            key = cast(tuple[Any, ...], keys[part])
            p = s.players[j]
            snapshot = (*key[:1], p.flowers[:], p.housed[:], *key[3:9], p.pile[:], p.points[:])
            rel = (j - seat) % n
            at = at_players + rel * player_width
            fl, h = p.flowers, p.housed
            for name, value in (
                ("food", p.food),
                ("flowers", fl[0] + fl[1] + fl[2]),
                ("flowers_red", fl[0]),
                ("flowers_green", fl[1]),
                ("flowers_purple", fl[2]),
                ("housed_grey", h[0]),
                ("housed_pink", h[1]),
                ("housed_yellow", h[2]),
                ("capacity", p.capacity),
                ("usage", p.usage()),
                ("hand_size", len(p.hand)),
                ("dealt_count", key[5]),
                ("committed", key[6]),
                ("split_size", s.split_size[j]),
            ):
                if value:
                    offset, scale = player_numbers[name]
                    spots.append(at + offset)
                    values.append(value / scale)
            if s.kept[j] >= 0:
                ones.append(at + at_kept + kept_at[s.kept[j]])
            _counted(at + at_pile, base, p.pile, spots, values)
            total = sum(p.points)
            if total:
                spots.append(at_scores + rel)
                values.append(total / score_scale)
            return ones, spots, values, snapshot

        vec = rotation.rotate(parts.vector(0, keys, write, copy=False), observer)
        # what only the observer sees, written into its copy (never kept: it is the
        # observer's): its own cards, and of each hand the cards it saw the origin of
        spots: list[int] = []
        values: list[float] = []
        ones: list[int] = []
        known = (observer, s.passer(observer))
        for j, p in enumerate(s.players):
            cards = p.hand if j == observer else [c for c in p.hand if p.origin[c] in known]
            at = at_players + ((j - observer) % n) * player_width + at_known
            _counted(at, base, cards, spots, values)
        _counted(at_hand, base, s.players[observer].hand, spots, values)
        if step in drafting:
            _counted(at_dealt, base, s.dealt[observer], spots, values)
            split = s.splits[observer] if step == ms_steps.SPLIT else None
            if split is not None:
                _counted(at_split, base, split, spots, values)
        elif step == ms_steps.KEEP:
            small, large = s.stacks[observer]
            _counted(at_dealt, base, small + large, spots, values)
            _counted(at_split, base, small, spots, values)
            giver = s.stacks[s.passer(observer)]
            _counted(at_small, base, giver[0], spots, values)
            _counted(at_large, base, giver[1], spots, values)
            if s.keep_choices[observer] >= 0:
                ones.append(at_keep + keep_at[s.keep_choices[observer]])
        _write(vec, vec.data, [], ones, spots, values)
        return vec

    return encode


_ALWAYS = object()
"""The key of a part written at every step (its snapshot, :data:`_NEVER`, never equals it)."""


ENCODERS: dict[str, Callable[[Layout, int], Direct]] = {
    "panorama": panorama,
    "zooloretto_mini": zooloretto_mini,
    "dziobaki": dziobaki,
    "carson_city_zoo": carson_city_zoo,
    "manatee_sanctuary": manatee_sanctuary,
}
"""The games with an encoder from the state's fields, by id."""
