"""The Game: options, variants, step bound, new states, rebuilds and viewer components."""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.core import JSON, Game, GameConfigError, Option, State
from engine.manatee_sanctuary import data
from engine.manatee_sanctuary.actions import ACTION_CLASSES
from engine.manatee_sanctuary.rebuild import from_observation
from engine.manatee_sanctuary.state import ManateeSanctuaryState


class ManateeSanctuaryGame(Game):
    id = "manatee_sanctuary"
    name = "Manatee Sanctuary"
    version = 1
    min_players = 1
    max_players = 12
    option_specs = {
        "round_bonuses": Option(
            False,
            "Optional round-bonus module: three of the eight round-bonus cards RB1-RB8 are "
            "drawn at setup (chance events), one per round, and score in that round's "
            "scoring phase. 1-12 players; not combinable with a solo challenge. In solo "
            "games every scoreboard threshold is 25 higher.",
            type=bool,
        ),
        "solo_challenge": Option(
            0,
            "Solo challenge 1-8 (0 = none; 1 player only, round bonuses off): 1 Harvester "
            "(>= 40 food), 2 Tight Fit (each card 1 habitat less), 3 Colour Coordinated "
            "(>= 7 flowers of one colour), 4 Shortage (<= 6 flowers), 5 Power Cap (once, "
            "discard a card with the most dots), 6 Weak Cut (each round discard a card with "
            "the fewest dots), 7 Architect (2x3 rectangle R6), 8 Manatee Saver (>= 24 "
            "manatees, never return one). Won iff the condition holds and the total is >= 70.",
            type=int,
            choices=tuple(range(9)),
        ),
        "scramble": Option(
            False,
            "Sanctuary Scramble: two copies of the game combined (deck S01-S90 + M01-M90, "
            "bag 160/60/40). Required for 7-12 players, rejected for 1-6.",
            type=bool,
        ),
    }
    action_classes = ACTION_CLASSES

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        """The combinations of options and player counts (types and choices are declared)."""
        match key:
            case "round_bonuses":
                if value and options.get("solo_challenge", 0) not in (0, None):
                    return "cannot be combined with a solo challenge"
            case "solo_challenge":
                if value and num_players != 1:
                    return "solo challenges need exactly 1 player"
                if value and options.get("round_bonuses") is True:
                    return "cannot be combined with round bonuses"
            case "scramble":
                if value and num_players <= 6:
                    return f"Sanctuary Scramble is for 7-12 players, not {num_players}"
                if not value and num_players >= 7:
                    return f"{num_players} players need Sanctuary Scramble (scramble: true)"
        return None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        if num_players >= 7 and not options.get("scramble"):
            raise GameConfigError(
                f"{self.id}: {num_players} players need the option scramble: true "
                "(Sanctuary Scramble, 7-12 players)"
            )
        return ManateeSanctuaryState(self, num_players, options)

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        """The determinization of ``seat``'s observation (see :mod:`.rebuild`)."""
        assert isinstance(initial, ManateeSanctuaryState)
        return from_observation(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        # Per player and round: 5 deals (10 solo draws + 5 picks + 2 challenge steps),
        # split, keep; at most 8 cards each with 1 play, 1 return and 3 + b draws where
        # b <= yellows in the game; one feeding return. Plus 3 round-bonus draws.
        yellows = 40 if options.get("scramble") else 20
        per_round = 20 + 8 * (2 + 3 + yellows) + 1
        return 3 + 3 * num_players * per_round

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        if num_players == 1:
            return [{}, {"round_bonuses": True}] + [{"solo_challenge": k} for k in range(1, 9)]
        if num_players <= 6:
            return [{}, {"round_bonuses": True}]
        # Scramble playouts are long (up to 12 seats): alternate the module by player
        # count so both combinations are covered at half the cost.
        return [{"scramble": True, "round_bonuses": num_players % 2 == 0}]

    def components(self) -> dict[str, JSON]:
        """What the viewer draws cards with: each sea-cow card's dots, top icons, edges
        (N, E, S, W colour names), habitat and end-game kind, and the start tile."""
        cards: dict[str, JSON] = {}
        for i in range(data.SEACOW_FIRST, data.NUM_CARDS):
            cards[data.CARD_ID[i]] = {
                "dots": data.DOTS[i],
                "top": data.TOP[i],
                "edges": [data.COLOUR_NAMES[e] for e in data.EDGES[i]],
                "habitat": data.HABITAT[i],
                "endgame": data.ENDGAME[i],
            }
        cards["START"] = {
            "dots": 0,
            "top": "",
            "edges": [data.COLOUR_NAMES[e] for e in data.START_EDGES],
            "habitat": data.START_HABITAT,
            "endgame": "",
        }
        return {"cards": cards}
