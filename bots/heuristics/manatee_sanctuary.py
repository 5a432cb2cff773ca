"""Manatee Sanctuary: score, the points housed manatees will still earn, and food balance.

The estimate of a seat's final score, from what the seat itself observes (its hand and
draft cards included; search bots only evaluate determinizations), read from the state's
fields (:meth:`Seat.of`, :meth:`Draft.of`) rather than from an observation per evaluation:

* its score so far;
* the housed manatees scored in every scoring phase still to come (3/6/3, 2/4/2, 1/2/1
  points for grey/pink/yellow in rounds 1/2/3) and its end-game scoring cards applied
  to them;
* the **food balance**: food now plus the harvests its hand can still bring, against
  the feeding need (grey + yellow + 2 × pink) of every feeding still to come; a
  shortfall forces returns, each costing 2 points and the returned manatee's future
  points (later rounds, with more uncertain income, count a bit less);
* a small value for free habitat space and for completed flowers (future harvests);
* the cards still in hand, each at the better of its halves: rescue icons at the net
  value of a manatee (its points minus its food), harvest icons at the food they bring,
  the expansion at its flowers, food and habitat;
* in the draft, the hand it will end up with: a split is worth the weaker of its two
  stacks (the receiver keeps the better one), a keep the chosen stack.

The rollout policy acts or expands with the better of the same card values, keeps the
better stack, splits the five cards into the most balanced stacks, and returns the
cheapest manatees.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from itertools import combinations

from bots.heuristics.base import Heuristic
from engine import Action, State
from engine.manatee_sanctuary.actions import Act, Expand, Keep, Return, Split
from engine.manatee_sanctuary.data import (
    CARD_INDEX,
    ENDGAME,
    HABITAT,
    N_HARVEST,
    N_RESCUE,
    RETURN_PENALTY,
    ROUND_POINTS,
)
from engine.manatee_sanctuary.observation import STACK_NAMES
from engine.manatee_sanctuary.player import food_need
from engine.manatee_sanctuary.scoring import endgame_card_points
from engine.manatee_sanctuary.state import ManateeSanctuaryState
from engine.manatee_sanctuary.steps import KEEP, PHASE_OF_STEP, SPLIT

FUTURE_SHORTFALL_WEIGHT = 0.6
FREE_SPACE_WEIGHT = 0.3
"""Value of one free habitat space (room for future rescues)."""
HAND_WEIGHT = 0.6
ENDGAME_CARD_VALUE = 4.0
TYPICAL_CARD = CARD_INDEX["S46"]
"""A card of typical value, standing for each card of a stack not seen yet."""


def rounds_to_score(round_: int, step: int) -> list[int]:
    """The rounds whose scoring phase is still to come (at ``round_``, step ``step``)."""
    return list(_rounds(round_, step))


@functools.cache
def _rounds(round_: int, step: int) -> tuple[int, ...]:
    """:func:`rounds_to_score` as a tuple, worked out once per round and step."""
    if PHASE_OF_STEP[step] == "game_over":
        return ()
    return tuple(range(round_, 4))


_CARD_VALUES: dict[tuple[int, int, tuple[int, ...]], dict[int, float]] = {}
""":meth:`Seat.card_value`'s values (card -> value) by what they depend on: free habitat
space, completed flowers and the rounds still to score (bounded: cleared when full)."""
_CARD_VALUES_MAX = 4096
_VALUERS: dict[tuple[int, int, tuple[int, ...]], Seat] = {}
"""The first :meth:`Seat.of` made for each key of :data:`_CARD_VALUES` (see
:meth:`Seat.valuer`; bounded like it)."""


class Seat:
    """The numbers of one seat that the estimate works with."""

    def __init__(
        self,
        score: float,
        food: float,
        flowers: int,
        housed: tuple[int, int, int],
        capacity: int,
        usage: int,
        endgame: list[str],
        rounds: list[int],
    ) -> None:
        self.score = score
        self.food = food
        self.flowers = flowers
        """Completed flowers of all colours."""
        self.housed = housed
        """Housed grey, pink and yellow manatees."""
        self.capacity = capacity
        self.usage = usage
        """Habitat spaces the housed manatees take."""
        self.endgame = endgame
        """The end-game scoring kind of each card in the sanctuary (``ENDGAME``)."""
        self.rounds = rounds
        """The rounds whose scoring phase is still to come."""
        self._points = self._points_per()
        self._net = max(0.0, self._points[0] - 0.7 * len(self.rounds))
        # card_value depends on the free space, the flowers and the rounds to come only:
        # seats with the same share the values (rollouts build a Seat per decision)
        key = (max(0, capacity - usage), flowers, tuple(rounds))
        values = _CARD_VALUES.get(key)
        if values is None:
            if len(_CARD_VALUES) >= _CARD_VALUES_MAX:
                _CARD_VALUES.clear()
            values = _CARD_VALUES[key] = {}
        self._values = values

    @classmethod
    def of(cls, state: ManateeSanctuaryState, seat: int) -> Seat:
        """Seat ``seat``'s numbers, read from the state's fields: the same as its entry
        of any observation shows (public), without building one per evaluation."""
        p = state.players[seat]
        h = p.housed
        return cls(
            score=float(sum(p.points)),  # scoring.breakdown's total
            food=float(p.food),
            flowers=sum(p.flowers),
            housed=(h[0], h[1], h[2]),
            capacity=p.capacity,
            usage=p.usage(),
            endgame=[ENDGAME[c] for c, _x, _y, _r in p.sanctuary.placements],
            rounds=rounds_to_score(state.round, state.step),
        )

    @classmethod
    def valuer(cls, state: ManateeSanctuaryState, seat: int) -> Seat:
        """A seat whose :meth:`card_value` is seat ``seat``'s: the card values depend on
        its free space, flowers and rounds to come only, so the first seat made with the
        same is kept and handed out again (the rollout's split and keep value cards only)."""
        p = state.players[seat]
        key = (max(0, p.capacity - p.usage()), sum(p.flowers), _rounds(state.round, state.step))
        me = _VALUERS.get(key)
        if me is None:
            if len(_VALUERS) >= _CARD_VALUES_MAX:
                _VALUERS.clear()
            me = _VALUERS[key] = cls.of(state, seat)
        return me

    def need(self) -> int:
        return food_need(self.housed)

    def points_per(self) -> tuple[float, float, float]:
        """Future round points of one grey, pink and yellow manatee."""
        return self._points

    def _points_per(self) -> tuple[float, float, float]:
        return points_per(tuple(self.rounds))

    def endgame_points(self) -> float:
        return float(sum(endgame_card_points(kind, self.housed) for kind in self.endgame))

    def manatee_net(self) -> float:
        """Net future value of one more (random) manatee: its points minus its food."""
        return self._net

    def card_value(self, c: int) -> float:
        """The better half of card ``c`` (an index) in hand (see the module docstring)."""
        known = self._values.get(c)
        if known is not None:
            return known
        free = max(0, self.capacity - self.usage)
        act = min(N_RESCUE[c], free + 1) * self.manatee_net() + N_HARVEST[c] * self.flowers * 0.6
        habitat_value = FREE_SPACE_WEIGHT * HABITAT[c] * (1.0 if len(self.rounds) > 1 else 0.5)
        expand = 1.5 + habitat_value + (ENDGAME_CARD_VALUE if ENDGAME[c] else 0.0)
        value = self._values[c] = max(act, expand)
        return value

    def food_balance(self, harvest: float) -> float:
        """Expected points lost to feeding shortfalls (<= 0)."""
        if not self.rounds:
            return 0.0
        g_pts, p_pts, y_pts = self.points_per()
        need = self.need()
        per_food = RETURN_PENALTY + min(
            g_pts if self.housed[0] else 1e9,
            p_pts / 2 if self.housed[1] else 1e9,
            y_pts if self.housed[2] else 1e9,
        )
        if per_food > 1e8:
            return 0.0
        food = self.food + harvest
        loss = max(0.0, need - food) * per_food
        carry = max(0.0, food - need)
        later_per_food = max(RETURN_PENALTY, per_food - g_pts / max(1, len(self.rounds)))
        for _ in self.rounds[1:]:
            income = 1.5 * self.flowers + 1.0
            short = max(0.0, need - carry - income)
            loss += FUTURE_SHORTFALL_WEIGHT * short * later_per_food
            carry = max(0.0, carry + income - need)
        return -loss

    def estimate(self, hand: Sequence[int], hand_value: float) -> float:
        g_pts, p_pts, y_pts = self.points_per()
        g, p, y = self.housed
        est = self.score + g * g_pts + p * p_pts + y * y_pts + self.endgame_points()
        harvest = sum(N_HARVEST[c] for c in hand) * self.flowers * 0.7
        est += self.food_balance(harvest)
        if len(self.rounds) > 1:
            est += FREE_SPACE_WEIGHT * min(6, max(0, self.capacity - self.usage))
            est += 0.3 * self.flowers
        return est + HAND_WEIGHT * hand_value


@functools.cache
def points_per(rounds: tuple[int, ...]) -> tuple[float, float, float]:
    """Points of one grey, pink and yellow manatee over the scoring phases of ``rounds``."""
    g = sum(float(ROUND_POINTS[r - 1][0]) for r in rounds)
    p = sum(float(ROUND_POINTS[r - 1][1]) for r in rounds)
    y = sum(float(ROUND_POINTS[r - 1][2]) for r in rounds)
    return g, p, y


def stack_value(seat: Seat, cards: Sequence[int]) -> float:
    value = seat.card_value
    return sum([value(c) for c in cards])


def split_value(seat: Seat, dealt: Sequence[int], small: Sequence[int]) -> float:
    """What a split leaves the splitter: the weaker stack (the receiver keeps the better)."""
    large = [c for c in dealt if c not in small]
    return min(stack_value(seat, small), stack_value(seat, large))


def best_split(seat: Seat, dealt: Sequence[int]) -> float:
    options = [list(s) for k in (1, 2) for s in combinations(dealt, k)]
    return max(split_value(seat, dealt, s) for s in options) if options else 0.0


class Draft:
    """What one seat knows of the draft in progress (as its observation shows it)."""

    def __init__(
        self,
        dealt: Sequence[int] = (),
        mine: Sequence[int] = (),
        small: Sequence[int] = (),
        large: Sequence[int] = (),
        keep: str = "",
    ) -> None:
        self.dealt = dealt
        """Its dealt cards, ascending (split step; keep step: both its stacks)."""
        self.mine = mine
        """Its committed small stack ([] before it commits)."""
        self.small = small
        """The small stack received from its passer (keep step)."""
        self.large = large
        """The large stack received from its passer (keep step)."""
        self.keep = keep
        """Its committed keep: "small", "large" or "" (not yet)."""

    @classmethod
    def of(cls, state: ManateeSanctuaryState, seat: int) -> Draft:
        """Seat ``seat``'s view of the split or keep step (observation's ``dealt``,
        ``my_split``, ``received_small``/``large``, ``my_keep``), read from the state."""
        step = state.step
        if step == SPLIT:
            return cls(state.dealt[seat], state.splits[seat] or ())
        if step == KEEP:
            small, large = state.stacks[seat]
            giver = state.stacks[state.passer(seat)]
            keep = state.keep_choices[seat]
            return cls(
                sorted(small + large),
                small,
                giver[0],
                giver[1],
                STACK_NAMES[keep] if keep >= 0 else "",
            )
        return cls()


def draft_hand_value(seat: Seat, draft: Draft) -> float:
    """Expected value of the hand a seat will hold after the draft."""
    dealt, mine, small, large = draft.dealt, draft.mine, draft.small, draft.large
    average_stack = 2.5 * seat.card_value(TYPICAL_CARD)  # for unseen stacks
    own = split_value(seat, dealt, mine) if dealt and mine else 0.0
    if dealt and not mine:
        own = best_split(seat, dealt)
    if small or large:
        if draft.keep == "small":
            got = stack_value(seat, small)
        elif draft.keep == "large":
            got = stack_value(seat, large)
        else:
            got = max(stack_value(seat, small), stack_value(seat, large))
        return own + got
    return own + average_stack


class ManateeHeuristic(Heuristic):
    game_id = "manatee_sanctuary"
    scale = 12.0
    samples = 2

    def forget(self) -> None:
        _CARD_VALUES.clear()
        _VALUERS.clear()

    def estimate(self, state: State) -> list[float]:
        if state.is_terminal():
            return [float(s) for s in state.result().scores]
        st = _manatee(state)
        drafting = st.step in (SPLIT, KEEP)
        out = []
        for seat in range(st.num_players):
            me = Seat.of(st, seat)
            hand = st.players[seat].hand
            draft = Draft.of(st, seat) if drafting else None
            value = draft_hand_value(me, draft) if draft is not None else stack_value(me, hand)
            out.append(me.estimate(hand, value))
        return out

    def rollout_action(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        match legal[0]:
            case Act() | Expand():
                return self._rollout_play(state, legal, rng)
            case Return():
                return min(legal, key=_return_cost)
            case Split():
                seat = state.current_player
                st = _manatee(state)
                me = Seat.valuer(st, seat)
                value = me.card_value
                # split_value with each dealt card valued once (15 splits of the same 5)
                dealt = [(c, value(c)) for c in st.dealt[seat]]

                def split_key(a: Action) -> float:
                    small = [CARD_INDEX[c] for c in a.small] if isinstance(a, Split) else []
                    weaker = min(
                        sum([value(c) for c in small]),
                        sum([v for c, v in dealt if c not in small]),
                    )
                    return weaker + rng.random() * 0.5

                return max(legal, key=split_key)
            case Keep():
                seat = state.current_player
                st = _manatee(state)
                me = Seat.valuer(st, seat)
                # the stacks received (Draft.of's small and large, without the rest of it)
                received = st.stacks[st.passer(seat)] if st.step == KEEP else ((), ())
                small = stack_value(me, received[0])
                large = stack_value(me, received[1])
                want = Keep("small" if small > large else "large")
                return next((a for a in legal if a == want), legal[0])
        return legal[rng.randrange(len(legal))]

    def _rollout_play(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        """Act or expand with the better of the card values (see the module docstring).

        Reads the acting seat's numbers from the state (free space, flowers, the net
        value of one more manatee): the same as :class:`Seat` computes from an
        observation, without building one per rollout step."""
        state = _manatee(state)
        seat = state.current_player
        player = state.players[seat]
        free = max(0, player.capacity - player.usage())
        flowers = sum(player.flowers)
        net = manatee_net(state.round, state.step)
        best, best_v = legal[0], -1e9
        # an expand is listed once per placement of its card: value each card once
        acts: dict[str, float] = {}
        expands = EXPAND_VALUE
        known: float | None
        for a in legal:
            if type(a) is Expand:
                known = expands[a.card]
            elif type(a) is Act:
                known = acts.get(a.card)
                if known is None:
                    c = CARD_INDEX[a.card]
                    known = acts[a.card] = (
                        min(N_RESCUE[c], free) * net + N_HARVEST[c] * flowers * 0.6
                    )
            else:
                continue
            v = known + rng.random()
            if v > best_v:
                best, best_v = a, v
        return best


EXPAND_VALUE: dict[str, float] = {
    card: 1.5 + FREE_SPACE_WEIGHT * HABITAT[c] + (ENDGAME_CARD_VALUE if ENDGAME[c] else 0)
    for card, c in CARD_INDEX.items()
}
"""The rollout policy's value of expanding with a card (by id): it depends on the card
alone, so it is worked out once, not once per placement listed."""


@functools.cache
def manatee_net(round_: int, step: int) -> float:
    """Net future value of one more (random) manatee: the grey points of the scoring
    phases to come minus 0.7 food per phase (:meth:`Seat.manatee_net`)."""
    rounds = rounds_to_score(round_, step)
    grey = sum(float(ROUND_POINTS[r - 1][0]) for r in rounds)
    return max(0.0, grey - 0.7 * len(rounds))


def _return_cost(a: Action) -> tuple[int, int]:
    """Cheapest in points: greys before yellows before pinks, fewest manatees."""
    if not isinstance(a, Return):
        return (1 << 30, 0)
    return (4 * a.pink + 2 * a.yellow + a.grey, a.grey + a.pink)


def _manatee(state: State) -> ManateeSanctuaryState:
    """``state`` as a Manatee Sanctuary state: the heuristic reads its fields."""
    if not isinstance(state, ManateeSanctuaryState):
        raise TypeError(f"the Manatee heuristic needs its state, got {type(state)!r}")
    return state


HEURISTIC = ManateeHeuristic()
