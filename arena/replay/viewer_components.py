"""Static component data the HTML viewer needs to draw a board (tile pictures, card edges).

Observations name components by id (``T07``, ``D13``, ``S51``); what is printed on them
lives in the engine's component tables. This module copies the few tables a game's
drawing needs into plain JSON, so the viewer file stays self-contained. A game whose
tables cannot be read (an engine in progress) gets ``{}`` and is drawn with labels.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core import JSON


def _panorama() -> dict[str, JSON]:
    from engine.panorama import tiles

    return {
        "tiles": {
            tid: {"terrain": list(tiles.TERRAIN_ROWS[i]), "items": list(tiles.ITEM_ROWS[i])}
            for i, tid in enumerate(tiles.TILE_IDS)
        },
        "goals": {g: str(tiles.GOAL_TEXT.get(g, g)) for g in tiles.GOAL_IDS},
    }


def _dziobaki() -> dict[str, JSON]:
    from engine.dziobaki import components as c

    tiles: dict[str, JSON] = {}
    for i, tid in enumerate(c.TILE_IDS):
        mask = c.ORIENTED_ARMS[4 * i]
        tiles[tid] = {
            "arms": [a for a in range(4) if mask >> a & 1],
            "animals": [[sp, q] for sp, q in c.ORIENTED_ANIMALS[4 * i]],
        }
    return {
        "species": list(c.SPECIES),
        "letters": list(c.SPECIES_LETTER),
        "seat_colours": list(c.SEAT_COLOURS),
        "tiles": tiles,
        "printed": {
            side: [
                {"species": sp, "cell": [cell // c.FINE_COLS, cell % c.FINE_COLS], "margin": m}
                for sp, (cell, m) in enumerate(
                    zip(c.PRINTED_CELLS[side], c.PRINTED_MARGINS[side], strict=True)
                )
            ]
            for side in c.SIDES
        },
    }


def _manatee_sanctuary() -> dict[str, JSON]:
    from engine.manatee_sanctuary import data as d

    cards: dict[str, JSON] = {}
    for i in range(d.SEACOW_FIRST, d.NUM_CARDS):
        cards[d.CARD_ID[i]] = {
            "dots": d.DOTS[i],
            "top": d.TOP[i],
            "edges": [d.COLOUR_NAMES[e] for e in d.EDGES[i]],
            "habitat": d.HABITAT[i],
            "endgame": d.ENDGAME[i],
        }
    cards["START"] = {
        "dots": 0,
        "top": "",
        "edges": [d.COLOUR_NAMES[e] for e in d.START_EDGES],
        "habitat": d.START_HABITAT,
        "endgame": "",
    }
    return {"cards": cards}


def _zooloretto_mini() -> dict[str, JSON]:
    return {"species": {"S1": "impala", "S2": "rhino", "S3": "llama"}}


def _carson_city_zoo() -> dict[str, JSON]:
    from engine.carson_city_zoo import components as c

    return {"team_colours": dict(c.TEAM_COLOURS)}


BUILDERS: dict[str, Callable[[], dict[str, JSON]]] = {
    "panorama": _panorama,
    "dziobaki": _dziobaki,
    "manatee_sanctuary": _manatee_sanctuary,
    "zooloretto_mini": _zooloretto_mini,
    "carson_city_zoo": _carson_city_zoo,
}


def components(game: str) -> dict[str, JSON]:
    """The drawing tables of ``game`` ({} if the game has none or they cannot be read)."""
    builder = BUILDERS.get(game)
    if builder is None:
        return {}
    try:
        return builder()
    except (ImportError, AttributeError, IndexError, KeyError, TypeError):
        return {}
