"""resample(seat, rng): re-draw what ``seat`` cannot see (spec "Hidden information").

Hidden from seat s: the deck (held as an unordered set), other seats' dealt cards and
their uncommunicated split choices, the contents of stacks s has not been shown, and the
cards in other hands that did not come from s's own deal or from the stacks s received.
All those cards form one pool with the deck; the pool is shuffled with ``rng`` and dealt
back into the same slots (same sizes), the rest becoming the deck. The commitments of
other seats that s cannot see yet are re-drawn too: a committed split (split step) is
re-chosen uniformly among the 15 splits of the re-drawn five, and a committed keep (keep
step) is small or large with probability 1/2. Everything s has seen
(its own cards, the stacks it saw, public information) is unchanged, so
``observation(s)`` is unchanged. Bag contents are public counts: nothing to re-draw.
The resampled state's ``history`` is the original one (it is a sample for search, not a
record to replay).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from engine.manatee_sanctuary import phases as st

if TYPE_CHECKING:
    from engine.core import State
    from engine.manatee_sanctuary.state import ManateeState


def resample(s: ManateeState, seat: int, rng: random.Random) -> State:
    o = s.clone()
    if o.solo or o.phase == st.PH_END:
        return o
    pool: list[int] = list(o.deck)
    ph = o.phase
    known_owners = (seat, o.passer(seat))
    # Collect hidden slots: (kind, seat/owner, index, size)
    dealt_slots: list[int] = []
    stack_slots: list[tuple[int, int]] = []
    hand_slots: list[tuple[int, int]] = []  # (seat, number of hidden cards)
    if ph in (st.PH_DEAL, st.PH_SPLIT):
        for j in range(o.n):
            if j != seat and o.dealt[j]:
                dealt_slots.append(j)
                pool += o.dealt[j]
    elif ph == st.PH_KEEP:
        for owner in range(o.n):
            if owner in known_owners:
                continue
            for k in range(2):
                stack_slots.append((owner, k))
                pool += o.stacks[owner][k]
    for j in range(o.n):
        if j == seat:
            continue
        p = o.players[j]
        hidden = [c for c in p.hand if p.origin[c] not in known_owners]
        if hidden:
            hand_slots.append((j, len(hidden)))
            pool += hidden
    if ph == st.PH_KEEP:
        o.keep = [k if j == seat or k < 0 else rng.randrange(2) for j, k in enumerate(o.keep)]
        o._legal = None
    if not (dealt_slots or stack_slots or hand_slots):
        return o
    pool.sort()  # canonical before shuffling, so the result depends only on rng
    rng.shuffle(pool)
    pos = 0
    for j in dealt_slots:
        size = len(o.dealt[j])
        new = sorted(pool[pos : pos + size])
        pos += size
        o.dealt[j] = new
        if o.split[j] is not None:
            o.split[j] = sorted(rng.sample(new, 1 if rng.randrange(15) < 5 else 2))
    for owner, k in stack_slots:
        size = len(o.stacks[owner][k])
        o.stacks[owner][k] = sorted(pool[pos : pos + size])
        pos += size
    for j, size in hand_slots:
        p = o.players[j]
        kept_cards = [c for c in p.hand if p.origin[c] in known_owners]
        hidden_cards = [c for c in p.hand if p.origin[c] not in known_owners]
        new_cards = pool[pos : pos + size]
        pos += size
        owners = [p.origin[c] for c in hidden_cards]
        origin = {c: p.origin[c] for c in kept_cards}
        for c, w in zip(new_cards, owners, strict=True):
            origin[c] = w
        p.origin = origin
        p.hand = sorted(kept_cards + new_cards)
    o.deck = sorted(pool[pos:])
    o._legal = None
    return o


__all__ = ["resample"]
