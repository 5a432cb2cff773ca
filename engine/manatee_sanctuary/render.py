"""Text view of a Manatee Sanctuary state (``state.render(seat)``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import CHANCE, TERMINAL
from engine.manatee_sanctuary import scoring
from engine.manatee_sanctuary import steps as st
from engine.manatee_sanctuary.data import (
    BONUS_DOC,
    BONUS_IDS,
    CARD_ID,
    CARD_INDEX,
    CHALLENGES,
    DOTS,
    EDGES,
    ENDGAME,
    HABITAT,
    MANATEE_NAMES,
    SCOREBOARD,
    TOP,
    card_ids,
)
from engine.manatee_sanctuary.hidden import known_cards
from engine.manatee_sanctuary.observation import STACK_NAMES, observation

if TYPE_CHECKING:
    from engine.manatee_sanctuary.state import ManateeSanctuaryState

_EDGE_CH = ("#", "r", "g", "p")


def card_text(c: int) -> str:
    """Short description: id, dots, top icons, edges, habitat / end-game kind."""
    edges = "".join(_EDGE_CH[e] for e in EDGES[c])
    hab = f"h{HABITAT[c]}" if not ENDGAME[c] else ENDGAME[c]
    return f"{CARD_ID[c]}[{'*' * DOTS[c]} {TOP[c]} {edges} {hab}]"


def sanctuary_grid(s: ManateeSanctuaryState, seat: int) -> list[str]:
    """The sanctuary as a text grid, north up; each cell shows its id and compass edges."""
    p = s.players[seat]
    cells = p.sanctuary.cells
    names = {(x, y): CARD_ID[c] for c, x, y, _r in p.sanctuary.placements}
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


def render(s: ManateeSanctuaryState, seat: int | None) -> str:
    obs = observation(s, seat)
    who = {CHANCE: "chance", TERMINAL: "game over"}.get(s.current, f"seat {s.current}")
    head = (
        f"Manatee Sanctuary ({obs['mode']}, {s.seats} player{'s' if s.seats > 1 else ''}) - "
        f"round {s.round}, {obs['phase']} / {obs['step']}, to move: {who}"
    )
    out = [head]
    out.append(
        f"deck {len(s.deck)} cards; bag grey {s.bag[0]} pink {s.bag[1]} yellow {s.bag[2]}; "
        f"passing {obs['direction']}"
    )
    if s.bonus_module:
        out.append(
            "round bonuses: "
            + "; ".join(
                f"R{r + 1} {BONUS_IDS[b]} ({BONUS_DOC[BONUS_IDS[b]]})"
                for r, b in enumerate(s.round_bonus)
                if b >= 0
            )
        )
    if s.solo:
        line = f"solo token {s.solo_token:+d}"
        if s.challenge:
            line += f"; challenge {s.challenge} {CHALLENGES[s.challenge]}"
            if s.saver_lost:
                line += " (lost)"
        if s.solo_offer:
            line += "; offer: " + ", ".join(card_text(c) for c in s.solo_offer)
        out.append(line)
    res = s.resolving
    if res is not None:
        out.append(
            f"resolving act {CARD_ID[res.card]} of seat {res.seat}: {res.draws_left} draws "
            "left, new " + ", ".join(f"{MANATEE_NAMES[i]} {res.new[i]}" for i in range(3))
        )
    if obs["return_kind"]:
        out.append(
            f"seat {s.current} must return manatees: {obs['return_kind']} "
            f"deficit {s.return_deficit}"
        )
    for j, p in enumerate(s.players):
        bd = scoring.breakdown(s, j)
        mark = " <" if j == s.current else ""
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
            extra = f" (known: {', '.join(card_ids(known))})" if known else ""
            out.append(f"  hand: {len(p.hand)} cards{extra}")
        if s.split_size[j] >= 0:
            kept = STACK_NAMES[s.kept[j]] if s.kept[j] >= 0 else "?"
            out.append(f"  draft: split {s.split_size[j]}+{5 - s.split_size[j]}, kept {kept}")
        if p.pile:
            out.append("  action pile: " + " ".join(card_ids(p.pile)))
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
    if s.step == st.GAME_OVER:
        result = s.result()
        out.append("")
        out.append(
            "Final: "
            + ", ".join(
                f"seat {j} {int(sc)} (rank {rk})"
                for j, (sc, rk) in enumerate(zip(result.scores, result.ranks, strict=True))
            )
        )
        if s.solo:
            band = int(result.breakdown[0]["solo_band"])
            out.append(f"scoreboard: {SCOREBOARD[band]}")
    out.append("edges: # wall, r red, g green, p purple")
    return "\n".join(out)


__all__ = ["card_text", "render", "sanctuary_grid"]
