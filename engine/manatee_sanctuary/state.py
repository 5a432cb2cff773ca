"""The game state and its flow: setup, draft, expand-or-act, feeding, scoring (spec 4-5).

Phase-specific rules live in :mod:`.draft` (phase 1, solo and challenges), :mod:`.play`
(phase 2 and 3: act, expand, returns, feeding), :mod:`.scoring`, :mod:`.view`
(observation, render) and :mod:`.hidden` (resample). This module holds the data and the
state machine that strings the phases together.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from engine.core import CHANCE, JSON, TERMINAL, Action, Result, State
from engine.manatee_sanctuary import draft, hidden, play, scoring, view
from engine.manatee_sanctuary.actions import BAG_DRAWS, bonus_action, deals_for
from engine.manatee_sanctuary.data import (
    BAG_SCRAMBLE,
    BAG_STANDARD,
    BONUS_IDS,
    CARD_ID,
    CATEGORIES,
    NUM_CARDS,
    SEACOW_FIRST,
    START_HABITAT,
)
from engine.manatee_sanctuary.geometry import Sanctuary

if TYPE_CHECKING:
    from engine.core import Game

from engine.manatee_sanctuary.phases import (  # noqa: F401  (re-exported)
    PH_BONUS,
    PH_DEAL,
    PH_DISCARD,
    PH_DRAW,
    PH_END,
    PH_KEEP,
    PH_PLAY,
    PH_POWER,
    PH_RETURN_FOOD,
    PH_RETURN_SPACE,
    PH_SOLO_DRAW,
    PH_SOLO_PICK,
    PH_SPLIT,
    PHASE_OF_STEP,
    STEP_NAMES,
)


class Player:
    """One player's public and private data."""

    __slots__ = (
        "capacity",
        "flowers",
        "food",
        "hand",
        "housed",
        "origin",
        "pile",
        "sanct",
        "score",
    )

    def __init__(self) -> None:
        self.score: list[int] = [0] * len(CATEGORIES)
        self.score[0] = 10
        self.food = 0
        self.flowers: list[int] = [0, 0, 0]  # red, green, purple
        self.housed: list[int] = [0, 0, 0]  # grey, pink, yellow
        self.pile: list[int] = []  # action pile, in play order
        self.hand: list[int] = []  # sorted card indices
        self.origin: dict[int, int] = {}  # card in hand -> seat whose deal it came from
        self.sanct = Sanctuary()
        self.capacity = START_HABITAT

    def copy(self) -> Player:
        o = Player.__new__(Player)
        o.score = list(self.score)
        o.food = self.food
        o.flowers = list(self.flowers)
        o.housed = list(self.housed)
        o.pile = list(self.pile)
        o.hand = list(self.hand)
        o.origin = dict(self.origin)
        o.sanct = self.sanct.copy()
        o.capacity = self.capacity
        return o

    def usage(self) -> int:
        h = self.housed
        return h[0] + h[1] + 2 * h[2]

    def need(self) -> int:
        h = self.housed
        return h[0] + 2 * h[1] + h[2]


class ManateeState(State):
    """A Manatee Sanctuary position (all modes)."""

    # configuration
    n: int
    solo: bool
    scramble: bool
    bonuses_on: bool
    challenge: int
    # progress
    round: int
    phase: int
    cur: int
    deck: list[int]
    bag: list[int]
    bonus: list[int]
    players: list[Player]
    # draft (multiplayer)
    deal_seat: int
    dealt: list[list[int]]
    split: list[list[int] | None]
    stacks: list[list[list[int]]]
    keep: list[int]
    split_size: list[int]
    kept: list[int]
    # solo
    token: int
    offer: list[int]
    picks: int
    discards: list[int]
    power_used: bool
    discard_max: bool
    saver_lost: bool
    # phase 2/3
    turn: int
    res: list[int] | None
    deficit: int
    feed_seat: int

    _FIELDS = (
        "n",
        "solo",
        "scramble",
        "bonuses_on",
        "challenge",
        "round",
        "phase",
        "cur",
        "deal_seat",
        "token",
        "picks",
        "power_used",
        "discard_max",
        "saver_lost",
        "turn",
        "deficit",
        "feed_seat",
    )

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        self._pub: tuple[dict[str, JSON], list[dict[str, JSON]]] | None = None
        n = num_players
        self.n = n
        self.solo = n == 1
        self.scramble = bool(options.get("scramble", False))
        self.bonuses_on = bool(options.get("round_bonuses", False))
        self.challenge = int(options.get("solo_challenge", 0) or 0)
        self.round = 1
        self.deck = (
            list(range(NUM_CARDS)) if self.scramble else list(range(SEACOW_FIRST, NUM_CARDS))
        )
        self.bag = list(BAG_SCRAMBLE if self.scramble else BAG_STANDARD)
        self.bonus = [-1, -1, -1]
        self.players = [Player() for _ in range(n)]
        self.deal_seat = 0
        self.dealt = [[] for _ in range(n)]
        self.split = [None] * n
        self.stacks = []
        self.keep = [-1] * n
        self.split_size = [-1] * n
        self.kept = [-1] * n
        self.token = 0
        self.offer = []
        self.picks = 0
        self.discards = []
        self.power_used = False
        self.discard_max = False
        self.saver_lost = False
        self.turn = -1
        self.res = None
        self.deficit = 0
        self.feed_seat = 0
        if self.bonuses_on:
            self.phase = PH_BONUS
            self.cur = CHANCE
        else:
            self.start_draft()

    # -- flow ------------------------------------------------------------------

    def phase_is_end(self) -> bool:
        return self.phase == PH_END

    def passer(self, seat: int, rnd: int | None = None) -> int:
        """The seat that passes to ``seat`` (rounds 1, 3: from the right; round 2: left)."""
        r = self.round if rnd is None else rnd
        return (seat - 1) % self.n if r != 2 else (seat + 1) % self.n

    def receiver(self, seat: int) -> int:
        return (seat + 1) % self.n if self.round != 2 else (seat - 1) % self.n

    def start_draft(self) -> None:
        self.split_size = [-1] * self.n
        self.kept = [-1] * self.n
        if self.solo:
            self.phase = PH_SOLO_DRAW
            self.picks = 0
            self.offer = []
        else:
            self.phase = PH_DEAL
            self.deal_seat = 0
            self.dealt = [[] for _ in range(self.n)]
        self.cur = CHANCE

    def start_play(self) -> None:
        """Phase 2 starts with seat (round - 1) mod N (D14)."""
        play.next_turn(self, (self.round - 2) % self.n)

    def finish_round(self) -> None:
        scoring.score_round(self)
        if self.round == 3:
            self.phase = PH_END
            self.cur = TERMINAL
            return
        self.round += 1
        self.start_draft()

    # -- contract ------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.cur

    def _legal_actions(self) -> list[Action]:
        ph = self.phase
        if ph == PH_PLAY:
            return play.legal_plays(self)
        if ph in (PH_RETURN_SPACE, PH_RETURN_FOOD):
            return play.legal_returns(self)
        return draft.legal_draft(self)

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        ph = self.phase
        if ph == PH_DRAW:
            bag = self.bag
            total = bag[0] + bag[1] + bag[2]
            return [(BAG_DRAWS[c], bag[c] / total) for c in range(3) if bag[c]]
        if ph == PH_DEAL:
            deals = deals_for(self.deal_seat)
            p = 1.0 / len(self.deck)
            return [(deals[c], p) for c in self.deck]
        if ph == PH_SOLO_DRAW:
            from engine.manatee_sanctuary.actions import SOLO_DRAWS

            p = 1.0 / len(self.deck)
            return [(SOLO_DRAWS[c], p) for c in self.deck]
        if ph == PH_BONUS:
            rnd = next(r for r in range(3) if self.bonus[r] < 0) + 1
            left = [b for b in range(len(BONUS_IDS)) if b not in self.bonus]
            p = 1.0 / len(left)
            return [(bonus_action(rnd, b), p) for b in left]
        return []

    def is_legal(self, action: Action) -> bool:
        if self.cur == CHANCE:
            return draft.chance_ok(self, action)
        return super().is_legal(action)

    def _apply(self, action: Action) -> None:
        self._pub = None
        kind = action.KIND
        if kind in ("act", "expand", "bag_draw", "return"):
            play.apply_play(self, action)
        else:
            draft.apply_draft(self, action)

    def _illegal_reason(self, action: Action) -> str:
        reason = view.illegal_reason(self, action)
        return reason if reason is not None else super()._illegal_reason(action)

    def clone(self) -> ManateeState:
        return super().clone()  # type: ignore[return-value]

    def _copy_into(self, other: State) -> None:
        o: Any = other
        o._pub = self._pub
        for f in self._FIELDS:
            setattr(o, f, getattr(self, f))
        o.deck = list(self.deck)
        o.bag = list(self.bag)
        o.bonus = list(self.bonus)
        o.players = [p.copy() for p in self.players]
        o.dealt = [list(d) for d in self.dealt]
        o.split = [None if s is None else list(s) for s in self.split]
        o.stacks = [[list(a), list(b)] for a, b in self.stacks]
        o.keep = list(self.keep)
        o.split_size = list(self.split_size)
        o.kept = list(self.kept)
        o.offer = list(self.offer)
        o.discards = list(self.discards)
        o.res = None if self.res is None else list(self.res)

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        return view.observation(self, seat)

    def render(self, seat: int | None = None) -> str:
        return view.render(self, seat)

    def _result(self) -> Result:
        bds = [scoring.breakdown(self, i) for i in range(self.n)]
        totals = [b["total"] for b in bds]
        ranks = scoring.ranks(
            totals,
            [sum(p.housed) for p in self.players],
            [p.food for p in self.players],
        )
        scores: list[float] = list(totals)
        breakdowns: list[dict[str, float]] = [dict(b) for b in bds]
        return Result(scores, breakdowns, ranks)

    def _full_state(self) -> JSON:
        ids = CARD_ID

        def cards(lst: list[int]) -> str:
            return " ".join([ids[c] for c in lst])

        return {
            "config": [self.n, self.solo, self.scramble, self.bonuses_on, self.challenge],
            "flow": [self.round, self.phase, self.cur, self.deal_seat, self.turn],
            "deck": cards(self.deck),
            "bag": list(self.bag),
            "bonus": list(self.bonus),
            "draft": [
                [cards(d) for d in self.dealt],
                [None if sp is None else cards(sp) for sp in self.split],
                [[cards(a), cards(b)] for a, b in self.stacks],
                list(self.keep),
                list(self.split_size),
                list(self.kept),
            ],
            "solo": [
                self.token,
                cards(self.offer),
                self.picks,
                cards(self.discards),
                self.power_used,
                self.discard_max,
                self.saver_lost,
            ],
            "res": self.res,
            "ret": [self.deficit, self.feed_seat],
            "players": [
                [
                    p.score,
                    p.food,
                    p.flowers,
                    p.housed,
                    cards(p.pile),
                    " ".join([f"{ids[c]}/{p.origin[c]}" for c in p.hand]),
                    " ".join([f"{ids[c]}@{x},{y}r{r}" for c, x, y, r in p.sanct.placements]),
                    p.capacity,
                ]
                for p in self.players
            ],
        }

    def _resample(self, seat: int, rng: random.Random) -> State:
        return hidden.resample(self, seat, rng)
