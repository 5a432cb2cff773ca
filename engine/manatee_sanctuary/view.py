"""Observations, text rendering and precise illegal-action messages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import CHANCE, JSON, TERMINAL, Action
from engine.manatee_sanctuary import phases as st
from engine.manatee_sanctuary import scoring
from engine.manatee_sanctuary.actions import (
    Act,
    BagDraw,
    Deal,
    Discard,
    Expand,
    Return,
    SoloDraw,
    SoloPick,
    Split,
)
from engine.manatee_sanctuary.data import (
    BONUS_DOC,
    BONUS_IDS,
    CARD_ID,
    CARD_INDEX,
    CHALLENGES,
    COLOUR_NAMES,
    DOTS,
    ENDGAME,
    HABITAT,
    MANATEE_NAMES,
    SCOREBOARD,
    TOP,
)
from engine.manatee_sanctuary.play import R_NEW, return_context

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeState


def _ids(cards: list[int]) -> list[str]:
    return [CARD_ID[c] for c in cards]


def known_cards(s: ManateeState, seat: int, other: int) -> list[int]:
    """Cards in ``other``'s hand that ``seat`` knows (own deal or seen stacks)."""
    p = s.players[other]
    if seat == other:
        return list(p.hand)
    src = (seat, s.passer(seat))
    return [c for c in p.hand if p.origin[c] in src]


def _public(s: ManateeState) -> tuple[dict[str, JSON], list[dict[str, JSON]]]:
    """The public part of the observation (cached on the state until the next step)."""
    cached = s._pub
    if cached is not None:
        return cached
    ph = s.phase
    drafting = ph in (st.PH_DEAL, st.PH_SPLIT)
    committing = ph in (st.PH_SPLIT, st.PH_KEEP)
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
                "usage": h[0] + h[1] + 2 * h[2],
                "hand_size": len(p.hand),
                "dealt_count": len(s.dealt[j]) if drafting else 0,
                "committed": committing and j < s.cur,
                "split_size": s.split_size[j],
                "kept": ("small", "large")[s.kept[j]] if s.kept[j] >= 0 else "",
                "action_pile": _ids(p.pile),
                "sanctuary": [
                    {"card": CARD_ID[c], "x": x, "y": y, "rot": r}
                    for c, x, y, r in p.sanct.placements
                ],
                "known_cards": [],
            }
        )
    res = s.res
    obs: dict[str, JSON] = {
        "round": s.round,
        "phase": st.PHASE_OF_STEP[ph],
        "step": st.STEP_NAMES[ph],
        "direction": "right" if s.round == 2 else "left",
        "current_player": s.cur,
        "turn": s.turn,
        "mode": "solo" if s.solo else ("scramble" if s.scramble else "standard"),
        "you": -1,
        "deck_size": len(s.deck),
        "bag": {"grey": s.bag[0], "pink": s.bag[1], "yellow": s.bag[2]},
        "round_bonuses": [
            {"round": r + 1, "card": BONUS_IDS[b]} for r, b in enumerate(s.bonus) if b >= 0
        ],
        "deal_seat": s.deal_seat if ph == st.PH_DEAL else -1,
        "solo_challenge": s.challenge,
        "solo_token": s.token,
        "solo_offer": _ids(s.offer),
        "solo_discards": _ids(s.discards),
        "power_cap_used": s.power_used,
        "challenge_lost": s.saver_lost,
        "resolving": {
            "seat": res[0] if res else -1,
            "card": CARD_ID[res[1]] if res else "",
            "draws_left": res[2] if res else 0,
            "new_grey": res[3] if res else 0,
            "new_pink": res[4] if res else 0,
            "new_yellow": res[5] if res else 0,
            "harvest_icons": res[6] if res else 0,
        },
        "return_kind": {st.PH_RETURN_SPACE: "space", st.PH_RETURN_FOOD: "food"}.get(ph, ""),
        "return_deficit": s.deficit if ph in (st.PH_RETURN_SPACE, st.PH_RETURN_FOOD) else 0,
        "scores": [pl["score"] for pl in players],
    }
    s._pub = (obs, players)
    return obs, players


def observation(s: ManateeState, seat: int | None) -> dict[str, JSON]:
    """Public part (copied) plus what ``seat`` privately knows."""
    pub, pub_players = _public(s)
    obs = dict(pub)
    for key in ("bag", "resolving"):
        obs[key] = dict(pub[key])
    for key in ("round_bonuses", "solo_offer", "solo_discards", "scores"):
        obs[key] = list(pub[key])
    players: list[JSON] = []
    for j, pp in enumerate(pub_players):
        d = dict(pp)
        d["breakdown"] = dict(pp["breakdown"])
        d["action_pile"] = list(pp["action_pile"])
        d["sanctuary"] = [dict(e) for e in pp["sanctuary"]]
        if seat is not None:
            d["known_cards"] = _ids(known_cards(s, seat, j))
        else:
            d["known_cards"] = []
        players.append(d)
    obs["players"] = players
    ph = s.phase
    hand: list[str] = []
    dealt: list[str] = []
    my_split: list[str] = []
    rec_small: list[str] = []
    rec_large: list[str] = []
    my_keep = ""
    if seat is not None:
        obs["you"] = seat
        hand = _ids(s.players[seat].hand)
        if ph in (st.PH_DEAL, st.PH_SPLIT):
            dealt = _ids(s.dealt[seat])
            mine = s.split[seat] if ph == st.PH_SPLIT else None
            if mine is not None:
                my_split = _ids(mine)
        elif ph == st.PH_KEEP:
            dealt = _ids(sorted(s.stacks[seat][0] + s.stacks[seat][1]))
            my_split = _ids(s.stacks[seat][0])
            giver = s.passer(seat)
            rec_small = _ids(s.stacks[giver][0])
            rec_large = _ids(s.stacks[giver][1])
            if s.keep[seat] >= 0:
                my_keep = ("small", "large")[s.keep[seat]]
    obs["hand"] = hand
    obs["dealt"] = dealt
    obs["my_split"] = my_split
    obs["received_small"] = rec_small
    obs["received_large"] = rec_large
    obs["my_keep"] = my_keep
    return obs


# -- rendering ---------------------------------------------------------------------

_EDGE_CH = ("#", "r", "g", "p")


def card_text(c: int) -> str:
    """Short description: id, dots, top icons, edges, habitat / end-game kind."""
    from engine.manatee_sanctuary.data import EDGES

    edges = "".join(_EDGE_CH[e] for e in EDGES[c])
    hab = f"h{HABITAT[c]}" if not ENDGAME[c] else ENDGAME[c]
    return f"{CARD_ID[c]}[{'*' * DOTS[c]} {TOP[c]} {edges} {hab}]"


def sanctuary_grid(s: ManateeState, seat: int) -> list[str]:
    """The sanctuary as a text grid, north up; each cell shows its id and compass edges."""
    p = s.players[seat]
    cells = p.sanct.cells
    names = {(x, y): CARD_ID[c] for c, x, y, _r in p.sanct.placements}
    names[(0, 0)] = "STA"
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    lines = []
    for y in range(max(ys), min(ys) - 1, -1):
        rows = ["", "", ""]
        for x in range(min(xs), max(xs) + 1):
            e = cells.get((x, y))
            if e is None:
                rows[0] += "       "
                rows[1] += "   .   "
                rows[2] += "       "
                continue
            rows[0] += f"   {_EDGE_CH[e[0]]}   "
            rows[1] += f"{_EDGE_CH[e[3]]} {names[(x, y)]} {_EDGE_CH[e[1]]}"
            rows[2] += f"   {_EDGE_CH[e[2]]}   "
        label = f"y={y:>3} "
        lines += ["      " + rows[0], label + rows[1], "      " + rows[2]]
    xs_line = "".join(f" x={x:<3} " for x in range(min(xs), max(xs) + 1))
    lines.append("      " + xs_line)
    return lines


def render(s: ManateeState, seat: int | None) -> str:
    obs = observation(s, seat)
    who = {CHANCE: "chance", TERMINAL: "game over"}.get(s.cur, f"seat {s.cur}")
    head = (
        f"Manatee Sanctuary ({obs['mode']}, {s.n} player{'s' if s.n > 1 else ''}) - "
        f"round {s.round}, {obs['phase']} / {obs['step']}, to move: {who}"
    )
    out = [head]
    out.append(
        f"deck {len(s.deck)} cards; bag grey {s.bag[0]} pink {s.bag[1]} yellow {s.bag[2]}; "
        f"passing {obs['direction']}"
    )
    if s.bonuses_on:
        out.append(
            "round bonuses: "
            + "; ".join(
                f"R{r + 1} {BONUS_IDS[b]} ({BONUS_DOC[BONUS_IDS[b]]})"
                for r, b in enumerate(s.bonus)
                if b >= 0
            )
        )
    if s.solo:
        line = f"solo token {s.token:+d}"
        if s.challenge:
            line += f"; challenge {s.challenge} {CHALLENGES[s.challenge]}"
            if s.saver_lost:
                line += " (lost)"
        if s.offer:
            line += "; offer: " + ", ".join(card_text(c) for c in s.offer)
        out.append(line)
    if s.res is not None:
        r = s.res
        out.append(
            f"resolving act {CARD_ID[r[1]]} of seat {r[0]}: {r[2]} draws left, new "
            + ", ".join(f"{MANATEE_NAMES[i]} {r[R_NEW + i]}" for i in range(3))
        )
    if obs["return_kind"]:
        out.append(f"seat {s.cur} must return manatees: {obs['return_kind']} deficit {s.deficit}")
    for j, p in enumerate(s.players):
        bd = scoring.breakdown(s, j)
        mark = " <" if j == s.cur else ""
        out.append("")
        out.append(
            f"Seat {j}{mark}: score {bd['total']}, food {p.food}, flowers {sum(p.flowers)} "
            f"(r{p.flowers[0]} g{p.flowers[1]} p{p.flowers[2]}), manatees grey {p.housed[0]} "
            f"pink {p.housed[1]} yellow {p.housed[2]}, space {p.usage()}/{p.capacity}"
        )
        if seat == j or s.solo:
            out.append("  hand: " + (", ".join(card_text(c) for c in p.hand) or "-"))
        else:
            known = known_cards(s, seat, j) if seat is not None else []
            extra = f" (known: {', '.join(_ids(known))})" if known else ""
            out.append(f"  hand: {len(p.hand)} cards{extra}")
        if s.split_size[j] >= 0:
            kept = ("small", "large")[s.kept[j]] if s.kept[j] >= 0 else "?"
            out.append(f"  draft: split {s.split_size[j]}+{5 - s.split_size[j]}, kept {kept}")
        if p.pile:
            out.append("  action pile: " + " ".join(_ids(p.pile)))
        out += ["  " + line for line in sanctuary_grid(s, j)]
    if seat is not None:
        if obs["dealt"]:
            out.append(
                f"your dealt cards: {', '.join(card_text(CARD_INDEX[c]) for c in obs['dealt'])}"
            )
        if obs["my_split"]:
            out.append(f"your small stack: {', '.join(obs['my_split'])}")
        if obs["received_small"]:
            out.append(
                "received small: "
                + ", ".join(card_text(CARD_INDEX[c]) for c in obs["received_small"])
                + " | large: "
                + ", ".join(card_text(CARD_INDEX[c]) for c in obs["received_large"])
            )
    if s.phase == st.PH_END:
        res = s.result()
        out.append("")
        out.append(
            "Final: "
            + ", ".join(
                f"seat {j} {int(sc)} (rank {rk})"
                for j, (sc, rk) in enumerate(zip(res.scores, res.ranks, strict=True))
            )
        )
        if s.solo:
            band = int(res.breakdown[0]["solo_band"])
            out.append(f"scoreboard: {SCOREBOARD[band]}")
    out.append("edges: # wall, r red, g green, p purple")
    return "\n".join(out)


# -- illegal actions ---------------------------------------------------------------


def illegal_reason(s: ManateeState, action: Action) -> str | None:
    """A precise message for common mistakes, or None to use the generic one."""
    cur = s.cur
    ph = s.phase
    t = type(action)
    if cur == CHANCE:
        if ph == st.PH_DEAL and t is Deal:
            assert isinstance(action, Deal)
            if action.seat != s.deal_seat:
                return f"the next deal goes to seat {s.deal_seat}, not seat {action.seat}"
            return f"card {action.card!r} is not in the deck"
        if ph == st.PH_SOLO_DRAW and t is SoloDraw:
            assert isinstance(action, SoloDraw)
            return f"card {action.card!r} is not in the deck"
        if ph == st.PH_DRAW and t is BagDraw:
            assert isinstance(action, BagDraw)
            return f"the bag holds no {action.colour} manatee"
        return None
    if cur < 0:
        return None
    if ph == st.PH_SPLIT and t is Split:
        assert isinstance(action, Split)
        small = list(action.small)
        dealt = _ids(s.dealt[cur])
        if len(small) not in (1, 2):
            return f"small must hold 1 or 2 cards, got {len(small)}"
        for cid in small:
            if cid not in dealt:
                return f"card {cid!r} was not dealt to seat {cur} (dealt: {', '.join(dealt)})"
        if len(small) == 2 and small[0] >= small[1]:
            return "small must list 2 distinct card ids in ascending order"
        return None
    if ph == st.PH_PLAY and t in (Act, Expand):
        card = action.card  # type: ignore[attr-defined]
        c = CARD_INDEX.get(card)
        p = s.players[cur]
        if c is None or c not in p.hand:
            return f"card {card!r} is not in seat {cur}'s hand ({', '.join(_ids(p.hand))})"
        if t is Expand:
            assert isinstance(action, Expand)
            why = p.sanct.explain(c, action.x, action.y, action.rot)
            if why:
                return f"cannot expand {card} at ({action.x},{action.y}) rot {action.rot}: {why}"
        return None
    if ph in (st.PH_RETURN_SPACE, st.PH_RETURN_FOOD) and t is Return:
        assert isinstance(action, Return)
        avail, values = return_context(s)
        ret = (action.grey, action.pink, action.yellow)
        what = "new manatees of this card" if ph == st.PH_RETURN_SPACE else "housed manatees"
        for i in range(3):
            if ret[i] < 0:
                return f"{MANATEE_NAMES[i]} must be >= 0, got {ret[i]}"
            if ret[i] > avail[i]:
                return f"only {avail[i]} {MANATEE_NAMES[i]} among the {what} can be returned"
        value = sum(ret[i] * values[i] for i in range(3))
        unit = "spaces" if ph == st.PH_RETURN_SPACE else "food"
        if value < s.deficit:
            return f"the returned manatees save {value} {unit}, the deficit is {s.deficit}"
        return (
            f"the set is not inclusion-minimal: it saves {value} {unit} for a deficit of "
            f"{s.deficit}, and some returned manatee could stay"
        )
    if ph == st.PH_SOLO_PICK and t is SoloPick:
        assert isinstance(action, SoloPick)
        offer = ", ".join(_ids(s.offer))
        return f"card {action.card!r} is not one of the two revealed cards ({offer})"
    if ph == st.PH_DISCARD and t is Discard:
        assert isinstance(action, Discard)
        which = "most" if s.discard_max else "fewest"
        return f"discard must be a card with the {which} dots in hand; {action.card!r} is not"
    return None


__all__ = ["COLOUR_NAMES", "SCOREBOARD", "card_text", "illegal_reason", "observation", "render"]
