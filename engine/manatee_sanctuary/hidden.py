"""What a seat cannot see, and ``resample(seat, rng)`` re-drawing it (spec "Hidden information").

Both the state's :meth:`resample` and the rebuild from an observation (:mod:`.rebuild`,
which leaves placeholders in the hidden slots and resamples them) draw hidden
information here, so there is one rule of what a seat knows (:func:`known_owners`).

Hidden from seat s: the deck (held as an unordered set), other seats' dealt cards and
their uncommunicated split choices, the contents of stacks s has not been shown, and the
cards in other hands that did not come from s's own deal or from the stacks s received.
All those cards form one pool with the deck; the pool is shuffled with ``rng`` and dealt
back into the same slots (same sizes), the rest becoming the deck. The commitments of
other seats that s cannot see yet are re-drawn too: a committed split (split step) is
re-chosen uniformly among the 15 splits of the re-drawn five, and a committed keep (keep
step) is small or large with probability 1/2, and which of the two deals a re-drawn card
of another hand came from is re-drawn by :func:`draw_origins`. Everything s has seen
(its own cards, the stacks it saw, public information) is unchanged, so
``observation(s)`` is unchanged. Bag contents are public counts: nothing to re-draw.
The resampled state's ``history`` is the original one (it is a sample for search, not a
record to replay).
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from engine.core import shuffle
from engine.manatee_sanctuary import steps as st

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeSanctuaryState


def known_owners(s: ManateeSanctuaryState, seat: int) -> tuple[int, int]:
    """The seats whose deals ``seat`` has seen this round: its own and its passer's."""
    return seat, s.passer(seat)


def known_cards(s: ManateeSanctuaryState, seat: int, other: int) -> list[int]:
    """Cards in ``other``'s hand that ``seat`` knows (own deal or seen stacks)."""
    p = s.players[other]
    if seat == other:
        return list(p.hand)
    src = known_owners(s, seat)
    return [c for c in p.hand if p.origin[c] in src]


def resample(s: ManateeSanctuaryState, seat: int, rng: random.Random) -> ManateeSanctuaryState:
    """A clone of ``s`` with everything ``seat`` cannot see re-drawn (module doc)."""
    o = s.clone()
    if o.solo or o.step == st.GAME_OVER:
        return o
    pool: list[int] = list(o.deck)
    step = o.step
    known = known_owners(o, seat)
    # the slots seat cannot see; their cards join the deck in one pool
    dealt_slots: list[int] = []
    stack_slots: list[tuple[int, int]] = []
    hand_slots: list[tuple[int, int]] = []  # (seat, number of hidden cards)
    if step in (st.DEAL, st.SPLIT):
        for j in range(o.seats):
            if j != seat and o.dealt[j]:
                dealt_slots.append(j)
                pool += o.dealt[j]
    elif step == st.KEEP:
        for owner in range(o.seats):
            if owner in known:
                continue
            for k in range(2):
                stack_slots.append((owner, k))
                pool += o.stacks[owner][k]
    for j in range(o.seats):
        if j == seat:
            continue
        p = o.players[j]
        hidden = [c for c in p.hand if p.origin[c] not in known]
        if hidden:
            hand_slots.append((j, len(hidden)))
            pool += hidden
    if step == st.KEEP:
        o.keep_choices = [
            k if j == seat or k < 0 else rng.randrange(2) for j, k in enumerate(o.keep_choices)
        ]
        o._fields_changed()
    if not (dealt_slots or stack_slots or hand_slots):
        return o
    pool.sort()  # canonical before shuffling, so the result depends only on rng
    shuffle(pool, rng)  # rng.shuffle, inlined (the same draws)
    pos = 0
    for j in dealt_slots:
        size = len(o.dealt[j])
        new = sorted(pool[pos : pos + size])
        pos += size
        o.dealt[j] = new
        if o.splits[j] is not None:
            o.splits[j] = sorted(rng.sample(new, 1 if rng.randrange(15) < 5 else 2))
    for owner, k in stack_slots:
        size = len(o.stacks[owner][k])
        o.stacks[owner][k] = sorted(pool[pos : pos + size])
        pos += size
    for j, size in hand_slots:
        p = o.players[j]
        kept_cards = [c for c in p.hand if p.origin[c] in known]
        new_cards = pool[pos : pos + size]
        pos += size
        p.origin = draw_origins(o, seat, j, kept_cards, new_cards, rng)
        p.hand = sorted(kept_cards + new_cards)
    o.deck = sorted(pool[pos:])
    o._fields_changed()
    return o


def draw_origins(
    s: ManateeSanctuaryState,
    seat: int,
    j: int,
    shown: list[int],
    blanks: list[int],
    rng: random.Random,
) -> dict[int, int]:
    """Whose deal each card of seat ``j``'s hand came from (``Player.origin``).

    A hand holds the owner's returned stack (origin ``j``) and the stack it kept from its
    passer (origin ``passer(j)``), of public sizes. ``seat`` knows exactly the cards of
    origin ``seat`` or ``passer(seat)``: a shown card of another hand has one of those, a
    blank (hidden) card has neither. Cards that may have either origin get one with
    hypergeometric weights within the stack sizes.
    """
    if s.solo or not (shown or blanks):
        return {c: j for c in shown + blanks}
    if min(s.split_size) < 1 or min(s.kept) < 0:
        raise ValueError("observation fields split_size and kept must be set in phase 2")
    own, src = j, s.passer(j)
    visible = set(known_owners(s, seat))
    cap = {
        own: s.split_size[j] if s.kept[s.receiver(j)] == 1 else 5 - s.split_size[j],
        src: s.split_size[src] if s.kept[j] == 0 else 5 - s.split_size[src],
    }
    origin: dict[int, int] = {}
    flexible: list[int] = []
    for cards, is_shown in ((shown, True), (blanks, False)):
        for c in cards:
            options = [o for o in (own, src) if (o in visible) == is_shown or j == seat]
            if not options:
                raise ValueError(f"seat {seat} cannot know the cards in seat {j}'s hand")
            if len(options) == 1:
                origin[c] = options[0]
                cap[options[0]] -= 1
            else:
                flexible.append(c)
    lo = max(0, len(flexible) - cap[src])
    hi = min(len(flexible), cap[own])
    if min(cap.values()) < 0 or lo > hi:
        raise ValueError(f"seat {j}'s hand does not fit the public split sizes and keeps")
    if flexible:
        counts = range(lo, hi + 1)
        weights = [math.comb(cap[own], a) * math.comb(cap[src], len(flexible) - a) for a in counts]
        a = rng.choices(counts, weights)[0] if lo < hi else lo
        mine = set(rng.sample(flexible, a))
        for c in flexible:
            origin[c] = own if c in mine else src
    return origin


__all__ = ["draw_origins", "known_cards", "known_owners", "resample"]
