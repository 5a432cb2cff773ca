"""Panorama rules: the state, setup chance nodes, balloon flights, placement, the end
phase, and the observation."""

from __future__ import annotations

import random
from typing import Annotated, cast

from engine.core import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Game,
    Result,
    State,
    competition_ranks,
)
from engine.fields import Digest
from engine.panorama.actions import (
    DROP,
    FLY,
    GOAL_DRAW,
    PLACES,
    REVEAL,
    BalloonDrop,
    Fly,
    GoalDraw,
    Place,
    Reveal,
)
from engine.panorama.data import (
    COLOURS,
    DROP_NODE,
    FLY_PHASE,
    GOAL,
    GOAL_COLOURS,
    GOAL_SETS,
    GOALS_BY_COLOUR,
    NUM_TILES,
    OVER,
    PHASE_NAMES,
    PLACE_PHASE,
    REVEAL_NODE,
    STACK_SIZE,
    START_TILE,
    TILE_IDS,
    TILE_INDEX,
)
from engine.panorama.render import render
from engine.panorama.scoring import breakdowns

_NO_GOAL = ""


def _tile_name(tile: int) -> str:
    """A tile's id, "" for none (-1)."""
    return TILE_IDS[tile] if tile >= 0 else ""


def _tile_names(tiles: list[int]) -> list[str]:
    return [TILE_IDS[t] if t >= 0 else "" for t in tiles]


def _panorama_names(panoramas: list[list[int]]) -> list[list[str]]:
    return [[TILE_IDS[t] for t in p] for p in panoramas]


def _revealed_names(unrevealed: list[int]) -> list[str]:
    """The ids of the tiles revealed so far, ascending (the complement of ``unrevealed``)."""
    unseen = set(unrevealed)
    return [TILE_IDS[t] for t in range(NUM_TILES) if t not in unseen]


def order_goals(goals: list[str]) -> list[str]:
    """Goal ids as (sky, river, terrain), whatever order the option listed them in (P1)."""
    return [next(g for g in goals if g[0] == prefix) for prefix in "SRT"]


class PanoramaState(State):
    """A Panorama position: plain lists and ints (tiles as indices into TILE_IDS, -1 for
    none); see the package docstring for the rules. The digest keeps the version-1 keys and
    tile ids (``Digest(key=..., encode=...)``)."""

    phase: Annotated[int, Digest(encode=PHASE_NAMES.__getitem__)]
    """The step due next: an index into PHASE_NAMES (GOAL ... OVER)."""
    pending_space: Annotated[int, Digest(key="pending")]
    """The space of the pending (or last) reveal, or the index of the next goal draw or
    balloon drop during setup."""
    current: Annotated[int, Digest(key="current_player")]
    """The seat to move, CHANCE or TERMINAL."""
    goals: list[str]
    """The goal tokens in play as (sky, river, terrain); "" while undrawn."""
    stack_counts: Annotated[list[int], Digest(key="count")]
    """Per space, the tiles left in its stack."""
    tops: Annotated[list[int], Digest(key="top", encode=_tile_names)]
    """Per space, the visible top tile, -1 while none (empty, or a reveal is pending)."""
    unrevealed: Annotated[list[int], Digest(key="revealed", encode=_revealed_names)]
    """The panorama tiles not revealed yet, ascending: the outcomes of the next reveal
    (the digest, and so the full state, list the revealed tile ids instead)."""
    occupants: Annotated[list[int], Digest(key="occupant")]
    """Per space, the seat whose balloon (standing or deflated) is on it, or -1."""
    balloon_space: Annotated[list[int], Digest(key="balloon")]
    """Per seat, the space of its balloon, -1 before the drop."""
    standing: list[bool]
    """Per seat, whether its balloon still stands (it has turns left)."""
    panoramas: Annotated[list[list[int]], Digest(encode=_panorama_names)]
    """Per seat, its panorama's tiles, left to right (its start tile included)."""
    start_index: list[int]
    """Per seat, the position of its start tile in its panorama."""
    token_space: Annotated[int, Digest(key="token")]
    """The space of the sun/moon token."""
    moon: bool
    """True once the token shows the moon (the final turns)."""
    active_player: Annotated[int, Digest(key="active")]
    """The seat whose turn it is, -1 in setup and at the end."""
    held_tile: Annotated[int, Digest(key="held", encode=_tile_name)]
    """The tile the active seat took and has not placed yet, -1 for none."""
    num_spaces: Annotated[int, Digest(skip=True)]
    """Spaces of the central tile: 2p + 1 (derived from the player count)."""
    final_result: Annotated[Result | None, Digest(skip=True)]
    """The result, cached once the game is over."""

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        p = num_players
        n = 2 * p + 1
        self.num_spaces = n
        goals = options.get("goals")
        if goals is not None:
            self.goals = order_goals([str(g) for g in goals])
        elif options["goal_set"] == "random":
            self.goals = [_NO_GOAL] * 3
        else:
            self.goals = list(GOAL_SETS[str(options["goal_set"])])
        self.stack_counts = [STACK_SIZE] * n
        self.tops = [-1] * n
        self.unrevealed = list(range(NUM_TILES))
        self.occupants = [-1] * n
        self.balloon_space = [-1] * p
        self.standing = [False] * p
        self.panoramas = [[START_TILE[q]] for q in range(p)]
        self.start_index = [0] * p
        self.token_space = 0
        self.moon = False
        self.active_player = -1
        self.held_tile = -1
        self.final_result = None
        self.current = CHANCE
        self.phase = GOAL if self.goals[0] == _NO_GOAL else REVEAL_NODE
        self.pending_space = 0

    # -- contract ------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.current

    def _legal_actions(self) -> list[Action]:
        if self.phase == FLY_PHASE:
            occupants = self.occupants
            counts = self.stack_counts
            return [FLY[s] for s in range(self.num_spaces) if occupants[s] < 0 and counts[s] > 0]
        return list(PLACES)

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self.phase
        if phase == REVEAL_NODE:
            row = REVEAL[self.pending_space]
            unrevealed = self.unrevealed
            pr = 1.0 / len(unrevealed)
            return [(row[t], pr) for t in unrevealed]
        if phase == DROP_NODE:
            drops = DROP[self.pending_space]
            seats = [q for q in range(self.num_players) if self.balloon_space[q] < 0]
            return [(drops[q], 1.0 / len(seats)) for q in seats]
        if phase == GOAL:
            return [(GOAL_DRAW[g], 0.25) for g in GOALS_BY_COLOUR[self.pending_space]]
        return []

    def is_legal(self, action: Action) -> bool:
        # Same answer as the base class; a reveal is looked up among the unrevealed tiles
        # instead of building every outcome and comparing it with each (the search bots
        # apply one after most flights).
        if self.phase == REVEAL_NODE:
            return (
                type(action) is Reveal
                and action.space == self.pending_space
                and isinstance(action.tile, str)
                and TILE_INDEX.get(action.tile, -1) in self.unrevealed
            )
        return State.is_legal(self, action)

    def _apply(self, action: Action) -> None:
        match action:
            case Fly(space=s):
                seat = self.active_player
                self.occupants[self.balloon_space[seat]] = -1
                self.occupants[s] = seat
                self.balloon_space[seat] = s
                self.held_tile = self.tops[s]
                self.tops[s] = -1
                self.stack_counts[s] -= 1
                if self.stack_counts[s] > 0:
                    self.phase, self.pending_space, self.current = REVEAL_NODE, s, CHANCE
                else:
                    self.phase = PLACE_PHASE
            case Place(end=end):
                self._place(end == "left")
            case Reveal(tile=tile):
                s = self.pending_space
                t = TILE_INDEX[tile]
                self.tops[s] = t
                self.unrevealed.remove(t)
                if self.active_player >= 0:
                    self.phase, self.current = PLACE_PHASE, self.active_player
                elif s + 1 < self.num_spaces:
                    self.pending_space = s + 1
                else:
                    self.phase, self.pending_space = DROP_NODE, 0
            case BalloonDrop(seat=q):
                i = self.pending_space
                self.occupants[i] = q
                self.balloon_space[q] = i
                self.standing[q] = True
                if i + 1 < self.num_players:
                    self.pending_space = i + 1
                else:
                    self.active_player = self.occupants[0]
                    self.phase, self.current = FLY_PHASE, self.active_player
            case GoalDraw(goal=goal):
                self.goals[self.pending_space] = goal
                if self.pending_space < 2:
                    self.pending_space += 1
                else:
                    self.phase, self.pending_space = REVEAL_NODE, 0

    def _place(self, left: bool) -> None:
        seat = self.active_player
        if left:
            self.panoramas[seat].insert(0, self.held_tile)
            self.start_index[seat] += 1
        else:
            self.panoramas[seat].append(self.held_tile)
        self.held_tile = -1
        standing = self.standing
        if self.moon:
            standing[seat] = False
        elif self.stack_counts[self.balloon_space[seat]] == 0:
            standing[seat] = False
            self.moon = True
        if not any(standing):
            self.phase, self.current, self.active_player = OVER, TERMINAL, -1
            return
        n = self.num_spaces
        occupants = self.occupants
        t = self.token_space
        while True:
            t += 1
            if t == n:
                t = 0
            q = occupants[t]
            if q >= 0 and standing[q]:
                break
        self.token_space = t
        self.active_player = q
        self.phase, self.current = FLY_PHASE, q

    # -- scores and views ------------------------------------------------------

    def breakdowns(self) -> list[dict[str, int]]:
        """Every player's score breakdown as if the game ended now (final when over)."""
        return breakdowns([tuple(p) for p in self.panoramas], self.start_index, self.goals)

    def _scores(self) -> list[float]:
        return [b["total"] for b in self.breakdowns()]

    def _result(self) -> Result:
        if self.final_result is None:
            bd = self.breakdowns()
            scores: list[float] = [b["total"] for b in bd]
            self.final_result = Result(
                scores=scores,
                breakdown=cast(list[dict[str, float]], bd),
                ranks=competition_ranks(scores),
            )
        return self.final_result

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        """The same for every seat and the spectator but ``you``: the state is public."""
        bd = self.breakdowns()
        players: list[JSON] = []
        for q in range(self.num_players):
            if self.balloon_space[q] < 0:
                balloon = "none"
            else:
                balloon = "standing" if self.standing[q] else "deflated"
            players.append(
                {
                    "seat": q,
                    "colour": COLOURS[q],
                    "panorama": [TILE_IDS[t] for t in self.panoramas[q]],
                    "start_index": self.start_index[q],
                    "balloon_space": self.balloon_space[q],
                    "balloon": balloon,
                    "points": dict(bd[q]),
                }
            )
        spaces: list[JSON] = [
            {
                "space": s,
                "count": self.stack_counts[s],
                "top": _tile_name(self.tops[s]),
                "balloon_seat": self.occupants[s],
            }
            for s in range(self.num_spaces)
        ]
        phase = self.phase
        return {
            "you": seat,
            "current_player": self.current,
            "phase": PHASE_NAMES[phase],
            "pending_space": self.pending_space if phase == REVEAL_NODE else -1,
            "goals": list(self.goals),
            "num_spaces": self.num_spaces,
            "token_space": self.token_space,
            "token_face": "moon" if self.moon else "sun",
            "active_player": self.active_player,
            "held_tile": _tile_name(self.held_tile),
            "unrevealed_tiles": len(self.unrevealed),
            "spaces": spaces,
            "players": players,
            "scores": [b["total"] for b in bd],
        }

    def _resample(self, seat: int, rng: random.Random) -> State:
        # The state holds no hidden part: tiles below a top are drawn by `reveal` only when
        # they become tops, and every revealed tile stays public. Nothing to re-draw.
        return self.clone()

    def render(self, seat: int | None = None) -> str:
        ranks = self._result().ranks if self.phase == OVER else None
        return render(self._observation(seat), ranks)

    def _illegal_reason(self, action: Action) -> str:
        phase = self.phase
        active = self.active_player
        who = f"{COLOURS[active]} (seat {active})" if active >= 0 else ""
        match action:
            case Fly(space=s) if phase == FLY_PHASE:
                legal = ", ".join(str(a.space) for a in self.legal_actions() if isinstance(a, Fly))
                last = self.num_spaces - 1
                if not 0 <= s <= last:
                    why = f"there is no space {s}; the central tile has spaces 0..{last}"
                elif self.occupants[s] == active:
                    why = f"space {s} is {who}'s own current space"
                elif self.occupants[s] >= 0:
                    q = self.occupants[s]
                    look = "standing" if self.standing[q] else "deflated"
                    why = f"space {s} holds {COLOURS[q]}'s {look} balloon"
                elif self.stack_counts[s] == 0:
                    why = f"the stack on space {s} is empty"
                else:  # pragma: no cover - every other space is legal
                    why = "it is not legal now"
                return f"cannot fly to space {s}: {why}; legal spaces: {legal}"
            case Place() if phase == FLY_PHASE:
                return f"{who} must fly to a space and take its top tile before placing"
            case Fly() if phase == PLACE_PHASE:
                held = TILE_IDS[self.held_tile]
                return f"{who} has already flown this turn and must place {held} (place left/right)"
            case Place(end=end) if phase == PLACE_PHASE:
                return f"place end must be 'left' or 'right', got {end!r}"
            case Reveal(space=space, tile=tile) if phase == REVEAL_NODE:
                due = self.pending_space
                if space != due:
                    return f"a reveal for space {due} is due, not for space {space}"
                if tile not in TILE_INDEX or TILE_INDEX[tile] >= NUM_TILES:
                    return f"{tile!r} is not a panorama tile (T01..T36)"
                return f"tile {tile} has already been revealed"
            case GoalDraw() if phase == GOAL:
                colour = GOAL_COLOURS[self.pending_space]
                goals = ", ".join(GOALS_BY_COLOUR[self.pending_space])
                return f"a {colour} goal is drawn now ({goals})"
        return super()._illegal_reason(action)
