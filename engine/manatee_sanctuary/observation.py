"""The observation of a seat or of the spectator (spec "Observation"; see the package doc).

The public part is the same for every viewer: it is built once per state and cached on
it (:class:`PublicView`, until the next step) and each observation copies it, adding
what the viewer privately knows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.core import JSON
from engine.manatee_sanctuary import scoring
from engine.manatee_sanctuary import steps as st
from engine.manatee_sanctuary.data import BONUS_IDS, CARD_ID, card_ids
from engine.manatee_sanctuary.hidden import known_cards

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeSanctuaryState

STACK_NAMES = ("small", "large")
"""Names of the stacks by index (0 small, 1 large), as observations and ``keep`` say."""


@dataclass(frozen=True, slots=True)
class PublicView:
    """The public part of an observation: the top-level fields and the per-seat entries.

    Never mutated once built (observations copy it), so clones of a state share it.
    """

    fields: dict[str, JSON]
    players: list[dict[str, JSON]]


def public_view(s: ManateeSanctuaryState) -> PublicView:
    """The public part of the observation of ``s`` (cached on the state until the next step)."""
    cached = s.public_cache
    if cached is not None:
        return cached
    step = s.step
    drafting = step in (st.DEAL, st.SPLIT)
    committing = step in (st.SPLIT, st.KEEP)
    players: list[dict[str, JSON]] = []
    for j, p in enumerate(s.players):
        bd = scoring.breakdown(s, j)
        fl = p.flowers
        h = p.housed
        players.append(
            {
                "seat": j,
                "score": bd["total"],
                "breakdown": bd,
                "food": p.food,
                "flowers": fl[0] + fl[1] + fl[2],
                "flowers_red": fl[0],
                "flowers_green": fl[1],
                "flowers_purple": fl[2],
                "housed_grey": h[0],
                "housed_pink": h[1],
                "housed_yellow": h[2],
                "capacity": p.capacity,
                "usage": p.usage(),
                "hand_size": len(p.hand),
                "dealt_count": len(s.dealt[j]) if drafting else 0,
                "committed": committing and j < s.current,
                "split_size": s.split_size[j],
                "kept": STACK_NAMES[s.kept[j]] if s.kept[j] >= 0 else "",
                "action_pile": card_ids(p.pile),
                "sanctuary": [
                    {"card": CARD_ID[c], "x": x, "y": y, "rot": r}
                    for c, x, y, r in p.sanctuary.placements
                ],
                "known_cards": [],
            }
        )
    res = s.resolving
    fields: dict[str, JSON] = {
        "round": s.round,
        "phase": st.PHASE_OF_STEP[step],
        "step": st.STEP_NAMES[step],
        "direction": "right" if s.round == 2 else "left",
        "current_player": s.current,
        "turn": s.turn,
        "mode": "solo" if s.solo else ("scramble" if s.scramble else "standard"),
        "you": None,
        "deck_size": len(s.deck),
        "bag": {"grey": s.bag[0], "pink": s.bag[1], "yellow": s.bag[2]},
        "round_bonuses": [
            {"round": r + 1, "card": BONUS_IDS[b]} for r, b in enumerate(s.round_bonus) if b >= 0
        ],
        "deal_seat": s.deal_seat if step == st.DEAL else -1,
        "solo_challenge": s.challenge,
        "solo_token": s.solo_token,
        "solo_offer": card_ids(s.solo_offer),
        "solo_discards": card_ids(s.solo_discards),
        "power_cap_used": s.power_cap_used,
        "challenge_lost": s.saver_lost,
        "resolving": {
            "seat": res.seat if res else -1,
            "card": CARD_ID[res.card] if res else "",
            "draws_left": res.draws_left if res else 0,
            "new_grey": res.new[0] if res else 0,
            "new_pink": res.new[1] if res else 0,
            "new_yellow": res.new[2] if res else 0,
            "harvest_icons": res.harvest_icons if res else 0,
        },
        "return_kind": {st.RETURN_SPACE: "space", st.RETURN_FOOD: "food"}.get(step, ""),
        "return_deficit": s.return_deficit if step in st.RETURNS else 0,
        "scores": [pl["score"] for pl in players],
    }
    view = PublicView(fields, players)
    s.public_cache = view
    return view


def observation(s: ManateeSanctuaryState, seat: int | None) -> dict[str, JSON]:
    """The public part (copied) plus what ``seat`` privately knows (None: the spectator)."""
    view = public_view(s)
    pub = view.fields
    obs = dict(pub)
    for key in ("bag", "resolving"):
        obs[key] = dict(pub[key])
    for key in ("round_bonuses", "solo_offer", "solo_discards", "scores"):
        obs[key] = list(pub[key])
    players: list[JSON] = []
    for j, pp in enumerate(view.players):
        d = dict(pp)
        d["breakdown"] = dict(pp["breakdown"])
        d["action_pile"] = list(pp["action_pile"])
        d["sanctuary"] = [dict(e) for e in pp["sanctuary"]]
        d["known_cards"] = card_ids(known_cards(s, seat, j)) if seat is not None else []
        players.append(d)
    obs["players"] = players
    obs["you"] = seat
    step = s.step
    hand: list[str] = []
    dealt: list[str] = []
    my_split: list[str] = []
    received_small: list[str] = []
    received_large: list[str] = []
    my_keep = ""
    if seat is not None:
        hand = card_ids(s.players[seat].hand)
        if step in (st.DEAL, st.SPLIT):
            dealt = card_ids(s.dealt[seat])
            mine = s.splits[seat] if step == st.SPLIT else None
            if mine is not None:
                my_split = card_ids(mine)
        elif step == st.KEEP:
            small, large = s.stacks[seat]
            dealt = card_ids(sorted(small + large))
            my_split = card_ids(small)
            giver = s.passer(seat)
            received_small = card_ids(s.stacks[giver][0])
            received_large = card_ids(s.stacks[giver][1])
            if s.keep_choices[seat] >= 0:
                my_keep = STACK_NAMES[s.keep_choices[seat]]
    obs["hand"] = hand
    obs["dealt"] = dealt
    obs["my_split"] = my_split
    obs["received_small"] = received_small
    obs["received_large"] = received_large
    obs["my_keep"] = my_keep
    return obs
