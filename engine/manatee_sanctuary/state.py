"""The game state and its flow: setup, draft, expand-or-act, feeding, scoring (spec 4-5).

The phase rules live in :mod:`.draft` (phase 1, solo and challenges), :mod:`.play`
(phases 2 and 3: act, expand, returns, feeding) and :mod:`.scoring`; what a seat sees in
:mod:`.observation`, :mod:`.render` and :mod:`.hidden` (resample). This module declares
the state's fields and strings the phases together.

The digest keeps the layout of version 1 (a few positional lists, cards as ids): each
field declares its place in it with :class:`engine.fields.Digest`.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Annotated, cast

from engine.core import CHANCE, JSON, TERMINAL, Action, Result, State
from engine.fields import Digest
from engine.manatee_sanctuary import draft, hidden, play, scoring
from engine.manatee_sanctuary import steps as st
from engine.manatee_sanctuary.actions import (
    BAG_DRAW_COLOUR,
    BAG_DRAWS,
    SOLO_DRAWS,
    Act,
    BagDraw,
    Deal,
    Discard,
    Expand,
    Keep,
    PowerCap,
    Return,
    RoundBonus,
    SoloDraw,
    SoloPick,
    Split,
    bonus_action,
    deals_for,
)
from engine.manatee_sanctuary.data import (
    BAG_SCRAMBLE,
    BAG_STANDARD,
    BONUS_IDS,
    CARD_INDEX,
    NUM_CARDS,
    SEACOW_FIRST,
    cards_text,
)
from engine.manatee_sanctuary.observation import PublicView, observation
from engine.manatee_sanctuary.play import PendingAct
from engine.manatee_sanctuary.player import Player
from engine.manatee_sanctuary.render import render as render_text

if TYPE_CHECKING:
    from engine.core import Game


def _card_lists_text(lists: list[list[int]]) -> list[str]:
    return [cards_text(cards) for cards in lists]


def _splits_text(splits: list[list[int] | None]) -> list[str | None]:
    return [None if small is None else cards_text(small) for small in splits]


def _stacks_text(stacks: list[list[list[int]]]) -> list[list[str]]:
    return [[cards_text(small), cards_text(large)] for small, large in stacks]


class ManateeSanctuaryState(State):
    """A Manatee Sanctuary position (all modes)."""

    # -- configuration (from the player count and options) ----------------------------
    seats: Annotated[int, Digest(key="config", at=0)]
    """The number of seats (``num_players``)."""
    solo: Annotated[bool, Digest(key="config", at=1)]
    """One player: the solo draft, the solo token and the challenges."""
    scramble: Annotated[bool, Digest(key="config", at=2)]
    """Sanctuary Scramble: both editions' cards (S and M) and the double bag."""
    bonus_module: Annotated[bool, Digest(key="config", at=3)]
    """The round-bonus module is on (option ``round_bonuses``)."""
    challenge: Annotated[int, Digest(key="config", at=4)]
    """The solo challenge 1-8 (0: none)."""

    # -- flow ----------------------------------------------------------------------------
    round: Annotated[int, Digest(key="flow", at=0)]
    """The round, 1-3."""
    step: Annotated[int, Digest(key="flow", at=1)]
    """The step due next (a constant of :mod:`.steps`)."""
    current: Annotated[int, Digest(key="flow", at=2)]
    """The seat to move, CHANCE or TERMINAL."""
    deal_seat: Annotated[int, Digest(key="flow", at=3)]
    """The seat the next deal goes to (deal step)."""
    turn: Annotated[int, Digest(key="flow", at=4)]
    """The turn pointer of the expand-or-act phase (-1 outside it)."""

    # -- components ----------------------------------------------------------------------
    deck: Annotated[list[int], Digest(encode=cards_text)]
    """The card indices in the deck, ascending (an unordered set: draws are chance nodes)."""
    bag: list[int]
    """Manatees in the bag: grey, pink, yellow."""
    round_bonus: Annotated[list[int], Digest(key="bonus")]
    """Per round, the index into BONUS_IDS of its bonus card (-1: none or not drawn yet)."""

    # -- multiplayer draft ---------------------------------------------------------------
    dealt: Annotated[list[list[int]], Digest(key="draft", at=0, encode=_card_lists_text)]
    """Each seat's dealt cards of this draft, ascending (deal and split steps)."""
    splits: Annotated[list[list[int] | None], Digest(key="draft", at=1, encode=_splits_text)]
    """Each seat's committed small stack in the split step (None until it commits)."""
    stacks: Annotated[list[list[list[int]]], Digest(key="draft", at=2, encode=_stacks_text)]
    """Each seat's [small, large] stacks in the keep step (empty otherwise)."""
    keep_choices: Annotated[list[int], Digest(key="draft", at=3)]
    """Each seat's committed keep in the keep step: 0 small, 1 large, -1 not yet."""
    split_size: Annotated[list[int], Digest(key="draft", at=4)]
    """Each seat's small-stack size in this round's draft (-1 before the split resolves)."""
    kept: Annotated[list[int], Digest(key="draft", at=5)]
    """The stack each seat kept this round: 0 small, 1 large, -1 before the keep resolves."""

    # -- solo ----------------------------------------------------------------------------
    solo_token: Annotated[int, Digest(key="solo", at=0)]
    """The solo token's position (points at this round's scoring)."""
    solo_offer: Annotated[list[int], Digest(key="solo", at=1, encode=cards_text)]
    """The revealed cards of the solo draft (0-2)."""
    solo_picks: Annotated[int, Digest(key="solo", at=2)]
    """Cards picked in this round's solo draft (0-5)."""
    solo_discards: Annotated[list[int], Digest(key="solo", at=3, encode=cards_text)]
    """Cards out of the game face up (solo picks' other card, challenge discards; O1)."""
    power_cap_used: Annotated[bool, Digest(key="solo", at=4)]
    """Challenge 5: the Power Cap discard has been used."""
    discard_most_dots: Annotated[bool, Digest(key="solo", at=5)]
    """The pending challenge discard takes a card with the most dots (else fewest)."""
    saver_lost: Annotated[bool, Digest(key="solo", at=6)]
    """Challenge 8 (Manatee Saver): a manatee was returned, the challenge is lost."""

    # -- expand or act, feeding ----------------------------------------------------------
    resolving: Annotated[PendingAct | None, Digest(key="res")]
    """The act being resolved (None between acts)."""
    return_deficit: Annotated[int, Digest(key="ret", at=0)]
    """Spaces or food the pending return must cover (0 when none is due)."""
    feed_seat: Annotated[int, Digest(key="ret", at=1)]
    """The next seat to feed in the feeding phase."""

    players: list[Player]
    """Each seat's score, food, manatees, cards and sanctuary."""

    public_cache: Annotated[PublicView | None, Digest(skip=True)]
    """The public part of the observation, built on demand until the next step."""

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        n = num_players
        self.seats = n
        self.solo = n == 1
        self.scramble = bool(options.get("scramble", False))
        self.bonus_module = bool(options.get("round_bonuses", False))
        self.challenge = int(options.get("solo_challenge", 0) or 0)
        self.round = 1
        self.deal_seat = 0
        self.turn = -1
        self.deck = (
            list(range(NUM_CARDS)) if self.scramble else list(range(SEACOW_FIRST, NUM_CARDS))
        )
        self.bag = list(BAG_SCRAMBLE if self.scramble else BAG_STANDARD)
        self.round_bonus = [-1, -1, -1]
        self.dealt = [[] for _ in range(n)]
        self.splits = [None] * n
        self.stacks = []
        self.keep_choices = [-1] * n
        self.split_size = [-1] * n
        self.kept = [-1] * n
        self.solo_token = 0
        self.solo_offer = []
        self.solo_picks = 0
        self.solo_discards = []
        self.power_cap_used = False
        self.discard_most_dots = False
        self.saver_lost = False
        self.resolving = None
        self.return_deficit = 0
        self.feed_seat = 0
        self.players = [Player() for _ in range(n)]
        self.public_cache = None
        if self.bonus_module:
            self.step = st.ROUND_BONUS
            self.current = CHANCE
        else:
            self.start_draft()

    # -- flow ------------------------------------------------------------------------

    def passer(self, seat: int, rnd: int | None = None) -> int:
        """The seat that passes to ``seat`` (rounds 1, 3: from the right; round 2: left)."""
        r = self.round if rnd is None else rnd
        return (seat - 1) % self.seats if r != 2 else (seat + 1) % self.seats

    def receiver(self, seat: int) -> int:
        """The seat ``seat`` passes its stacks to."""
        return (seat + 1) % self.seats if self.round != 2 else (seat - 1) % self.seats

    def start_draft(self) -> None:
        n = self.seats
        self.split_size = [-1] * n
        self.kept = [-1] * n
        if self.solo:
            self.step = st.SOLO_DRAW
            self.solo_picks = 0
            self.solo_offer = []
        else:
            self.step = st.DEAL
            self.deal_seat = 0
            self.dealt = [[] for _ in range(n)]
        self.current = CHANCE

    def start_play(self) -> None:
        """Phase 2 starts with seat (round - 1) mod N (D14)."""
        play.next_turn(self, (self.round - 2) % self.seats)

    def finish_round(self) -> None:
        scoring.score_round(self)
        if self.round == 3:
            self.step = st.GAME_OVER
            self.current = TERMINAL
            return
        self.round += 1
        self.start_draft()

    # -- contract ----------------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.current

    def _fields_changed(self) -> None:
        super()._fields_changed()
        self.public_cache = None

    def _legal_actions(self) -> list[Action]:
        step = self.step
        if step == st.PLAY:
            return play.legal_plays(self)
        if step in st.RETURNS:
            return play.legal_returns(self)
        return draft.legal_draft(self)

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        step = self.step
        if step == st.BAG_DRAW:
            bag = self.bag
            total = bag[0] + bag[1] + bag[2]
            return [(BAG_DRAWS[c], bag[c] / total) for c in range(3) if bag[c]]
        if step == st.DEAL:
            deals = deals_for(self.deal_seat)
            p = 1.0 / len(self.deck)
            return [(deals[c], p) for c in self.deck]
        if step == st.SOLO_DRAW:
            p = 1.0 / len(self.deck)
            return [(SOLO_DRAWS[c], p) for c in self.deck]
        if step == st.ROUND_BONUS:
            rnd = next(r for r in range(3) if self.round_bonus[r] < 0) + 1
            left = [b for b in range(len(BONUS_IDS)) if b not in self.round_bonus]
            p = 1.0 / len(left)
            return [(bonus_action(rnd, b), p) for b in left]
        return []

    def is_legal(self, action: Action) -> bool:
        if self.current == CHANCE:
            return self._is_chance_outcome(action)
        if self.step == st.PLAY:
            return play.is_legal_play(self, action)
        return super().is_legal(action)

    def _is_chance_outcome(self, action: Action) -> bool:
        """Whether ``action`` is one of the current chance outcomes (without listing them)."""
        step = self.step
        if isinstance(action, BagDraw):  # the most frequent, first (before the match)
            col = BAG_DRAW_COLOUR.get(action.colour)
            return step == st.BAG_DRAW and col is not None and self.bag[col] > 0
        match action:
            case Deal(seat=seat, card=card) if step == st.DEAL:
                return seat == self.deal_seat and draft.in_deck(self, card)
            case SoloDraw(card=card) if step == st.SOLO_DRAW:
                return draft.in_deck(self, card)
            case RoundBonus() if step == st.ROUND_BONUS:
                return any(o == action for o, _ in self._chance_outcomes())
        return False

    def _apply(self, action: Action) -> None:
        self.public_cache = None
        # the steps of play (most of a playout) first, without the match's pattern work
        if isinstance(action, BagDraw):
            play.bag_draw(self, BAG_DRAW_COLOUR[action.colour])
            return
        if isinstance(action, Act):
            play.act(self, CARD_INDEX[action.card])
            return
        match action:
            case Expand(card=card, x=x, y=y, rot=rot):
                play.expand(self, CARD_INDEX[card], x, y, rot)
            case Return(grey=grey, pink=pink, yellow=yellow):
                play.return_manatees(self, (grey, pink, yellow))
            case Deal(seat=seat, card=card):
                draft.deal(self, seat, CARD_INDEX[card])
            case Split(small=small):
                draft.split(self, [CARD_INDEX[c] for c in small])
            case Keep(stack=stack):
                draft.keep(self, 0 if stack == "small" else 1)
            case SoloDraw(card=card):
                draft.solo_draw(self, CARD_INDEX[card])
            case SoloPick(card=card):
                draft.solo_pick(self, CARD_INDEX[card])
            case PowerCap(now=now):
                draft.power_cap(self, now)
            case Discard(card=card):
                draft.discard(self, CARD_INDEX[card])
            case RoundBonus(round=rnd, card=card):
                draft.round_bonus(self, rnd, BONUS_IDS.index(card))
            case _:  # pragma: no cover - guarded by the legality check
                raise AssertionError(f"unexpected action {action}")

    def _illegal_reason(self, action: Action) -> str:
        match action:
            case BagDraw() | Act() | Expand() | Return():
                reason = play.why_illegal(self, action)
            case _:
                reason = draft.why_illegal(self, action)
        return reason if reason is not None else super()._illegal_reason(action)

    def clone(self) -> ManateeSanctuaryState:
        return cast(ManateeSanctuaryState, super().clone())

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        return observation(self, seat)

    def render(self, seat: int | None = None) -> str:
        return render_text(self, seat)

    def _scores(self) -> list[float]:
        return [sum(p.points) for p in self.players]

    def _result(self) -> Result:
        bds = [scoring.breakdown(self, i) for i in range(self.seats)]
        totals = [b["total"] for b in bds]
        ranks = scoring.ranks(
            totals,
            [sum(p.housed) for p in self.players],
            [p.food for p in self.players],
        )
        scores: list[float] = list(totals)
        breakdowns: list[dict[str, float]] = [dict(b) for b in bds]
        return Result(scores, breakdowns, ranks)

    def _resample(self, seat: int, rng: random.Random) -> State:
        return hidden.resample(self, seat, rng)
