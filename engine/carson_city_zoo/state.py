"""Carson City Zoo rules: the position, legal actions, effects, end check, scoring."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from engine.carson_city_zoo import views
from engine.carson_city_zoo.components import (
    CAPTURED,
    CARD_INDEX,
    CARD_MUTANT,
    CARD_VALUE,
    DEAL,
    DEAL_ACTIONS,
    DIR_INDEX,
    IN_HAND,
    MOVE_ACTIONS,
    NEIGHBOURS,
    NUM_CARDS,
    NUM_SPACES,
    OVER,
    PLACE_ACTIONS,
    PLAY,
    START,
    TARGET,
    TEAM_IDS,
    VALUES,
    Deal,
    Move,
    Place,
    StartPlayer,
)
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


def draw_board_cards(
    pool: Iterable[int],
    visible: Sequence[tuple[int, int]],
    hidden: Sequence[int],
    rng: random.Random,
) -> tuple[dict[int, int], list[int]]:
    """Deal the zoo cards of ``pool`` at random onto deal slots.

    ``visible`` lists ``(slot, face value)`` for slots whose face is known, ``hidden``
    the slots whose card is unknown (a slot is j < 25 for the bottom card of space j,
    25 + j for its top card). Each visible slot gets a card of its face value, then each
    hidden slot one of the remaining cards; this is uniform over the consistent
    assignments. Returns ``slot -> card`` and the cards left over (sorted). Raises
    ValueError when the pool cannot fill the slots (e.g. a face value shown more often
    than cards of that value remain).
    """
    by_value: list[list[int]] = [[] for _ in range(5)]
    for card in sorted(pool):
        by_value[CARD_VALUE[card]].append(card)
    for cards in by_value:
        rng.shuffle(cards)
    out: dict[int, int] = {}
    for slot, value in visible:
        if not 0 <= value < len(by_value) or not by_value[value]:
            raise ValueError(f"no zoo card of face value {value} is left for deal slot {slot}")
        out[slot] = by_value[value].pop()
    rest = sorted(card for cards in by_value for card in cards)
    if len(rest) < len(hidden):
        raise ValueError(f"{len(hidden)} covered cards but only {len(rest)} zoo cards left")
    rng.shuffle(rest)
    for slot in hidden:
        out[slot] = rest.pop()
    return out, sorted(rest)


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


class CarsonCityZooState(State):
    """A position. Characters are indexed ``c = 4 * seat + (value - 3)``.

    ``_bot``/``_top``: the zoo card (0-49) at the bottom/top of each space, -1 if none
    (a top card only ever lies on a bottom card). ``_occ``: the occupant character of
    each space or -1. ``_cpos``: each character's space, IN_HAND or CAPTURED; ``_cmut``:
    whether it is mutated. ``_deal``: the card dealt at each deal node so far (slot j is
    the bottom of space j for j < 25, the top of space j - 25 otherwise).
    """

    _teams: tuple[str, ...]
    _cname: tuple[str, ...]
    _cidx: dict[str, int]
    _phase: int
    _player: int
    _start: int
    _deal: list[int]
    _undealt: list[int]
    _bot: list[int]
    _top: list[int]
    _occ: list[int]
    _cpos: list[int]
    _cmut: list[bool]
    _pile_zoo: list[list[int]]
    _pile_chr: list[list[int]]
    _zoo_pts: list[int]
    _chr_pts: list[int]

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        teams = options.get("teams")
        self._teams = tuple(teams) if teams else TEAM_IDS[:num_players]
        self._cname = tuple(f"{t}{v}" for t in self._teams for v in VALUES)
        self._cidx = {name: i for i, name in enumerate(self._cname)}
        self._phase = DEAL
        self._player = -1
        start = options.get("start_player")
        self._start = start if isinstance(start, int) else -1
        self._deal = []
        self._undealt = list(range(NUM_CARDS))
        self._bot = [-1] * NUM_SPACES
        self._top = [-1] * NUM_SPACES
        self._occ = [-1] * NUM_SPACES
        self._cpos = [IN_HAND] * (4 * num_players)
        self._cmut = [False] * (4 * num_players)
        self._pile_zoo = [[] for _ in range(num_players)]
        self._pile_chr = [[] for _ in range(num_players)]
        self._zoo_pts = [0] * num_players
        self._chr_pts = [0] * num_players

    # -- contract ------------------------------------------------------------

    @property
    def current_player(self) -> int:
        phase = self._phase
        if phase == PLAY:
            return self._player
        if phase == OVER:
            return TERMINAL
        return CHANCE

    def _copy_into(self, other: State) -> None:
        assert isinstance(other, CarsonCityZooState)
        other._teams = self._teams
        other._cname = self._cname
        other._cidx = self._cidx
        other._phase = self._phase
        other._player = self._player
        other._start = self._start
        other._deal = self._deal[:]
        other._undealt = self._undealt[:]
        other._bot = self._bot[:]
        other._top = self._top[:]
        other._occ = self._occ[:]
        other._cpos = self._cpos[:]
        other._cmut = self._cmut[:]
        other._pile_zoo = [p[:] for p in self._pile_zoo]
        other._pile_chr = [p[:] for p in self._pile_chr]
        other._zoo_pts = self._zoo_pts[:]
        other._chr_pts = self._chr_pts[:]

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        if self._phase == DEAL:
            p = 1.0 / len(self._undealt)
            return [(DEAL_ACTIONS[c], p) for c in self._undealt]
        p = 1.0 / self.num_players
        return [(StartPlayer(s), p) for s in range(self.num_players)]

    def _legal_actions(self) -> list[Action]:
        return self._actions_of(self._player)

    def _actions_of(self, p: int) -> list[Action]:
        """Every legal action of seat ``p`` in the current position (canonical order)."""
        team = self._teams[p]
        cpos = self._cpos
        base = 4 * p
        out: list[Action] = []
        hand = [vi for vi in range(4) if cpos[base + vi] == IN_HAND]
        if hand:
            occ = self._occ
            bot = self._bot
            spaces = [s for s in range(NUM_SPACES) if occ[s] < 0 and bot[s] >= 0]
            if spaces:
                rows = PLACE_ACTIONS[team]
                for vi in hand:
                    row = rows[vi]
                    out.extend([row[s] for s in spaces])
        moves = MOVE_ACTIONS[team]
        for vi in range(4):
            c = base + vi
            s = cpos[c]
            if s >= 0 and not self._cmut[c]:
                for d, t in NEIGHBOURS[s]:
                    if self._can_enter(p, vi, t):
                        out.append(moves[vi][d])
        return out

    def _can_enter(self, p: int, vi: int, t: int) -> bool:
        """Whether seat p's active character of value index vi may step onto space t."""
        o = self._occ[t]
        if o < 0:
            return self._bot[t] >= 0
        if self._cmut[o]:
            return True
        return o // 4 != p and o % 4 <= vi

    def _has_action(self, p: int, placeable: bool) -> bool:
        cpos = self._cpos
        base = 4 * p
        for vi in range(4):
            c = base + vi
            s = cpos[c]
            if s == IN_HAND:
                if placeable:
                    return True
            elif s >= 0 and not self._cmut[c]:
                for _d, t in NEIGHBOURS[s]:
                    if self._can_enter(p, vi, t):
                        return True
        return False

    def is_legal(self, action: Action) -> bool:
        # Same answer as the base class, without scanning the action lists.
        phase = self._phase
        kind = type(action)
        if phase == DEAL:
            return kind is Deal and CARD_INDEX.get(action.card, -1) in self._undealt  # type: ignore[attr-defined]
        if phase == PLAY and (kind is Place or kind is Move):
            return self._check(action) is None
        return State.is_legal(self, action)

    def _check(self, action: Action) -> str | None:
        """Why the place/move ``action`` is illegal for the player to move, or None."""
        p = self._player
        char: str = action.char  # type: ignore[attr-defined]
        c = self._cidx.get(char, -1)
        if c < 0:
            return f"{char} is not in this game (teams: {', '.join(self._teams)})"
        if c // 4 != p:
            return f"{char} belongs to seat {c // 4}, not to seat {p} (team {self._teams[p]})"
        pos = self._cpos[c]
        if isinstance(action, Place):
            if pos != IN_HAND:
                where = "was captured" if pos == CAPTURED else f"is on space {pos}"
                return f"{char} is not in hand: it {where}"
            s = action.space
            if not 0 <= s < NUM_SPACES:
                return f"space must be 0..24, got {s}"
            o = self._occ[s]
            if o >= 0:
                star = "*" if self._cmut[o] else ""
                return f"space {s} is occupied by {self._cname[o]}{star}"
            if self._bot[s] < 0:
                return f"space {s} has no zoo card left"
            return None
        assert isinstance(action, Move)
        if pos == IN_HAND:
            return f"{char} is in hand, not on the board"
        if pos == CAPTURED:
            return f"{char} was captured"
        if self._cmut[c]:
            return f"{char} is mutated and can no longer move"
        t = TARGET[pos][DIR_INDEX[action.dir]]
        if t < 0:
            return f"{char} on space {pos} cannot go {action.dir}: off the board"
        o = self._occ[t]
        if o < 0:
            if self._bot[t] < 0:
                return f"{char} cannot go {action.dir}: space {t} is empty"
            return None
        if self._cmut[o]:
            return None
        name = self._cname[o]
        if o // 4 == p:
            return f"{char} cannot go {action.dir}: own character {name} stands on space {t}"
        if o % 4 > c % 4:
            return f"{char} cannot go {action.dir}: {name} on space {t} is worth more"
        return None

    def _illegal_reason(self, action: Action) -> str:
        if self._phase == PLAY and isinstance(action, Place | Move):
            reason = self._check(action)
            if reason:
                return f"{action} is illegal: {reason}"
        return State._illegal_reason(self, action)

    def _apply(self, action: Action) -> None:
        kind = type(action)
        if kind is Place:
            self._apply_place(action)  # type: ignore[arg-type]
        elif kind is Move:
            self._apply_move(action)  # type: ignore[arg-type]
        elif kind is Deal:
            self._apply_deal(action)  # type: ignore[arg-type]
        else:
            assert isinstance(action, StartPlayer)
            self._start = action.seat
            self._player = action.seat
            self._phase = PLAY

    def _apply_deal(self, action: Deal) -> None:
        card = CARD_INDEX[action.card]
        j = len(self._deal)
        self._deal.append(card)
        self._undealt.remove(card)
        if j < NUM_SPACES:
            self._bot[j] = card
        else:
            self._top[j - NUM_SPACES] = card
        if j == NUM_CARDS - 1:
            if self._start >= 0:
                self._player = self._start
                self._phase = PLAY
            else:
                self._phase = START

    def _take_zoo_card(self, p: int, c: int, s: int) -> None:
        """Seat p's character c captures the top zoo card of space s (mutation check)."""
        card = self._top[s]
        if card >= 0:
            self._top[s] = -1
        else:
            card = self._bot[s]
            self._bot[s] = -1
        self._pile_zoo[p].append(card)
        self._zoo_pts[p] += CARD_VALUE[card]
        if CARD_MUTANT[card]:
            self._cmut[c] = True

    def _apply_place(self, action: Place) -> None:
        p = self._player
        c = self._cidx[action.char]
        s = action.space
        self._take_zoo_card(p, c, s)
        self._occ[s] = c
        self._cpos[c] = s
        self._after_action(p)

    def _apply_move(self, action: Move) -> None:
        p = self._player
        c = self._cidx[action.char]
        s = self._cpos[c]
        t = TARGET[s][DIR_INDEX[action.dir]]
        occ = self._occ
        occ[s] = -1
        o = occ[t]
        if o >= 0:
            self._cpos[o] = CAPTURED
            self._pile_chr[p].append(o)
            self._chr_pts[p] += o % 4 + 3
        else:
            self._take_zoo_card(p, c, t)
        occ[t] = c
        self._cpos[c] = t
        self._after_action(p)

    def _after_action(self, p: int) -> None:
        """The end check: the game ends at once if any player has no legal action."""
        occ = self._occ
        bot = self._bot
        placeable = False
        for s in range(NUM_SPACES):
            if occ[s] < 0 and bot[s] >= 0:
                placeable = True
                break
        n = self.num_players
        for q in range(n):
            if not self._has_action(q, placeable):
                self._phase = OVER
                return
        self._player = (p + 1) % n

    # -- scoring -------------------------------------------------------------

    def _surviving(self, p: int) -> int:
        total = 0
        for vi in range(4):
            c = 4 * p + vi
            if self._cpos[c] != CAPTURED and not self._cmut[c]:
                total += vi + 3
        return total

    def breakdown(self, p: int) -> dict[str, int]:
        """Seat p's score so far by the spec's categories (final once the game is over)."""
        zoo = self._zoo_pts[p]
        chars = self._chr_pts[p]
        surv = self._surviving(p)
        return {
            "zoo_cards": zoo,
            "captured_characters": chars,
            "surviving_characters": surv,
            "total": zoo + chars + surv,
        }

    def _result(self) -> Result:
        parts = [self.breakdown(p) for p in range(self.num_players)]
        totals = [b["total"] for b in parts]
        return Result(
            scores=[float(t) for t in totals],
            breakdown=[{k: float(v) for k, v in b.items()} for b in parts],
            ranks=competition_ranks(totals),
        )

    def _full_state(self) -> JSON:
        return {
            "teams": list(self._teams),
            "phase": self._phase,
            "player": self._player,
            "start": self._start,
            "deal": self._deal,
            "bot": self._bot,
            "top": self._top,
            "occ": self._occ,
            "cpos": self._cpos,
            "cmut": self._cmut,
            "pile_zoo": self._pile_zoo,
            "pile_chr": self._pile_chr,
        }

    def _resample(self, seat: int, rng: random.Random) -> State:
        """Redraw the ids of the zoo cards on the board (and undealt), keeping faces seen.

        Uppermost cards keep their public face value (once the deal is over); covered
        bottom cards and undealt cards are drawn from the rest. The deal steps of the
        history are rewritten accordingly.
        """
        other = self.clone()
        assert isinstance(other, CarsonCityZooState)
        show_faces = self._phase != DEAL
        visible: list[tuple[int, int]] = []  # (slot, face value)
        hidden: list[int] = []
        pool: list[int] = list(self._undealt)
        for s in range(NUM_SPACES):
            b, t = self._bot[s], self._top[s]
            for slot, card in ((s, b), (NUM_SPACES + s, t)):
                if card < 0:
                    continue
                pool.append(card)
                uppermost = slot >= NUM_SPACES or t < 0
                if show_faces and uppermost:
                    visible.append((slot, CARD_VALUE[card]))
                else:
                    hidden.append(slot)
        cards, rest = draw_board_cards(pool, visible, hidden, rng)
        new_deal = other._deal
        other._undealt = rest
        for slot, card in cards.items():
            new_deal[slot] = card
            if slot < NUM_SPACES:
                other._bot[slot] = card
            else:
                other._top[slot - NUM_SPACES] = card
        dealt = len(new_deal)
        if len(self.history) >= dealt and all(type(a) is Deal for a in self.history[:dealt]):
            other.history = [DEAL_ACTIONS[c] for c in new_deal] + self.history[dealt:]
        other._legal = None
        return other

    # -- views (engine/carson_city_zoo/views.py) ---------------------------------

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        return views.observation(self, seat)

    def render(self, seat: int | None = None) -> str:
        return views.render(self, seat)
