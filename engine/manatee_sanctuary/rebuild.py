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
  :func:`.hidden.resample` re-deal deck + hidden slots exactly as it does for any state;
* the committed splits of the seats before it and their committed keeps, which
  :func:`.hidden.resample` re-draws as for any state (the rebuild leaves placeholders);
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
from typing import Any, cast

from engine.core import JSON
from engine.fields import build
from engine.manatee_sanctuary import hidden
from engine.manatee_sanctuary import steps as st
from engine.manatee_sanctuary.actions import ROTATIONS
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
from engine.manatee_sanctuary.observation import STACK_NAMES
from engine.manatee_sanctuary.play import PendingAct, card_habitat
from engine.manatee_sanctuary.player import Player
from engine.manatee_sanctuary.state import ManateeSanctuaryState
from engine.observed import read_int, read_list, read_obj

DECISION_STEPS = frozenset(
    {
        st.SPLIT,
        st.KEEP,
        st.SOLO_PICK,
        st.POWER_CAP,
        st.DISCARD,
        st.PLAY,
        st.RETURN_SPACE,
        st.RETURN_FOOD,
    }
)
"""Steps at which a seat decides (all others are chance nodes or the end)."""

_STEP_INDEX = {name: i for i, name in enumerate(st.STEP_NAMES)}
_STACKS = {"": -1, **{name: i for i, name in enumerate(STACK_NAMES)}}


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


def from_observation(
    initial: ManateeSanctuaryState, seat: int, obs: Mapping[str, JSON], rng: random.Random
) -> ManateeSanctuaryState:
    """The state ``seat``'s observation ``obs`` shows, hidden parts drawn with ``rng``
    (see module doc). ``initial`` is the fresh game: its configuration is the rebuilt one."""
    n = initial.seats
    step = _step(obs, seat)
    rnd = read_int(obs["round"], "round", 1, 3)
    turn = read_int(obs["turn"], "turn", -1, n - 1)
    if turn != (seat if step in (st.PLAY, st.RETURN_SPACE) else -1):
        raise ValueError(
            f"observation field turn is {turn} at step {st.STEP_NAMES[step]!r} of seat {seat}"
        )
    public = _public_fields(initial, step, rnd, seat, obs)
    cards = _Cards(initial.scramble)
    players = _players(initial, obs, cards, public["resolving"], seat)
    state: ManateeSanctuaryState = build(
        ManateeSanctuaryState,
        initial.game,
        n,
        initial.options,
        seats=n,
        solo=initial.solo,
        scramble=initial.scramble,
        bonus_module=initial.bonus_module,
        challenge=initial.challenge,
        round=rnd,
        step=step,
        current=seat,
        turn=turn,
        **public,
        **players,
        **_solo_fields(initial, step, obs, cards),
        # the hidden part: _private_fields fills it in below
        deck=[],
        dealt=[[] for _ in range(n)],
        splits=[None] * n,
        stacks=[],
        keep_choices=[-1] * n,
        solo_picks=0,
        public_cache=None,
    )
    _check_manatees(state)
    _check_deficit(state)
    _private_fields(state, seat, obs, cards, rng)
    state._fields_changed()
    return hidden.resample(state, seat, rng)


def _step(obs: Mapping[str, JSON], seat: int) -> int:
    """The step of the observation, which must be one of ``seat``'s decisions."""
    name = obs["step"]
    step = _STEP_INDEX.get(name) if isinstance(name, str) else None
    if step is None:
        raise ValueError(f"observation field step: unknown step {name!r}")
    if step not in DECISION_STEPS:
        raise ValueError(f"the observation is not one of seat {seat}'s turns (step {name!r})")
    cur = read_int(obs["current_player"], "current_player")
    if cur != seat:
        raise ValueError(
            f"the observation is not one of seat {seat}'s turns (current_player is {cur})"
        )
    return step


def _public_fields(
    initial: ManateeSanctuaryState, step: int, rnd: int, seat: int, obs: Mapping[str, JSON]
) -> dict[str, Any]:
    """Bag, round bonuses, resolving act, return deficit and the derived counters."""
    n = initial.seats
    bag_counts = read_obj(obs["bag"], "bag")
    bag = [read_int(bag_counts[name], f"bag.{name}", 0) for name in MANATEE_NAMES]
    round_bonus = [-1, -1, -1]
    for i, entry in enumerate(read_list(obs["round_bonuses"], "round_bonuses")):
        e = read_obj(entry, f"round_bonuses[{i}]")
        r = read_int(e["round"], f"round_bonuses[{i}].round", 1, 3)
        card = e["card"]
        if card not in BONUS_IDS or round_bonus[r - 1] >= 0 or BONUS_IDS.index(card) in round_bonus:
            raise ValueError(f"observation field round_bonuses[{i}]: bad entry {dict(e)!r}")
        round_bonus[r - 1] = BONUS_IDS.index(cast(str, card))
    if initial.bonus_module and min(round_bonus) < 0:
        raise ValueError("observation field round_bonuses must name the cards of rounds 1-3")
    if not initial.bonus_module and max(round_bonus) >= 0:
        raise ValueError("observation field round_bonuses is set but the module is off")
    res = read_obj(obs["resolving"], "resolving")
    res_seat = read_int(res["seat"], "resolving.seat", -1, n - 1)
    if (res_seat >= 0) != (step == st.RETURN_SPACE):
        raise ValueError("observation field resolving must name an act exactly at return_space")
    resolving = None
    if res_seat >= 0:
        card = CARD_INDEX.get(cast(str, res["card"]), -1)
        resolving = PendingAct(
            res_seat,
            card,
            read_int(res["draws_left"], "resolving.draws_left", 0, 0),
            [read_int(res[f"new_{m}"], f"resolving.new_{m}", 0) for m in MANATEE_NAMES],
            read_int(res["harvest_icons"], "resolving.harvest_icons", 0, 3),
        )
        if card < 0 or resolving.harvest_icons != N_HARVEST[card]:
            raise ValueError("observation field resolving: card and harvest_icons do not match")
    return {
        "bag": bag,
        "round_bonus": round_bonus,
        "resolving": resolving,
        "return_deficit": read_int(obs["return_deficit"], "return_deficit", 0),
        "deal_seat": 0 if initial.solo else n,
        "feed_seat": seat if step == st.RETURN_FOOD else (0 if rnd == 1 else n),
    }


def _players(
    initial: ManateeSanctuaryState,
    obs: Mapping[str, JSON],
    cards: _Cards,
    resolving: PendingAct | None,
    seat: int,
) -> dict[str, Any]:
    """Scores, food, manatees, action piles, sanctuaries, split sizes and keeps."""
    entries = read_list(obs["players"], "players")
    if len(entries) != initial.seats:
        raise ValueError(
            f"observation field players lists {len(entries)} seats, not {initial.seats}"
        )
    players: list[Player] = []
    split_size: list[int] = []
    kept: list[int] = []
    for j, entry in enumerate(entries):
        where = f"players[{j}]"
        po = read_obj(entry, where)
        p = Player()
        bd = read_obj(po["breakdown"], f"{where}.breakdown")
        p.points = [read_int(bd[c], f"{where}.breakdown.{c}") for c in CATEGORIES]
        p.food = read_int(po["food"], f"{where}.food", 0, 99)
        p.housed = [read_int(po[f"housed_{m}"], f"{where}.housed_{m}", 0) for m in MANATEE_NAMES]
        p.pile = cards.take(po["action_pile"], f"{where}.action_pile")
        for i, placed in enumerate(read_list(po["sanctuary"], f"{where}.sanctuary")):
            at = f"{where}.sanctuary[{i}]"
            _place(initial, p, read_obj(placed, at), cards, at)
        players.append(p)
        split_size.append(read_int(po["split_size"], f"{where}.split_size", -1, 2))
        stack = po["kept"]
        if stack not in _STACKS:
            raise ValueError(
                f"observation field {where}.kept must be small/large/'', not {stack!r}"
            )
        kept.append(_STACKS[cast(str, stack)])
    if resolving is not None and resolving.seat != seat:
        raise ValueError("observation field resolving.seat is not the seat to return manatees")
    if resolving is not None and players[resolving.seat].pile[-1:] != [resolving.card]:
        raise ValueError("observation field resolving.card is not the last card of that pile")
    return {"players": players, "split_size": split_size, "kept": kept}


def _place(
    initial: ManateeSanctuaryState,
    p: Player,
    placed: Mapping[str, JSON],
    cards: _Cards,
    where: str,
) -> None:
    """Lay one sanctuary card with the placement rule; count its flowers and habitat."""
    [c] = cards.take([placed["card"]], f"{where}.card")
    x = read_int(placed["x"], f"{where}.x")
    y = read_int(placed["y"], f"{where}.y")
    rot = read_int(placed["rot"], f"{where}.rot")
    sanctuary = p.sanctuary
    why = sanctuary.explain(c, x, y, rot) if rot in ROTATIONS else f"rot must be one of {ROTATIONS}"
    if why:
        raise ValueError(f"observation field {where}: {CARD_ID[c]} at ({x},{y}) rot {rot}: {why}")
    for colour in sanctuary.place(c, x, y, rot):
        p.flowers[colour - 1] += 1
    p.capacity += card_habitat(initial, c)


def _solo_fields(
    initial: ManateeSanctuaryState, step: int, obs: Mapping[str, JSON], cards: _Cards
) -> dict[str, Any]:
    token = read_int(obs["solo_token"], "solo_token", -20, 20)
    offer = cards.take(obs["solo_offer"], "solo_offer")
    discards = cards.take(obs["solo_discards"], "solo_discards")
    if not initial.solo and (offer or discards):
        raise ValueError("solo_offer and solo_discards must be empty with 2+ players")
    if len(offer) != (2 if step == st.SOLO_PICK else 0):
        raise ValueError("observation field solo_offer must hold 2 cards exactly at solo_pick")
    power_cap_used = obs["power_cap_used"] is True
    return {
        "solo_token": token,
        "solo_offer": offer,
        "solo_discards": discards,
        "power_cap_used": power_cap_used,
        "discard_most_dots": initial.challenge == 5 and power_cap_used,
        "saver_lost": obs["challenge_lost"] is True,
    }


def _check_manatees(s: ManateeSanctuaryState) -> None:
    """Bag + housed + the act's new manatees must be the game's manatees, nothing lost."""
    full = BAG_SCRAMBLE if s.scramble else BAG_STANDARD
    for col, name in enumerate(MANATEE_NAMES):
        total = s.bag[col] + sum(p.housed[col] for p in s.players)
        if s.resolving is not None:
            total += s.resolving.new[col]
        if total != full[col]:
            raise ValueError(
                f"the observation shows {total} {name} manatees (bag + housed), "
                f"the game has {full[col]}"
            )


def _check_deficit(s: ManateeSanctuaryState) -> None:
    """The shown return deficit must be the one the housed manatees and food imply."""
    want = 0
    if s.step == st.RETURN_SPACE and s.resolving is not None:
        p, new = s.players[s.resolving.seat], s.resolving.new
        want = p.usage() + new[0] + new[1] + 2 * new[2] - p.capacity
    elif s.step == st.RETURN_FOOD:
        want = s.players[s.current].need() - s.players[s.current].food
    if s.return_deficit != want or (want <= 0 and s.step in st.RETURNS):
        raise ValueError(
            f"observation field return_deficit is {s.return_deficit}, but the rest of the "
            f"observation implies {want}"
        )


def _private_fields(
    s: ManateeSanctuaryState, seat: int, obs: Mapping[str, JSON], cards: _Cards, rng: random.Random
) -> None:
    """Hands, draft data and deck; hidden slots get placeholders (``resample`` fills them)."""
    n = s.seats
    step = s.step
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
    in_play = step in (st.PLAY, st.RETURN_SPACE)
    if not s.solo and not in_play and any(known[j] or hidden_counts[j] for j in range(n)):
        raise ValueError(f"hands must be empty at step {st.STEP_NAMES[step]!r}")
    s.solo_picks = len(hand) if step == st.SOLO_PICK else (5 if s.solo else 0)
    if s.solo_picks > 4 and step == st.SOLO_PICK:
        raise ValueError("a solo hand holds at most 4 cards before the last pick")
    if step == st.SPLIT:
        s.dealt[seat] = sorted(cards.take(obs["dealt"], "dealt"))
        demand = 5 * (n - 1)
    elif step == st.KEEP:
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

    if step == st.SPLIT:
        for j in range(n):
            if j != seat:
                s.dealt[j] = draw(5)
        for j in range(seat):
            s.splits[j] = s.dealt[j][:1]  # placeholder: hidden.resample re-draws it
    elif step == st.KEEP:
        for o in range(n):
            if o not in hidden.known_owners(s, seat):
                s.stacks[o] = [draw(s.split_size[o]), draw(5 - s.split_size[o])]
        s.keep_choices = [0 if j < seat else -1 for j in range(n)]  # placeholders, as above
    for j, p in enumerate(s.players):
        blanks = draw(hidden_counts[j])
        p.hand = sorted(known[j] + blanks)
        p.origin = hidden.draw_origins(s, seat, j, known[j], blanks, rng)
    s.deck = sorted(placeholders)


__all__ = ["DECISION_STEPS", "from_observation"]
