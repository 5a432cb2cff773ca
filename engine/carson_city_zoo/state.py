"""Carson City Zoo rules: the position, legal actions, effects, end check, scoring, the
observation and resampling."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Annotated

from engine.carson_city_zoo.actions import (
    DEAL_ACTIONS,
    MOVE_ACTIONS,
    PLACE_ACTIONS,
    START_ACTIONS,
    Deal,
    Move,
    Place,
    StartPlayer,
)
from engine.carson_city_zoo.data import (
    CAPTURED,
    CARD_IDS,
    CARD_INDEX,
    CARD_MUTANT,
    CARD_VALUE,
    DEAL,
    DIR_INDEX,
    IN_HAND,
    NEIGHBOURS,
    NUM_CARDS,
    NUM_SPACES,
    OVER,
    PHASE_NAMES,
    PLAY,
    SIZE,
    START,
    TARGET,
    TEAM_IDS,
    VALUES,
    Roster,
    roster,
)
from engine.carson_city_zoo.render import render_observation
from engine.core import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Game,
    Result,
    State,
    competition_ranks,
    shuffle,
)
from engine.fields import Digest


class BoardDraw:
    """What :func:`draw_board_cards` deals, checked and grouped once: the cards by face
    value and the slots to fill. A search resamples the same board once per iteration, so
    ``resample`` keeps these per board (:data:`_BOARD_DRAWS`) and only draws."""

    __slots__ = ("groups", "hidden", "slots", "values")

    def __init__(
        self, pool: Iterable[int], visible: Sequence[tuple[int, int]], hidden: Sequence[int]
    ) -> None:
        groups: list[list[int]] = [[] for _ in range(5)]
        for card in sorted(pool):
            groups[CARD_VALUE[card]].append(card)
        left = [len(cards) for cards in groups]
        for slot, value in visible:
            if not 0 <= value < len(groups) or not left[value]:
                raise ValueError(f"no zoo card of face value {value} is left for deal slot {slot}")
            left[value] -= 1
        if sum(left) < len(hidden):
            raise ValueError(f"{len(hidden)} covered cards but only {sum(left)} zoo cards left")
        self.groups: tuple[tuple[int, ...], ...] = tuple(tuple(cards) for cards in groups)
        """The cards of the pool by face value, ascending."""
        self.values: tuple[int, ...] = tuple(value for _slot, value in visible)
        """The face value of each visible slot, in ``visible`` order."""
        self.hidden = len(hidden)
        """How many hidden slots there are."""
        self.slots: tuple[int, ...] = tuple(slot for slot, _value in visible) + tuple(hidden)
        """The slots in the order :meth:`draw` fills them: visible, then hidden."""

    def draw(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """The card of each of :attr:`slots` and the cards left over (sorted).

        Each face-value group is shuffled and a visible slot takes the last card of its
        group; the cards left are sorted, shuffled, and the hidden slots take them from
        the end (the same draws as ever, so seeded searches keep their results)."""
        by_value = [list(cards) for cards in self.groups]
        for cards in by_value:
            shuffle(cards, rng)
        drawn = [by_value[value].pop() for value in self.values]
        rest = [card for cards in by_value for card in cards]
        rest.sort()
        shuffle(rest, rng)
        keep = len(rest) - self.hidden
        drawn.extend(reversed(rest[keep:]))
        del rest[keep:]
        rest.sort()
        return drawn, rest


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
    board = BoardDraw(pool, visible, hidden)
    drawn, rest = board.draw(rng)
    return dict(zip(board.slots, drawn, strict=True)), rest


_BOARD_DRAWS: dict[tuple[bool, tuple[int, ...], tuple[int, ...], tuple[int, ...]], BoardDraw] = {}
"""``resample``'s :class:`BoardDraw` per board (faces shown?, bottom, top, undealt cards):
a pure function of the key, kept for the boards searched lately (cleared when full)."""
_BOARD_DRAWS_MAX = 256


class CarsonCityZooState(State):
    """A position. Characters are indexed ``c = 4 * seat + (value - 3)``, zoo cards 0-49."""

    teams: tuple[str, ...]
    """The team id of each seat (Y, B, G, R)."""
    roster: Annotated[Roster, Digest(skip=True)]
    """The characters of these teams: ids by index and back (derived from ``teams``)."""
    phase: int
    """DEAL, START, PLAY or OVER (an index into PHASE_NAMES)."""
    current: Annotated[int, Digest(key="player")]
    """The seat to move in play (-1 before play; the seat that moved last once over)."""
    start_player: Annotated[int, Digest(key="start")]
    """The seat that moves first, -1 while undecided."""
    dealt: Annotated[list[int], Digest(key="deal")]
    """The card dealt at each deal node so far: j < 25 bottom of space j, else top of j - 25."""
    undealt: Annotated[list[int], Digest(skip=True)]
    """The zoo cards not dealt yet, ascending (the complement of ``dealt``)."""
    bottom: Annotated[list[int], Digest(key="bot")]
    """The bottom zoo card of each space, -1 if none."""
    top: list[int]
    """The top zoo card of each space, -1 if none (a top card only lies on a bottom card)."""
    occupant: Annotated[list[int], Digest(key="occ")]
    """The character standing on each space, -1 if none."""
    character_space: Annotated[list[int], Digest(key="cpos")]
    """Each character's space, IN_HAND or CAPTURED."""
    mutated: Annotated[list[bool], Digest(key="cmut")]
    """Whether each character is mutated."""
    zoo_piles: Annotated[list[list[int]], Digest(key="pile_zoo")]
    """Each seat's captured zoo cards, in capture order."""
    character_piles: Annotated[list[list[int]], Digest(key="pile_chr")]
    """Each seat's captured characters, in capture order."""
    zoo_points: Annotated[list[int], Digest(skip=True)]
    """Each seat's points from captured zoo cards (the sum over ``zoo_piles``)."""
    character_points: Annotated[list[int], Digest(skip=True)]
    """Each seat's points from captured characters (the sum over ``character_piles``)."""

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        teams = options.get("teams")
        self.teams = tuple(teams) if teams else TEAM_IDS[:num_players]
        self.roster = roster(self.teams)
        self.phase = DEAL
        self.current = -1
        start = options.get("start_player")
        self.start_player = start if isinstance(start, int) else -1
        self.dealt = []
        self.undealt = list(range(NUM_CARDS))
        self.bottom = [-1] * NUM_SPACES
        self.top = [-1] * NUM_SPACES
        self.occupant = [-1] * NUM_SPACES
        self.character_space = [IN_HAND] * (4 * num_players)
        self.mutated = [False] * (4 * num_players)
        self.zoo_piles = [[] for _ in range(num_players)]
        self.character_piles = [[] for _ in range(num_players)]
        self.zoo_points = [0] * num_players
        self.character_points = [0] * num_players

    # -- contract ------------------------------------------------------------

    @property
    def current_player(self) -> int:
        phase = self.phase
        if phase == PLAY:
            return self.current
        if phase == OVER:
            return TERMINAL
        return CHANCE

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase == DEAL:
            p = 1.0 / len(self.undealt)
            return [(DEAL_ACTIONS[c], p) for c in self.undealt]
        p = 1.0 / self.num_players
        return [(START_ACTIONS[s], p) for s in range(self.num_players)]

    def _legal_actions(self) -> list[Action]:
        return self._actions_of(self.current)

    def _actions_of(self, p: int) -> list[Action]:
        """Every legal action of seat ``p`` in the current position (canonical order)."""
        team = self.teams[p]
        cpos = self.character_space
        occ = self.occupant
        bot = self.bottom
        mutated = self.mutated
        base = 4 * p
        out: list[Action] = []
        hand = [vi for vi in range(4) if cpos[base + vi] == IN_HAND]
        if hand:
            spaces = [s for s in range(NUM_SPACES) if occ[s] < 0 and bot[s] >= 0]
            if spaces:
                rows = PLACE_ACTIONS[team]
                if len(spaces) == 1:
                    out.extend([rows[vi][spaces[0]] for vi in hand])
                else:
                    # one C call per character in hand (search expands wide nodes often)
                    pick = itemgetter(*spaces)
                    for vi in hand:
                        out.extend(pick(rows[vi]))
        moves = MOVE_ACTIONS[team]
        for vi in range(4):
            c = base + vi
            s = cpos[c]
            if s >= 0 and not mutated[c]:
                row = moves[vi]
                for d, t in NEIGHBOURS[s]:
                    # ``_can_enter``, inlined
                    o = occ[t]
                    if o < 0:
                        if bot[t] >= 0:
                            out.append(row[d])
                    elif mutated[o] or (o // 4 != p and o % 4 <= vi):
                        out.append(row[d])
        return out

    def _can_enter(self, p: int, vi: int, t: int) -> bool:
        """Whether seat p's active character of value index vi may step onto space t."""
        o = self.occupant[t]
        if o < 0:
            return self.bottom[t] >= 0
        if self.mutated[o]:
            return True
        return o // 4 != p and o % 4 <= vi

    def _has_action(self, p: int, placeable: bool) -> bool:
        cpos = self.character_space
        base = 4 * p
        for vi in range(4):
            c = base + vi
            s = cpos[c]
            if s == IN_HAND:
                if placeable:
                    return True
            elif s >= 0 and not self.mutated[c]:
                for _d, t in NEIGHBOURS[s]:
                    if self._can_enter(p, vi, t):
                        return True
        return False

    def is_legal(self, action: Action) -> bool:
        # Same answer as the base class, without scanning the action lists.
        phase = self.phase
        if phase == DEAL:
            return isinstance(action, Deal) and CARD_INDEX.get(action.card, -1) in self.undealt
        if phase == PLAY and isinstance(action, (Move, Place)):
            return self._check(action) is None
        return State.is_legal(self, action)

    def _check(self, action: Place | Move) -> str | None:
        """Why the place/move ``action`` is illegal for the player to move, or None."""
        p = self.current
        char: str = action.char
        c = self.roster.index.get(char, -1)
        if c < 0:
            return f"{char} is not in this game (teams: {', '.join(self.teams)})"
        if c // 4 != p:
            return f"{char} belongs to seat {c // 4}, not to seat {p} (team {self.teams[p]})"
        pos = self.character_space[c]
        match action:  # moves first: the most frequent
            case Move():
                direction = action.dir
                if pos == IN_HAND:
                    return f"{char} is in hand, not on the board"
                if pos == CAPTURED:
                    return f"{char} was captured"
                if self.mutated[c]:
                    return f"{char} is mutated and can no longer move"
                t = TARGET[pos][DIR_INDEX[direction]]
                if t < 0:
                    return f"{char} on space {pos} cannot go {direction}: off the board"
                o = self.occupant[t]
                if o < 0:
                    if self.bottom[t] < 0:
                        return f"{char} cannot go {direction}: space {t} is empty"
                    return None
                if self.mutated[o]:
                    return None
                name = self.roster.names[o]
                if o // 4 == p:
                    return f"{char} cannot go {direction}: own character {name} stands on space {t}"
                if o % 4 > c % 4:
                    return f"{char} cannot go {direction}: {name} on space {t} is worth more"
                return None
            case Place():
                if pos != IN_HAND:
                    where = "was captured" if pos == CAPTURED else f"is on space {pos}"
                    return f"{char} is not in hand: it {where}"
                s = action.space
                if not 0 <= s < NUM_SPACES:
                    return f"space must be 0..24, got {s}"
                o = self.occupant[s]
                if o >= 0:
                    star = "*" if self.mutated[o] else ""
                    return f"space {s} is occupied by {self.roster.names[o]}{star}"
                if self.bottom[s] < 0:
                    return f"space {s} has no zoo card left"
                return None

    def _illegal_reason(self, action: Action) -> str:
        if self.phase == PLAY and isinstance(action, Place | Move):
            reason = self._check(action)
            if reason:
                return f"{action} is illegal: {reason}"
        return State._illegal_reason(self, action)

    def _apply(self, action: Action) -> None:
        match action:  # most frequent first: 50 deals, then mostly moves
            case Deal():
                self._apply_deal(action)
            case Move():
                self._apply_move(action)
            case Place():
                self._apply_place(action)
            case StartPlayer(seat=seat):
                self.start_player = seat
                self.current = seat
                self.phase = PLAY

    def _apply_deal(self, action: Deal) -> None:
        card = CARD_INDEX[action.card]
        j = len(self.dealt)
        self.dealt.append(card)
        self.undealt.remove(card)
        if j < NUM_SPACES:
            self.bottom[j] = card
        else:
            self.top[j - NUM_SPACES] = card
        if j == NUM_CARDS - 1:
            if self.start_player >= 0:
                self.current = self.start_player
                self.phase = PLAY
            else:
                self.phase = START

    def _take_zoo_card(self, p: int, c: int, s: int) -> None:
        """Seat p's character c captures the top zoo card of space s (mutation check)."""
        card = self.top[s]
        if card >= 0:
            self.top[s] = -1
        else:
            card = self.bottom[s]
            self.bottom[s] = -1
        self.zoo_piles[p].append(card)
        self.zoo_points[p] += CARD_VALUE[card]
        if CARD_MUTANT[card]:
            self.mutated[c] = True

    def _apply_place(self, action: Place) -> None:
        p = self.current
        c = self.roster.index[action.char]
        s = action.space
        self._take_zoo_card(p, c, s)
        self.occupant[s] = c
        self.character_space[c] = s
        self._after_action(p)

    def _apply_move(self, action: Move) -> None:
        p = self.current
        c = self.roster.index[action.char]
        s = self.character_space[c]
        t = TARGET[s][DIR_INDEX[action.dir]]
        occ = self.occupant
        occ[s] = -1
        o = occ[t]
        if o >= 0:
            self.character_space[o] = CAPTURED
            self.character_piles[p].append(o)
            self.character_points[p] += o % 4 + 3
        else:
            self._take_zoo_card(p, c, t)
        occ[t] = c
        self.character_space[c] = t
        self._after_action(p)

    def placeable(self) -> bool:
        """Whether some space without occupant still has a zoo card (a place is possible)."""
        occ = self.occupant
        bot = self.bottom
        for s in range(NUM_SPACES):  # noqa: SIM110 (hot path: a loop is faster than any())
            if occ[s] < 0 and bot[s] >= 0:
                return True
        return False

    def stuck_seats(self) -> list[int]:
        """The seats without a legal action (the game ends as soon as there is one)."""
        placeable = self.placeable()
        return [q for q in range(self.num_players) if not self._has_action(q, placeable)]

    def _after_action(self, p: int) -> None:
        """The end check: the game ends at once if any player has no legal action."""
        placeable = self.placeable()
        n = self.num_players
        for q in range(n):
            if not self._has_action(q, placeable):
                self.phase = OVER
                return
        self.current = (p + 1) % n

    # -- scoring -------------------------------------------------------------

    def _surviving(self, p: int) -> int:
        """Seat p's points from its characters neither captured nor mutated."""
        cpos, mutated = self.character_space, self.mutated
        total = 0
        c = 4 * p
        for v in VALUES:
            if cpos[c] != CAPTURED and not mutated[c]:
                total += v
            c += 1
        return total

    def breakdown(self, p: int) -> dict[str, int]:
        """Seat p's score so far by the spec's categories (final once the game is over)."""
        zoo = self.zoo_points[p]
        chars = self.character_points[p]
        surv = self._surviving(p)
        return {
            "zoo_cards": zoo,
            "captured_characters": chars,
            "surviving_characters": surv,
            "total": zoo + chars + surv,
        }

    def _scores(self) -> list[float]:
        # breakdown's totals without its dicts: heuristics read the scores per evaluation
        zoo, chars, surviving = self.zoo_points, self.character_points, self._surviving
        return [zoo[p] + chars[p] + surviving(p) for p in range(self.num_players)]

    def _result(self) -> Result:
        parts = [self.breakdown(p) for p in range(self.num_players)]
        totals = [b["total"] for b in parts]
        return Result(
            scores=[b["total"] for b in parts],
            breakdown=[dict(b) for b in parts],
            ranks=competition_ranks(totals),
        )

    # -- resampling ------------------------------------------------------------

    def _resample(self, seat: int, rng: random.Random) -> State:
        """Redraw the ids of the zoo cards on the board (and undealt), keeping faces seen.

        Uppermost cards keep their public face value (once the deal is over); covered
        bottom cards and undealt cards are drawn from the rest. The deal steps of the
        history are rewritten accordingly.
        """
        other = self.clone()
        assert isinstance(other, CarsonCityZooState)
        show_faces = self.phase != DEAL
        bottom, top = self.bottom, self.top
        key = (show_faces, tuple(bottom), tuple(top), tuple(self.undealt))
        board = _BOARD_DRAWS.get(key)
        if board is None:
            visible: list[tuple[int, int]] = []  # (slot, face value)
            hidden: list[int] = []
            pool: list[int] = list(self.undealt)
            for s in range(NUM_SPACES):  # slots in order: bottom of s, then top of s
                b, t = bottom[s], top[s]
                if b >= 0:
                    pool.append(b)
                    if show_faces and t < 0:  # uppermost
                        visible.append((s, CARD_VALUE[b]))
                    else:
                        hidden.append(s)
                if t >= 0:
                    pool.append(t)
                    if show_faces:
                        visible.append((NUM_SPACES + s, CARD_VALUE[t]))
                    else:
                        hidden.append(NUM_SPACES + s)
            board = BoardDraw(pool, visible, hidden)
            if len(_BOARD_DRAWS) >= _BOARD_DRAWS_MAX:
                _BOARD_DRAWS.clear()
            _BOARD_DRAWS[key] = board
        drawn, rest = board.draw(rng)
        new_deal = other.dealt
        other.undealt = rest
        new_bottom, new_top = other.bottom, other.top
        for slot, card in zip(board.slots, drawn, strict=True):
            new_deal[slot] = card
            if slot < NUM_SPACES:
                new_bottom[slot] = card
            else:
                new_top[slot - NUM_SPACES] = card
        dealt = len(new_deal)
        if len(self.history) >= dealt and all(isinstance(a, Deal) for a in self.history[:dealt]):
            other.history = [DEAL_ACTIONS[c] for c in new_deal] + self.history[dealt:]
        other._fields_changed()
        # Only card ids changed: which spaces hold a card, the characters and the turn did
        # not, so the legal actions are the same (search bots resample once per iteration).
        if self._legal is None and self.phase == PLAY:
            self._legal = self._legal_actions()  # a cache, as ``is_legal`` fills it
        other._legal = self._legal
        return other

    # -- observation -------------------------------------------------------------

    def top_value(self, s: int) -> int:
        """The face value of the uppermost zoo card of space ``s`` (-1 if none or dealing)."""
        if self.phase == DEAL:
            return -1
        card = self.top[s]
        if card < 0:
            card = self.bottom[s]
        return CARD_VALUE[card] if card >= 0 else -1

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        names = self.roster.names
        spaces: list[JSON] = []
        for s in range(NUM_SPACES):
            o = self.occupant[s]
            spaces.append(
                {
                    "space": s,
                    "row": s // SIZE,
                    "col": s % SIZE,
                    "cards": (self.bottom[s] >= 0) + (self.top[s] >= 0),
                    "top_value": self.top_value(s),
                    "occupant": names[o] if o >= 0 else "",
                    "mutated": o >= 0 and self.mutated[o],
                }
            )
        players: list[JSON] = []
        found = [False] * 4
        totals: list[JSON] = []
        for p in range(self.num_players):
            cs = range(4 * p, 4 * p + 4)
            for card in self.zoo_piles[p]:
                if CARD_MUTANT[card]:
                    found[CARD_VALUE[card]] = True
            entry: dict[str, JSON] = {
                "seat": p,
                "team": self.teams[p],
                "hand": [names[c] for c in cs if self.character_space[c] == IN_HAND],
                "on_board": [names[c] for c in cs if self.character_space[c] >= 0],
                "zoo_pile": [
                    {"id": CARD_IDS[z], "value": CARD_VALUE[z], "mutant": CARD_MUTANT[z]}
                    for z in self.zoo_piles[p]
                ],
                "character_pile": [
                    {"id": names[c], "value": c % 4 + 3, "mutated": self.mutated[c]}
                    for c in self.character_piles[p]
                ],
            }
            breakdown = self.breakdown(p)
            entry.update(breakdown)
            players.append(entry)
            totals.append(breakdown["total"])
        return {
            "you": seat,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player,
            "scores": totals,
            "start_player": self.start_player if self.phase >= PLAY else -1,
            "cards_dealt": len(self.dealt),
            "spaces": spaces,
            "players": players,
            "mutant_found": found,
        }

    def render(self, seat: int | None = None) -> str:
        return render_observation(self.observation(seat))
