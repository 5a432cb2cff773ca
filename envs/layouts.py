"""Each game's observation layout and decision space (see :mod:`envs.tensors`).

A layout names the observation fields it encodes, each with what it means; the fields it
leaves out are listed in its :attr:`GameSpec.left_out` with the reason (a field another one
already carries, or a history whose order a flat vector does not keep). Vocabularies and
value domains come from the games' own data and action modules, so a new tile or card
shows up here without an edit. ``python -m envs.describe <game>`` prints a layout.

Manatee Sanctuary's decision space is factored and relative to the seat (hand slots,
placements by the card they are tucked under): :mod:`envs.manatee`.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import dataclass

from engine.carson_city_zoo import actions as ccz_actions
from engine.carson_city_zoo import data as ccz
from engine.core import Action
from engine.dziobaki import actions as dz_actions
from engine.dziobaki import data as dz
from engine.manatee_sanctuary import actions as ms_actions
from engine.manatee_sanctuary import data as ms
from engine.manatee_sanctuary import steps as ms_steps
from engine.panorama import actions as pn_actions
from engine.panorama import data as pn
from engine.registry import get_game
from engine.zooloretto_mini import actions as zm_actions
from engine.zooloretto_mini import data as zm
from envs.manatee import MAX_PLACED, Card, Cards, ManateeActions, Placed
from envs.tensors import (
    ActionSpace,
    DecisionSpace,
    Field,
    Layout,
    Number,
    OneHot,
    Record,
    Rows,
    Seat,
    Seats,
    Tokens,
)

HIDDEN_STATE: tuple[str, ...] = ("carson_city_zoo", "dziobaki", "manatee_sanctuary")
"""Games with hidden state: Carson City Zoo's face-down cards, Dziobaki's commitments,
Manatee Sanctuary's hands and draft commitments."""


@dataclass(frozen=True)
class GameSpec:
    """What a learner needs of one game: the observation layout and the decision space."""

    game_id: str
    layout: Layout
    actions: DecisionSpace
    """Every decision a seat can be offered (an :class:`ActionSpace`, or a space relative
    to the state: :class:`envs.manatee.ManateeActions`)."""
    chance: ActionSpace
    """Every chance outcome (OpenSpiel numbers chance outcomes apart from decisions)."""
    hidden: bool
    """Whether a state holds what a seat cannot see beyond the undrawn order (which the
    engines leave to explicit chance nodes): OpenSpiel's imperfect information."""
    left_out: str
    """The observation fields the layout does not encode, and why."""


def _unique(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _zooloretto_mini() -> GameSpec:
    n = get_game("zooloretto_mini").max_players
    tiles = zm.ALL_TILES
    fields: list[Field] = [
        Seat("current_player", "the seat to move", n),
        OneHot("phase", "the step due next", _unique(zm.PHASE_NAMES)),
        Number("round", "round number / 10", 10),
        Seat("round_start_player", "the seat that starts the round", n),
        Number("last_round", "1 in the last round"),
        Number("bag_count", "tiles left in the bag / 50", 50),
        Number("end_count", "tiles left before the last round / 50", 50),
        Tokens("removed_species", "species out of the game", zm.SPECIES),
        Tokens("offspring_supply", "offspring tiles still in the supply", tiles),
        Tokens("out_of_play", "tiles that left the game", tiles),
        OneHot("drawn_tile", "the tile drawn and not yet loaded", tiles),
        Number("bonus_pending", "bonus decisions pending"),
        Rows(
            "trucks",
            "the trucks of the round (padded to 5)",
            len(zm.TRUCK_IDS),
            Record(
                None,
                "",
                (
                    Number("capacity", "free + loaded slots"),
                    Tokens("tiles", "loaded tiles", tiles),
                    Seat("taken_by", "the seat that took it", n),
                ),
            ),
        ),
        Seats(
            "players",
            "each seat's zoo, the observer first",
            n,
            Record(
                None,
                "",
                (
                    Number("active", "1 while the seat is still in the round"),
                    OneHot("truck", "the truck taken", zm.TRUCK_IDS),
                    Rows(
                        "enclosures",
                        "E1, E2, E3",
                        3,
                        Record(
                            None,
                            "",
                            (
                                OneHot("species", "the enclosure's species", zm.SPECIES),
                                Tokens("tiles", "tiles in it", tiles),
                                Tokens("paired", "tiles already paired", tiles),
                            ),
                        ),
                    ),
                    Tokens("barn", "tiles in the barn", tiles),
                ),
            ),
        ),
        Seats("scores", "provisional totals / 10", n, Number(None, "score / 10", 10)),
    ]
    decisions: tuple[type[Action], ...] = (
        zm_actions.Draw,
        zm_actions.TakeTruck,
        zm_actions.Load,
        zm_actions.Place,
        zm_actions.BonusTake,
        zm_actions.BonusDiscard,
        zm_actions.BonusSkip,
    )
    domains = {
        ("place", "tile"): tiles,
        ("bonus_take", "from"): range(n),
        ("bonus_take", "tile"): tiles,
        ("bonus_discard", "tile"): tiles,
    }
    domains[("start_player", "seat")] = range(n)
    domains[("draw_tile", "tile")] = tiles
    chance = (zm_actions.RemoveSpecies, zm_actions.StartPlayer, zm_actions.DrawTile)
    return _spec(
        "zooloretto_mini",
        fields,
        decisions,
        chance,
        domains,
        "you and seat (the rotation carries them); players[].score (scores carries the "
        "total; the breakdown follows from the zoo)",
    )


def _carson_city_zoo() -> GameSpec:
    n = get_game("carson_city_zoo").max_players
    chars = typing.get_args(ccz.CharId)
    fields: list[Field] = [
        OneHot("phase", "the step due next", ccz.PHASE_NAMES),
        Seat("current_player", "the seat to move", n),
        Seat("start_player", "the seat that moved first", n),
        Number("cards_dealt", "zoo cards dealt / 50", 50),
        Rows(
            "spaces",
            "the board's spaces, row by row",
            ccz.NUM_SPACES,
            Record(
                None,
                "",
                (
                    Number("cards", "cards on the space"),
                    Number("top_value", "the top card's value / 5 (-1/5 face down)", 5),
                    OneHot("occupant", "the character on it", chars),
                    Number("mutated", "1 once a mutant was found here"),
                ),
            ),
        ),
        Seats(
            "players",
            "each seat, the observer first",
            n,
            Record(
                None,
                "",
                (
                    OneHot("team", "the seat's team colour", ccz.TEAM_IDS),
                    Tokens("hand", "characters in hand", chars),
                    Tokens("on_board", "characters on the board", chars),
                    Tokens("zoo_pile", "zoo cards captured", ccz.CARD_IDS, "id"),
                    Tokens("character_pile", "characters captured", chars, "id"),
                    Number("zoo_cards", "points from zoo cards / 10", 10),
                    Number("captured_characters", "points from characters / 10", 10),
                    Number("surviving_characters", "points from survivors / 10", 10),
                ),
            ),
        ),
        Rows("mutant_found", "per team colour: its mutant was found", 4, Number(None, "")),
        Seats("scores", "provisional totals / 10", n, Number(None, "score / 10", 10)),
    ]
    decisions: tuple[type[Action], ...] = (ccz_actions.Place, ccz_actions.Move)
    domains = {
        ("place", "space"): range(ccz.NUM_SPACES),
        ("deal", "card"): ccz.CARD_IDS,
        ("start_player", "seat"): range(n),
    }
    return _spec(
        "carson_city_zoo",
        fields,
        decisions,
        (ccz_actions.Deal, ccz_actions.StartPlayer),
        domains,
        "you; spaces[].space/row/col (the position in the list); the values and mutant "
        "marks of the captured cards and characters (zoo_cards and captured_characters carry "
        "their points); players[].total (scores)",
    )


def _dziobaki() -> GameSpec:
    n = get_game("dziobaki").max_players
    tiles = dz.TILE_IDS
    board_space = Record(
        None,
        "",
        (
            OneHot("tile", "the tile on the space", tiles),
            OneHot("rotation", "its quarter turns clockwise", (0, 1, 2, 3)),
        ),
    )
    fields: list[Field] = [
        Seat("current_player", "the seat to move", n),
        OneHot("phase", "the step due next", ("reveal", "place", "over")),
        Number("round", "round number / 12", 12),
        OneHot("board_side", "the board side played", ("A", "B")),
        Number("all_together", "1 with the all-together bonus"),
        OneHot("revealed_tile", "this round's tile", tiles),
        Tokens("revealed", "tiles revealed so far", tiles),
        Number("stack_size", "tiles left in the stack / 15", 15),
        Tokens("unrevealed", "tiles still to come", tiles),
        Tokens("supply", "tiles in the supply", tiles),
        Seats("committed", "1 once a seat committed this round", n, Number(None, "")),
        Record(
            "my_commitment",
            "the observer's own commitment this round",
            (
                OneHot("space", "its space", tuple(range(dz.SPACES))),
                OneHot("rotation", "its rotation", (0, 1, 2, 3)),
            ),
        ),
        Seats(
            "boards",
            "each seat's board, the observer first",
            n,
            Record(None, "", (Rows("spaces", "spaces 0..11", dz.SPACES, board_space),)),
        ),
        Seats("scores", "provisional totals / 10", n, Number(None, "score / 10", 10)),
    ]
    return _spec(
        "dziobaki",
        fields,
        (dz_actions.Place,),
        (dz_actions.Reveal,),
        {("place", "space"): range(dz.SPACES), ("place", "rotation"): range(4)},
        "you, viewer; boards[].score (scores carries the total); ranks (empty until the "
        "game is over)",
    )


def _panorama() -> GameSpec:
    n = get_game("panorama").max_players
    tiles = pn.TILE_IDS
    spaces = tuple(range(pn_actions.MAX_SPACES))
    fields: list[Field] = [
        Seat("current_player", "the seat to move", n),
        OneHot("phase", "the step due next", pn.PHASE_NAMES),
        OneHot("pending_space", "the space whose tile is being revealed", spaces),
        Tokens("goals", "the goals in play", pn.GOAL_IDS),
        Number("num_spaces", "spaces in play / 9", 9),
        OneHot("token_space", "the space of the sun/moon token", spaces),
        OneHot("token_face", "the token's face", ("sun", "moon")),
        Seat("active_player", "the seat whose turn it is", n),
        OneHot("held_tile", "the tile taken and not yet placed", tiles),
        Number("unrevealed_tiles", "tiles not yet revealed / 40", 40),
        Rows(
            "spaces",
            "the spaces (padded to 9)",
            pn_actions.MAX_SPACES,
            Record(
                None,
                "",
                (
                    Number("count", "tiles in the stack / 4", 4),
                    OneHot("top", "its visible top tile", tiles),
                    Seat("balloon_seat", "the balloon on it", n),
                ),
            ),
        ),
        Seats(
            "players",
            "each seat, the observer first",
            n,
            Record(
                None,
                "",
                (
                    Tokens("panorama", "tiles in the panorama (order not kept)", tiles),
                    Number("start_index", "position of the start tile / 10", 10),
                    OneHot("balloon_space", "the balloon's space", spaces),
                    OneHot("balloon", "the balloon's state", ("none", "standing", "deflated")),
                ),
            ),
        ),
        Seats("scores", "provisional totals / 10", n, Number(None, "score / 10", 10)),
    ]
    return _spec(
        "panorama",
        fields,
        (pn_actions.Fly, pn_actions.Place),
        (pn_actions.Reveal, pn_actions.BalloonDrop, pn_actions.GoalDraw),
        {
            ("fly", "space"): spaces,
            ("reveal", "space"): spaces,
            ("reveal", "tile"): tiles,
            ("balloon_drop", "space"): spaces,
            ("balloon_drop", "seat"): range(n),
            ("goal_draw", "goal"): pn.GOAL_IDS,
        },
        "you; spaces[].space (the position); players[].colour (the rotation); "
        "players[].points (scores carries the total); the order of players[].panorama",
    )


def _manatee_sanctuary() -> GameSpec:
    n = get_game("manatee_sanctuary").max_players
    bag = ms.BAG_SCRAMBLE
    player = Record(
        None,
        "",
        (
            Number("food", "food / 10", 10),
            Number("flowers", "completed flowers / 10", 10),
            Number("flowers_red", "red flowers / 10", 10),
            Number("flowers_green", "green flowers / 10", 10),
            Number("flowers_purple", "purple flowers / 10", 10),
            Number("housed_grey", "housed grey manatees / 10", 10),
            Number("housed_pink", "housed pink manatees / 10", 10),
            Number("housed_yellow", "housed yellow manatees / 10", 10),
            Number("capacity", "habitat spaces / 10", 10),
            Number("usage", "spaces in use / 10", 10),
            Number("hand_size", "cards in hand / 8", 8),
            Number("dealt_count", "cards dealt this draft / 5", 5),
            Number("committed", "1 once it committed in this draft step"),
            Number("split_size", "its small stack's size / 2 (-1/2 before the split)", 2),
            OneHot("kept", "the stack it kept", ("small", "large")),
            Cards("action_pile", "cards used for their top half"),
            Rows("sanctuary", "placed cards, in order", MAX_PLACED, Placed(None, "")),
            Cards("known_cards", "its cards the observer knows"),
        ),
    )
    fields: list[Field] = [
        Number("round", "round / 3", 3),
        OneHot("phase", "the phase", _unique(ms_steps.PHASE_OF_STEP)),
        OneHot("step", "the step due next", ms_steps.STEP_NAMES),
        OneHot("direction", "the draft's passing direction", ("left", "right")),
        Seat("current_player", "the seat to move", n),
        Seat("turn", "the turn pointer of the expand-or-act phase", n),
        OneHot("mode", "the mode", ("standard", "solo", "scramble")),
        Number("deck_size", "cards in the deck / 180", 180),
        Record(
            "bag",
            "manatees in the bag",
            (
                Number("grey", f"/ {bag[0]}", bag[0]),
                Number("pink", f"/ {bag[1]}", bag[1]),
                Number("yellow", f"/ {bag[2]}", bag[2]),
            ),
        ),
        Rows(
            "round_bonuses",
            "the round-bonus cards drawn",
            3,
            Record(
                None,
                "",
                (Number("round", "its round / 3", 3), OneHot("card", "the card", ms.BONUS_IDS)),
            ),
        ),
        Seat("deal_seat", "the seat the next card is dealt to", n),
        OneHot("solo_challenge", "the solo challenge (0: none)", tuple(range(9))),
        Number("solo_token", "the solo token / 20", 20),
        Cards("solo_offer", "the revealed cards of the solo draft"),
        Cards("solo_discards", "cards out of the game face up"),
        Number("power_cap_used", "1 once Power Cap was used"),
        Number("challenge_lost", "1 once Manatee Saver is lost"),
        Record(
            "resolving",
            "the act being resolved",
            (
                Seat("seat", "its seat", n),
                Card("card", "its card"),
                Number("draws_left", "draws left / 10", 10),
                Number("new_grey", "new grey manatees / 10", 10),
                Number("new_pink", "new pink manatees / 10", 10),
                Number("new_yellow", "new yellow manatees / 10", 10),
                Number("harvest_icons", "harvest icons to resolve / 3", 3),
            ),
        ),
        OneHot("return_kind", "what a pending return frees", ("space", "food")),
        Number("return_deficit", "what it must cover / 10", 10),
        Seats("players", "each seat, the observer first", n, player),
        Seats("scores", "provisional totals / 10", n, Number(None, "score / 10", 10)),
        Cards("hand", "the observer's hand"),
        Cards("dealt", "the observer's dealt cards"),
        Cards("my_split", "the observer's small stack"),
        Cards("received_small", "the small stack received"),
        Cards("received_large", "the large stack received"),
        OneHot("my_keep", "the observer's keep", ("small", "large")),
    ]
    chance_domains = {
        ("round_bonus", "round"): (1, 2, 3),
        ("round_bonus", "card"): ms.BONUS_IDS,
        ("deal", "seat"): range(n),
        ("deal", "card"): ms.CARD_ID,
        ("solo_draw", "card"): ms.CARD_ID,
    }
    chance = (ms_actions.RoundBonus, ms_actions.Deal, ms_actions.SoloDraw, ms_actions.BagDraw)
    return GameSpec(
        "manatee_sanctuary",
        Layout(fields),
        ManateeActions(),
        ActionSpace.from_classes(chance, chance_domains),
        True,
        "you; players[].seat (the rotation), score and breakdown (scores carries the total); "
        "the ids of placed cards (what they show is encoded); card editions (Mnn counts as "
        "Snn); the order of the action pile",
    )


def _spec(
    game_id: str,
    fields: list[Field],
    decisions: tuple[type[Action], ...],
    chance: tuple[type[Action], ...],
    domains: dict[tuple[str, str], typing.Any],
    left_out: str,
) -> GameSpec:
    return GameSpec(
        game_id,
        Layout(fields),
        ActionSpace.from_classes(decisions, domains),
        ActionSpace.from_classes(chance, domains),
        game_id in HIDDEN_STATE,
        left_out,
    )


_BUILDERS = {
    "zooloretto_mini": _zooloretto_mini,
    "carson_city_zoo": _carson_city_zoo,
    "dziobaki": _dziobaki,
    "panorama": _panorama,
    "manatee_sanctuary": _manatee_sanctuary,
}

SUPPORTED: tuple[str, ...] = tuple(_BUILDERS)
"""The games with a layout and an action space."""


@functools.cache
def spec(game_id: str) -> GameSpec:
    """The spec of ``game_id``; ValueError naming the supported games otherwise."""
    builder = _BUILDERS.get(game_id)
    if builder is None:
        known = ", ".join(SUPPORTED)
        raise ValueError(f"no tensor layout for {game_id!r}; games with one: {known}")
    return builder()
