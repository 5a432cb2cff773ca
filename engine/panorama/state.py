"""Panorama game and state: setup chance nodes, balloon flights, placement, the end phase."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import cast

from engine.core import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Game,
    Option,
    Result,
    State,
    check_choice,
    competition_ranks,
)
from engine.panorama.actions import (
    ACTION_CLASSES,
    DROP,
    FLY,
    GOAL_DRAW,
    PLACE_LEFT,
    PLACES,
    REVEAL,
    Fly,
    GoalDraw,
    Place,
    Reveal,
)
from engine.panorama.scoring import breakdowns
from engine.panorama.tiles import (
    COLOURS,
    GOAL_COLOURS,
    GOAL_IDS,
    GOAL_SET_VALUES,
    GOAL_SETS,
    GOALS_BY_COLOUR,
    NUM_TILES,
    START_TILE,
    TILE_IDS,
    TILE_INDEX,
)

# phases
GOAL, REVEAL_NODE, DROP_NODE, FLY_PHASE, PLACE_PHASE, OVER = range(6)
PHASE_NAMES = ("goal_draw", "reveal", "balloon_drop", "fly", "place", "game_over")
_NO_GOAL = ""


class PanoramaState(State):
    """A Panorama position. Plain lists and ints; see the package docstring for the rules."""

    game: PanoramaGame
    _n: int
    _phase: int
    _pending: int
    _cp: int
    _goals: list[str]
    _count: list[int]
    _top: list[int]
    _unrev: list[int]
    _occ: list[int]
    _bal: list[int]
    _standing: list[bool]
    _pan: list[list[int]]
    _si: list[int]
    _token: int
    _moon: bool
    _active: int
    _held: int
    _res: Result | None

    def __init__(self, game: PanoramaGame, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        p = num_players
        n = 2 * p + 1
        self._n = n
        goals = options.get("goals")
        if goals is not None:
            self._goals = _order_goals([str(g) for g in goals])
        elif options["goal_set"] == "random":
            self._goals = [_NO_GOAL] * 3
        else:
            self._goals = list(GOAL_SETS[str(options["goal_set"])])
        self._count = [4] * n
        self._top = [-1] * n
        self._unrev = list(range(NUM_TILES))
        self._occ = [-1] * n
        self._bal = [-1] * p
        self._standing = [False] * p
        self._pan = [[START_TILE[q]] for q in range(p)]
        self._si = [0] * p
        self._token = 0
        self._moon = False
        self._active = -1
        self._held = -1
        self._res = None
        self._cp = CHANCE
        if self._goals[0] == _NO_GOAL:
            self._phase, self._pending = GOAL, 0
        else:
            self._phase, self._pending = REVEAL_NODE, 0

    # -- contract ------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self._cp

    def _legal_actions(self) -> list[Action]:
        if self._phase == FLY_PHASE:
            occ = self._occ
            count = self._count
            return [FLY[s] for s in range(self._n) if occ[s] < 0 and count[s] > 0]
        return list(PLACES)

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self._phase
        if phase == REVEAL_NODE:
            row = REVEAL[self._pending]
            unrev = self._unrev
            pr = 1.0 / len(unrev)
            return [(row[t], pr) for t in unrev]
        if phase == DROP_NODE:
            row2 = DROP[self._pending]
            seats = [q for q in range(self.num_players) if self._bal[q] < 0]
            return [(row2[q], 1.0 / len(seats)) for q in seats]
        if phase == GOAL:
            return [(GOAL_DRAW[g], 0.25) for g in GOALS_BY_COLOUR[self._pending]]
        return []

    def _apply(self, action: Action) -> None:
        phase = self._phase
        if phase == FLY_PHASE:
            s = action.space  # type: ignore[attr-defined]
            seat = self._active
            self._occ[self._bal[seat]] = -1
            self._occ[s] = seat
            self._bal[seat] = s
            self._held = self._top[s]
            self._top[s] = -1
            self._count[s] -= 1
            if self._count[s] > 0:
                self._phase, self._pending, self._cp = REVEAL_NODE, s, CHANCE
            else:
                self._phase = PLACE_PHASE
        elif phase == PLACE_PHASE:
            self._place(action is PLACE_LEFT or action == PLACE_LEFT)
        elif phase == REVEAL_NODE:
            s = self._pending
            t = TILE_INDEX[action.tile]  # type: ignore[attr-defined]
            self._top[s] = t
            self._unrev.remove(t)
            if self._active >= 0:
                self._phase, self._cp = PLACE_PHASE, self._active
            elif s + 1 < self._n:
                self._pending = s + 1
            else:
                self._phase, self._pending = DROP_NODE, 0
        elif phase == DROP_NODE:
            i = self._pending
            q = action.seat  # type: ignore[attr-defined]
            self._occ[i] = q
            self._bal[q] = i
            self._standing[q] = True
            if i + 1 < self.num_players:
                self._pending = i + 1
            else:
                self._active = self._occ[0]
                self._phase, self._cp = FLY_PHASE, self._active
        else:  # GOAL
            self._goals[self._pending] = action.goal  # type: ignore[attr-defined]
            if self._pending < 2:
                self._pending += 1
            else:
                self._phase, self._pending = REVEAL_NODE, 0

    def _place(self, left: bool) -> None:
        seat = self._active
        if left:
            self._pan[seat].insert(0, self._held)
            self._si[seat] += 1
        else:
            self._pan[seat].append(self._held)
        self._held = -1
        standing = self._standing
        if self._moon:
            standing[seat] = False
        elif self._count[self._bal[seat]] == 0:
            standing[seat] = False
            self._moon = True
        if not any(standing):
            self._phase, self._cp, self._active = OVER, TERMINAL, -1
            return
        n = self._n
        occ = self._occ
        t = self._token
        while True:
            t += 1
            if t == n:
                t = 0
            q = occ[t]
            if q >= 0 and standing[q]:
                break
        self._token = t
        self._active = q
        self._phase, self._cp = FLY_PHASE, q

    def _copy_into(self, other: State) -> None:
        o: PanoramaState = other  # type: ignore[assignment]
        o._n = self._n
        o._phase = self._phase
        o._pending = self._pending
        o._cp = self._cp
        o._goals = self._goals[:]
        o._count = self._count[:]
        o._top = self._top[:]
        o._unrev = self._unrev[:]
        o._occ = self._occ[:]
        o._bal = self._bal[:]
        o._standing = self._standing[:]
        o._pan = [p[:] for p in self._pan]
        o._si = self._si[:]
        o._token = self._token
        o._moon = self._moon
        o._active = self._active
        o._held = self._held
        o._res = self._res

    # -- views -----------------------------------------------------------------

    def breakdowns(self) -> list[dict[str, int]]:
        """Every player's score breakdown as if the game ended now (final when over)."""
        return breakdowns([tuple(p) for p in self._pan], self._si, self._goals)

    def _result(self) -> Result:
        if self._res is None:
            bd = self.breakdowns()
            scores: list[float] = [b["total"] for b in bd]
            self._res = Result(
                scores=scores,
                breakdown=cast(list[dict[str, float]], bd),
                ranks=competition_ranks(scores),
            )
        return self._res

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        bd = self.breakdowns()
        players: list[JSON] = []
        for q in range(self.num_players):
            if self._bal[q] < 0:
                balloon = "none"
            else:
                balloon = "standing" if self._standing[q] else "deflated"
            players.append(
                {
                    "seat": q,
                    "colour": COLOURS[q],
                    "panorama": [TILE_IDS[t] for t in self._pan[q]],
                    "start_index": self._si[q],
                    "balloon_space": self._bal[q],
                    "balloon": balloon,
                    "points": dict(bd[q]),
                }
            )
        spaces: list[JSON] = [
            {
                "space": s,
                "count": self._count[s],
                "top": TILE_IDS[self._top[s]] if self._top[s] >= 0 else "",
                "balloon_seat": self._occ[s],
            }
            for s in range(self._n)
        ]
        phase = self._phase
        return {
            "current_player": self._cp,
            "phase": PHASE_NAMES[phase],
            "pending_space": self._pending if phase == REVEAL_NODE else -1,
            "goals": list(self._goals),
            "num_spaces": self._n,
            "token_space": self._token,
            "token_face": "moon" if self._moon else "sun",
            "active_player": self._active,
            "held_tile": TILE_IDS[self._held] if self._held >= 0 else "",
            "unrevealed_tiles": len(self._unrev),
            "spaces": spaces,
            "players": players,
            "scores": [b["total"] for b in bd],
        }

    def _full_state(self) -> JSON:
        return {
            "phase": PHASE_NAMES[self._phase],
            "pending": self._pending,
            "current_player": self._cp,
            "goals": list(self._goals),
            "count": list(self._count),
            "top": [TILE_IDS[t] if t >= 0 else "" for t in self._top],
            "revealed": [TILE_IDS[t] for t in range(NUM_TILES) if t not in self._unrev],
            "occupant": list(self._occ),
            "balloon": list(self._bal),
            "standing": list(self._standing),
            "panoramas": [[TILE_IDS[t] for t in p] for p in self._pan],
            "start_index": list(self._si),
            "token": self._token,
            "moon": self._moon,
            "active": self._active,
            "held": TILE_IDS[self._held] if self._held >= 0 else "",
        }

    def _resample(self, seat: int, rng: random.Random) -> State:
        # The state holds no hidden part: tiles below a top are drawn by `reveal` only when
        # they become tops, and every revealed tile stays public. Nothing to re-draw.
        return self.clone()

    def render(self, seat: int | None = None) -> str:
        from engine.panorama.render import render_state

        return render_state(self, seat)

    def _illegal_reason(self, action: Action) -> str:
        phase = self._phase
        who = f"{COLOURS[self._active]} (seat {self._active})" if self._active >= 0 else ""
        if phase == FLY_PHASE and isinstance(action, Fly):
            s = action.space
            legal = ", ".join(str(a.space) for a in self.legal_actions())  # type: ignore[attr-defined]
            if not 0 <= s < self._n:
                why = f"there is no space {s}; the central tile has spaces 0..{self._n - 1}"
            elif self._occ[s] == self._active:
                why = f"space {s} is {who}'s own current space"
            elif self._occ[s] >= 0:
                q = self._occ[s]
                state = "standing" if self._standing[q] else "deflated"
                why = f"space {s} holds {COLOURS[q]}'s {state} balloon"
            elif self._count[s] == 0:
                why = f"the stack on space {s} is empty"
            else:  # pragma: no cover - every other space is legal
                why = "it is not legal now"
            return f"cannot fly to space {s}: {why}; legal spaces: {legal}"
        if phase == FLY_PHASE and isinstance(action, Place):
            return f"{who} must fly to a space and take its top tile before placing"
        if phase == PLACE_PHASE and isinstance(action, Fly):
            held = TILE_IDS[self._held]
            return f"{who} has already flown this turn and must place {held} (place left/right)"
        if phase == PLACE_PHASE and isinstance(action, Place):
            return f"place end must be 'left' or 'right', got {action.end!r}"
        if phase == REVEAL_NODE and isinstance(action, Reveal):
            if action.space != self._pending:
                return f"a reveal for space {self._pending} is due, not for space {action.space}"
            if action.tile not in TILE_INDEX or TILE_INDEX[action.tile] >= NUM_TILES:
                return f"{action.tile!r} is not a panorama tile (T01..T36)"
            return f"tile {action.tile} has already been revealed"
        if phase == GOAL and isinstance(action, GoalDraw):
            colour = GOAL_COLOURS[self._pending]
            return f"a {colour} goal is drawn now ({', '.join(GOALS_BY_COLOUR[self._pending])})"
        return super()._illegal_reason(action)


def _order_goals(goals: list[str]) -> list[str]:
    """Goal ids as (sky, river, terrain), whatever order the option listed them in."""
    return [next(g for g in goals if g[0] == prefix) for prefix in "SRT"]


def _check_goals(value: JSON) -> str | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 3:
        return (
            "must be a list of exactly three goal ids: "
            "one sky (S*), one river (R*), one terrain (T*)"
        )
    for g in value:
        if not isinstance(g, str) or g not in GOAL_IDS:
            return f"unknown goal id {g!r}; goal ids are {', '.join(GOAL_IDS)}"
    for prefix, colour in zip("SRT", GOAL_COLOURS, strict=True):
        k = sum(1 for g in value if g[0] == prefix)
        if k != 1:
            return f"needs exactly one {colour} goal ({prefix}1..{prefix}4), got {k}"
    return None


class PanoramaGame(Game):
    id = "panorama"
    name = "Panorama"
    version = 1
    min_players = 2
    max_players = 4
    option_specs = {
        "goal_set": Option(
            "first_game",
            "Which three goal tokens are used: 'first_game' (the starred S1 R1 T1), 'random' "
            "(one per colour, drawn by three goal_draw chance nodes) or a scenario: "
            "'animal_festival' (S2 R2 T3), 'river_lover' (S3 R4 T1), 'long_way_home' "
            "(S4 R1 T4), 'wonderful_view' (S3 R3 T3), 'riverside_walk' (S2 R2 T4), "
            "'less_is_more' (S1 R4 T2).",
        ),
        "goals": Option(
            None,
            "Explicit goals: a list of exactly three goal ids, one sky (S1-S4), one river "
            "(R1-R4), one terrain (T1-T4), in any order; overrides goal_set. null = absent.",
        ),
    }
    action_classes = ACTION_CLASSES

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        if key == "goal_set":
            return check_choice(value, GOAL_SET_VALUES)
        if key == "goals":
            return _check_goals(value)
        return None  # pragma: no cover - unknown keys are rejected by Game.new_game

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        return PanoramaState(self, num_players, options)

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        # Nothing in the state is hidden, so nothing is drawn (see engine.panorama.rebuild).
        from engine.panorama.rebuild import rebuild

        return rebuild(cast(PanoramaState, initial), seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        n = 2 * num_players + 1
        # 3 goal draws + n*4 reveals at most + p balloon drops + (fly + place) per tile taken
        return 3 + 4 * n + num_players + 2 * 4 * n

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        out: list[dict[str, JSON]] = [{}]
        out += [{"goal_set": g} for g in GOAL_SET_VALUES if g != "first_game"]
        out.append({"goals": ["T2", "S3", "R3"]})
        return out
