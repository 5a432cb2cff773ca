"""Rebuild a full state from one seat's observation (``Game.from_observation``).

The observation of a decision turn (split, keep, solo_pick, power_cap, discard, play,
return_space, return_food) shows all public state and the seat's private view; the
rebuild copies it into a fresh state and derives what the engine keeps apart from it:

* shown as shown: round, step, turn pointer, bag, round bonuses, solo token/offer/
  discards/challenge flags, the act being resolved and the pending return deficit; per
  player the score breakdown, food, housed manatees, action pile, split size and kept
  stack, and the sanctuary, whose placements are replayed with the placement rule
  (flowers and capacity follow from them);
* derived: the deck is the set of the edition's cards that are nowhere else (its size
  must be ``deck_size``); ``deal_seat``, ``picks``, ``feed_seat`` and ``discard_max`` take
  the values the state machine gives them at that step.

Hidden from the seat, and drawn with ``rng`` only:

* the cards it cannot see: the other seats' dealt cards (split step), the stacks of
  owners other than itself and its passer (keep step), and the cards of other hands
  that are not among its ``known_cards`` (phase 2). They are dealt uniformly at random
  from the unseen cards: the rebuild puts placeholder cards into these slots and lets
  :func:`hidden.resample` re-deal deck + hidden slots exactly as it does for any state;
* the committed splits of the seats before it and their committed keeps, which
  :func:`hidden.resample` re-draws as for any state (the rebuild leaves placeholders);
* for each card in a hand, the deal it came from (``origin``: the hand owner's returned
  stack or the stack it kept from its passer). Where the observation does not tell, the
  number of cards of each origin is drawn with hypergeometric weights within the public
  stack sizes, and which cards they are uniformly.

A malformed observation raises ``ValueError`` saying what is wrong; one whose derived
fields (scores, flowers, sizes, ...) do not match the rest is caught afterwards by
``Game.from_observation``, which compares the rebuilt state's observation with the given
one and names the first field that differs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import cast

from engine.core import JSON
from engine.manatee_sanctuary import hidden
from engine.manatee_sanctuary import phases as st
from engine.manatee_sanctuary.data import (
    BAG_SCRAMBLE,
    BAG_STANDARD,
    BONUS_IDS,
    CARD_ID,
    CARD_INDEX,
    CATEGORIES,
    MANATEE_NAMES,
    N_HARVEST,
    NUM_CARDS,
    SEACOW_FIRST,
)
from engine.manatee_sanctuary.play import R_HARVEST, R_NEW, R_SEAT, card_habitat
from engine.manatee_sanctuary.state import ManateeState, Player
from engine.observed import read_int, read_list, read_obj

DECISION_STEPS = frozenset(
    {
        st.PH_SPLIT,
        st.PH_KEEP,
        st.PH_SOLO_PICK,
        st.PH_POWER,
        st.PH_DISCARD,
        st.PH_PLAY,
        st.PH_RETURN_SPACE,
        st.PH_RETURN_FOOD,
    }
)
"""Steps at which a seat decides (all others are chance nodes or the end)."""

_STEP_INDEX = {name: i for i, name in enumerate(st.STEP_NAMES)}
_STACKS = {"": -1, "small": 0, "large": 1}
_ROTATIONS = (0, 90, 180, 270)


class _Cards:
    """Card ids of the observation -> indices, checking each card is shown only once."""

    def __init__(self, scramble: bool) -> None:
        self.edition = range(0 if scramble else SEACOW_FIRST, NUM_CARDS)
        self.seen: set[int] = set()

    def take(self, ids: JSON, what: str) -> list[int]:
        out = []
        for cid in read_list(ids, what):
            c = CARD_INDEX.get(cid) if isinstance(cid, str) else None
            if c is None or c not in self.edition:
                raise ValueError(f"observation field {what}: {cid!r} is not a card of this game")
            if c in self.seen:
                raise ValueError(f"observation field {what}: card {cid} is shown twice")
            self.seen.add(c)
            out.append(c)
        return out

    def unseen(self) -> list[int]:
        return [c for c in self.edition if c not in self.seen]


# -- the rebuild ----------------------------------------------------------------------


def rebuild(
    s: ManateeState, seat: int, obs: Mapping[str, JSON], rng: random.Random
) -> ManateeState:
    """Fill the fresh state ``s`` from ``seat``'s observation ``obs`` (see module doc)."""
    n = s.n
    step = obs["step"]
    phase = _STEP_INDEX.get(step) if isinstance(step, str) else None
    if phase is None:
        raise ValueError(f"observation field step: unknown step {step!r}")
    if phase not in DECISION_STEPS:
        raise ValueError(f"the observation is not one of seat {seat}'s turns (step {step!r})")
    cur = read_int(obs["current_player"], "current_player")
    if cur != seat:
        raise ValueError(
            f"the observation is not one of seat {seat}'s turns (current_player is {cur})"
        )
    s.round = read_int(obs["round"], "round", 1, 3)
    s.phase = phase
    s.cur = seat
    s.turn = read_int(obs["turn"], "turn", -1, n - 1)
    if s.turn != (seat if phase in (st.PH_PLAY, st.PH_RETURN_SPACE) else -1):
        raise ValueError(f"observation field turn is {s.turn} at step {step!r} of seat {seat}")
    _public_fields(s, obs)
    cards = _Cards(s.scramble)
    _players(s, obs, cards)
    _solo_fields(s, obs, cards)
    _check_manatees(s)
    _check_deficit(s)
    _private_fields(s, seat, obs, cards, rng)
    s._pub = None
    s._legal = None
    return cast(ManateeState, hidden.resample(s, seat, rng))


def _public_fields(s: ManateeState, obs: Mapping[str, JSON]) -> None:
    """Bag, round bonuses, resolving act, return deficit and the derived counters."""
    n = s.n
    bag = read_obj(obs["bag"], "bag")
    s.bag = [read_int(bag[name], f"bag.{name}", 0) for name in MANATEE_NAMES]
    s.bonus = [-1, -1, -1]
    for i, entry in enumerate(read_list(obs["round_bonuses"], "round_bonuses")):
        e = read_obj(entry, f"round_bonuses[{i}]")
        rnd = read_int(e["round"], f"round_bonuses[{i}].round", 1, 3)
        card = e["card"]
        if card not in BONUS_IDS or s.bonus[rnd - 1] >= 0 or BONUS_IDS.index(card) in s.bonus:
            raise ValueError(f"observation field round_bonuses[{i}]: bad entry {dict(e)!r}")
        s.bonus[rnd - 1] = BONUS_IDS.index(cast(str, card))
    if s.bonuses_on and min(s.bonus) < 0:
        raise ValueError("observation field round_bonuses must name the cards of rounds 1-3")
    if not s.bonuses_on and max(s.bonus) >= 0:
        raise ValueError("observation field round_bonuses is set but the module is off")
    res = read_obj(obs["resolving"], "resolving")
    res_seat = read_int(res["seat"], "resolving.seat", -1, n - 1)
    if (res_seat >= 0) != (s.phase == st.PH_RETURN_SPACE):
        raise ValueError("observation field resolving must name an act exactly at return_space")
    s.res = None
    if res_seat >= 0:
        card = CARD_INDEX.get(cast(str, res["card"]), -1)
        s.res = [
            res_seat,
            card,
            read_int(res["draws_left"], "resolving.draws_left", 0, 0),
            *(read_int(res[f"new_{m}"], f"resolving.new_{m}", 0) for m in MANATEE_NAMES),
            read_int(res["harvest_icons"], "resolving.harvest_icons", 0, 3),
        ]
        if card < 0 or s.res[R_HARVEST] != N_HARVEST[card]:
            raise ValueError("observation field resolving: card and harvest_icons do not match")
    s.deficit = read_int(obs["return_deficit"], "return_deficit", 0)
    s.deal_seat = 0 if s.solo else n
    s.feed_seat = s.cur if s.phase == st.PH_RETURN_FOOD else (0 if s.round == 1 else n)


def _players(s: ManateeState, obs: Mapping[str, JSON], cards: _Cards) -> None:
    """Scores, food, manatees, action piles, sanctuaries, split sizes and keeps."""
    entries = read_list(obs["players"], "players")
    if len(entries) != s.n:
        raise ValueError(f"observation field players lists {len(entries)} seats, not {s.n}")
    s.players = []
    s.split_size = []
    s.kept = []
    for j, entry in enumerate(entries):
        where = f"players[{j}]"
        po = read_obj(entry, where)
        p = Player()
        bd = read_obj(po["breakdown"], f"{where}.breakdown")
        p.score = [read_int(bd[c], f"{where}.breakdown.{c}") for c in CATEGORIES]
        p.food = read_int(po["food"], f"{where}.food", 0, 99)
        p.housed = [read_int(po[f"housed_{m}"], f"{where}.housed_{m}", 0) for m in MANATEE_NAMES]
        p.pile = cards.take(po["action_pile"], f"{where}.action_pile")
        for i, placed in enumerate(read_list(po["sanctuary"], f"{where}.sanctuary")):
            at = f"{where}.sanctuary[{i}]"
            _place(s, p, read_obj(placed, at), cards, at)
        s.players.append(p)
        s.split_size.append(read_int(po["split_size"], f"{where}.split_size", -1, 2))
        kept = po["kept"]
        if kept not in _STACKS:
            raise ValueError(f"observation field {where}.kept must be small/large/'', not {kept!r}")
        s.kept.append(_STACKS[cast(str, kept)])
    if s.res is not None and s.res[R_SEAT] != s.cur:
        raise ValueError("observation field resolving.seat is not the seat to return manatees")
    if s.res is not None and s.players[s.res[R_SEAT]].pile[-1:] != [s.res[1]]:
        raise ValueError("observation field resolving.card is not the last card of that pile")


def _place(
    s: ManateeState, p: Player, placed: Mapping[str, JSON], cards: _Cards, where: str
) -> None:
    """Lay one sanctuary card with the placement rule; count its flowers and habitat."""
    [c] = cards.take([placed["card"]], f"{where}.card")
    x = read_int(placed["x"], f"{where}.x")
    y = read_int(placed["y"], f"{where}.y")
    rot = read_int(placed["rot"], f"{where}.rot")
    why = p.sanct.explain(c, x, y, rot) if rot in _ROTATIONS else f"rot must be one of {_ROTATIONS}"
    if why:
        raise ValueError(f"observation field {where}: {CARD_ID[c]} at ({x},{y}) rot {rot}: {why}")
    for colour in p.sanct.place(c, x, y, rot):
        p.flowers[colour - 1] += 1
    p.capacity += card_habitat(s, c)


def _solo_fields(s: ManateeState, obs: Mapping[str, JSON], cards: _Cards) -> None:
    s.token = read_int(obs["solo_token"], "solo_token", -20, 20)
    s.offer = cards.take(obs["solo_offer"], "solo_offer")
    s.discards = cards.take(obs["solo_discards"], "solo_discards")
    if not s.solo and (s.offer or s.discards):
        raise ValueError("solo_offer and solo_discards must be empty with 2+ players")
    if len(s.offer) != (2 if s.phase == st.PH_SOLO_PICK else 0):
        raise ValueError("observation field solo_offer must hold 2 cards exactly at solo_pick")
    s.power_used = obs["power_cap_used"] is True
    s.discard_max = s.challenge == 5 and s.power_used
    s.saver_lost = obs["challenge_lost"] is True


def _check_manatees(s: ManateeState) -> None:
    """Bag + housed + the act's new manatees must be the game's manatees, nothing lost."""
    full = BAG_SCRAMBLE if s.scramble else BAG_STANDARD
    for col, name in enumerate(MANATEE_NAMES):
        total = s.bag[col] + sum(p.housed[col] for p in s.players)
        if s.res is not None:
            total += s.res[R_NEW + col]
        if total != full[col]:
            raise ValueError(
                f"the observation shows {total} {name} manatees (bag + housed), "
                f"the game has {full[col]}"
            )


def _check_deficit(s: ManateeState) -> None:
    """The shown return deficit must be the one the housed manatees and food imply."""
    want = 0
    if s.phase == st.PH_RETURN_SPACE and s.res is not None:
        p, new = s.players[s.res[R_SEAT]], s.res[R_NEW : R_NEW + 3]
        h = [p.housed[col] + new[col] for col in range(3)]
        want = h[0] + h[1] + 2 * h[2] - p.capacity
    elif s.phase == st.PH_RETURN_FOOD:
        want = s.players[s.cur].need() - s.players[s.cur].food
    if s.deficit != want or (want <= 0 and s.phase in (st.PH_RETURN_SPACE, st.PH_RETURN_FOOD)):
        raise ValueError(
            f"observation field return_deficit is {s.deficit}, but the rest of the "
            f"observation implies {want}"
        )


def _private_fields(
    s: ManateeState, seat: int, obs: Mapping[str, JSON], cards: _Cards, rng: random.Random
) -> None:
    """Hands, draft data and deck; hidden slots get placeholders (``resample`` fills them)."""
    n = s.n
    phase = s.phase
    hand = sorted(cards.take(obs["hand"], "hand"))
    known: list[list[int]] = []
    hidden_counts: list[int] = []
    for j, entry in enumerate(cast(list[Mapping[str, JSON]], obs["players"])):
        size = read_int(entry["hand_size"], f"players[{j}].hand_size", 0, 8)
        mine = j == seat
        shown = hand if mine else cards.take(entry["known_cards"], f"players[{j}].known_cards")
        if size < len(shown) or (mine and size != len(shown)):
            raise ValueError(
                f"observation field players[{j}].hand_size {size} does not fit the "
                f"{len(shown)} cards shown in that hand"
            )
        known.append(shown)
        hidden_counts.append(size - len(shown))
    in_play = phase in (st.PH_PLAY, st.PH_RETURN_SPACE)
    if not s.solo and not in_play and any(known[j] or hidden_counts[j] for j in range(n)):
        raise ValueError(f"hands must be empty at step {st.STEP_NAMES[phase]!r}")
    s.picks = len(hand) if phase == st.PH_SOLO_PICK else (5 if s.solo else 0)
    if s.picks > 4 and phase == st.PH_SOLO_PICK:
        raise ValueError("a solo hand holds at most 4 cards before the last pick")
    s.dealt = [[] for _ in range(n)]
    s.split = [None] * n
    s.stacks = []
    s.keep = [-1] * n
    if phase == st.PH_SPLIT:
        s.dealt[seat] = sorted(cards.take(obs["dealt"], "dealt"))
        demand = 5 * (n - 1)
    elif phase == st.PH_KEEP:
        sizes = s.split_size
        if min(sizes) < 1:
            raise ValueError("observation field split_size must be 1 or 2 for every seat at keep")
        giver = s.passer(seat)
        small = read_list(obs["my_split"], "my_split")
        stacks = [
            cards.take(small, "my_split"),
            cards.take([c for c in read_list(obs["dealt"], "dealt") if c not in small], "dealt"),
            cards.take(obs["received_small"], "received_small"),
            cards.take(obs["received_large"], "received_large"),
        ]
        sizes_shown = [len(m) for m in stacks]
        if sizes_shown != [sizes[seat], 5 - sizes[seat], sizes[giver], 5 - sizes[giver]]:
            raise ValueError("the stacks shown at keep do not have the public split sizes")
        s.stacks = [[[], []] for _ in range(n)]
        s.stacks[seat] = [sorted(stacks[0]), sorted(stacks[1])]
        s.stacks[giver] = [sorted(stacks[2]), sorted(stacks[3])]
        demand = 5 * (n - 2)
    else:
        demand = sum(hidden_counts)
    pool = cards.unseen()
    deck_size = read_int(obs["deck_size"], "deck_size", 0)
    if len(pool) != deck_size + demand:
        raise ValueError(
            f"the observation leaves {len(pool)} cards unseen, but deck_size {deck_size} "
            f"and {demand} hidden cards make {deck_size + demand}"
        )
    placeholders = iter(pool)  # ascending; hidden.resample re-deals them at random

    def draw(k: int) -> list[int]:
        return sorted(next(placeholders) for _ in range(k))

    if phase == st.PH_SPLIT:
        for j in range(n):
            if j != seat:
                s.dealt[j] = draw(5)
        for j in range(seat):
            s.split[j] = s.dealt[j][:1]  # placeholder: hidden.resample re-draws it
    elif phase == st.PH_KEEP:
        for o in range(n):
            if o not in (seat, s.passer(seat)):
                s.stacks[o] = [draw(s.split_size[o]), draw(5 - s.split_size[o])]
        s.keep = [0 if j < seat else -1 for j in range(n)]  # placeholders, as above
    for j, p in enumerate(s.players):
        blanks = draw(hidden_counts[j])
        p.hand = sorted(known[j] + blanks)
        p.origin = hidden.draw_origins(s, seat, j, known[j], blanks, rng)
    s.deck = sorted(placeholders)


__all__ = ["DECISION_STEPS", "rebuild"]
