"""Component data of Manatee Sanctuary (spec "Components"): cards, start tile, bonuses, shapes.

Cards are referred to by a small integer index everywhere in the engine. The index order
is the spec's canonical "ascending id" order over both editions: ``M01``..``M90`` are
indices 0..89 and ``S01``..``S90`` are indices 90..179, so sorting indices sorts ids.
A standard game uses only indices 90..179; Scramble uses all 180. ``BASE[i]`` is the
0-based number of the sea-cow card with the same data (``Mnn`` is a copy of ``Snn``).
"""

from __future__ import annotations

# Edge colour codes (0 = wall, else a half-flower colour).
WALL, RED, GREEN, PURPLE = 0, 1, 2, 3
COLOUR_NAMES = ("wall", "red", "green", "purple")
EDGE_LETTER = {"w": WALL, "r": RED, "g": GREEN, "p": PURPLE}

# Manatee colours (index into housed/bag lists).
GREY, PINK, YELLOW = 0, 1, 2
MANATEE_NAMES = ("grey", "pink", "yellow")

# (id, dots, top icons, edges [top,right,bottom,left] as w/r/g/p letters, habitat, endgame)
# Normative data of the spec (section "Sanctuary cards"), sea-cow edition.
_SEACOW: tuple[tuple[str, int, str, str, int, str], ...] = (
    ("S01", 1, "P", "wrpr", 1, ""),
    ("S02", 1, "P", "prww", 2, ""),
    ("S03", 1, "P", "rwpp", 2, ""),
    ("S04", 1, "P", "wpwg", 2, ""),
    ("S05", 1, "P", "gwwg", 3, ""),
    ("S06", 1, "P", "gwpp", 4, ""),
    ("S07", 1, "Y", "gggr", 2, ""),
    ("S08", 1, "Y", "ggww", 3, ""),
    ("S09", 1, "Y", "gwww", 3, ""),
    ("S10", 1, "Y", "rwww", 3, ""),
    ("S11", 1, "Y", "rwww", 3, ""),
    ("S12", 1, "Y", "gwrg", 4, ""),
    ("S13", 1, "?", "gwww", 1, ""),
    ("S14", 1, "?", "ppww", 1, ""),
    ("S15", 1, "?", "gwpr", 2, ""),
    ("S16", 1, "?", "pwwg", 2, ""),
    ("S17", 1, "?", "rwww", 2, ""),
    ("S18", 1, "?", "wwrr", 2, ""),
    ("S19", 1, "?", "ggww", 3, ""),
    ("S20", 1, "?", "prww", 3, ""),
    ("S21", 1, "?", "rrpr", 3, ""),
    ("S22", 1, "?", "rwpw", 3, ""),
    ("S23", 1, "H", "gwww", 1, ""),
    ("S24", 1, "H", "prrw", 1, ""),
    ("S25", 1, "H", "pwwp", 1, ""),
    ("S26", 1, "H", "gppw", 2, ""),
    ("S27", 1, "H", "gwwp", 2, ""),
    ("S28", 1, "H", "ppwg", 2, ""),
    ("S29", 1, "H", "rwww", 2, ""),
    ("S30", 1, "H", "pwww", 3, ""),
    ("S31", 2, "P?", "pwww", 2, ""),
    ("S32", 2, "P?", "pwww", 2, ""),
    ("S33", 2, "P?", "rrrp", 2, ""),
    ("S34", 2, "P?", "rwrw", 2, ""),
    ("S35", 2, "P?", "rwww", 4, ""),
    ("S36", 2, "PH", "pggp", 2, ""),
    ("S37", 2, "PH", "gwwg", 0, "per_yellow_3"),
    ("S38", 2, "Y?", "prpw", 1, ""),
    ("S39", 2, "Y?", "ggrg", 3, ""),
    ("S40", 2, "Y?", "rppw", 3, ""),
    ("S41", 2, "Y?", "rwwr", 3, ""),
    ("S42", 2, "YH", "pwwr", 4, ""),
    ("S43", 2, "YH", "pggw", 0, "per_pink_2"),
    ("S44", 2, "??", "pwgp", 1, ""),
    ("S45", 2, "??", "pwrw", 1, ""),
    ("S46", 2, "??", "pwpw", 2, ""),
    ("S47", 2, "??", "rpwp", 2, ""),
    ("S48", 2, "??", "gggw", 3, ""),
    ("S49", 2, "??", "ggww", 3, ""),
    ("S50", 2, "??", "gprr", 3, ""),
    ("S51", 2, "??", "prpp", 5, ""),
    ("S52", 2, "??", "rwwr", 0, "per_2_manatees_1"),
    ("S53", 2, "?H", "grgg", 2, ""),
    ("S54", 2, "?H", "ppww", 2, ""),
    ("S55", 2, "?H", "wwpp", 2, ""),
    ("S56", 2, "?H", "wpgp", 3, ""),
    ("S57", 2, "?H", "wprp", 3, ""),
    ("S58", 2, "?H", "pwwg", 4, ""),
    ("S59", 2, "?H", "rrpg", 5, ""),
    ("S60", 2, "?H", "rgrw", 0, "per_2_manatees_1"),
    ("S61", 2, "?H", "wgrg", 0, "per_pink_2"),
    ("S62", 2, "?H", "rrrg", 0, "per_yellow_3"),
    ("S63", 2, "HH", "rwww", 1, ""),
    ("S64", 2, "HH", "gwwr", 3, ""),
    ("S65", 2, "HH", "rggw", 3, ""),
    ("S66", 2, "HH", "gprw", 4, ""),
    ("S67", 3, "P??", "rpwr", 5, ""),
    ("S68", 3, "P??", "ggpg", 0, "per_yellow_3"),
    ("S69", 3, "P?H", "rrgp", 3, ""),
    ("S70", 3, "P?H", "pwrp", 4, ""),
    ("S71", 3, "P?H", "gwrr", 0, "per_2_manatees_1"),
    ("S72", 3, "Y??", "grrr", 2, ""),
    ("S73", 3, "Y??", "gpgr", 3, ""),
    ("S74", 3, "Y?H", "pwrr", 4, ""),
    ("S75", 3, "Y?H", "rwpw", 4, ""),
    ("S76", 3, "???", "gwpr", 4, ""),
    ("S77", 3, "???", "rwwp", 5, ""),
    ("S78", 3, "???", "gppw", 0, "per_pink_2"),
    ("S79", 3, "??H", "wpgp", 2, ""),
    ("S80", 3, "??H", "gwwr", 3, ""),
    ("S81", 3, "??H", "pwwr", 3, ""),
    ("S82", 3, "??H", "grrp", 4, ""),
    ("S83", 3, "??H", "rggr", 4, ""),
    ("S84", 3, "??H", "gppr", 5, ""),
    ("S85", 3, "?HH", "grww", 3, ""),
    ("S86", 3, "?HH", "wgwg", 4, ""),
    ("S87", 3, "?HH", "rwgw", 5, ""),
    ("S88", 3, "?HH", "gpgg", 0, "per_2_manatees_1"),
    ("S89", 3, "?HH", "pwgw", 0, "per_pink_2"),
    ("S90", 3, "?HH", "pgwg", 0, "per_yellow_3"),
)

START_EDGES: tuple[int, int, int, int] = (RED, GREEN, PURPLE, WALL)
START_HABITAT = 2

ENDGAME_KINDS = ("per_2_manatees_1", "per_pink_2", "per_yellow_3")

NUM_BASE = len(_SEACOW)  # 90
NUM_CARDS = 2 * NUM_BASE  # 180 (both editions)
SEACOW_FIRST = NUM_BASE  # index of S01

CARD_ID: list[str] = [f"M{i + 1:02d}" for i in range(NUM_BASE)] + [c[0] for c in _SEACOW]
CARD_INDEX: dict[str, int] = {cid: i for i, cid in enumerate(CARD_ID)}
BASE: list[int] = [i % NUM_BASE for i in range(NUM_CARDS)]

DOTS: list[int] = [_SEACOW[BASE[i]][1] for i in range(NUM_CARDS)]
TOP: list[str] = [_SEACOW[BASE[i]][2] for i in range(NUM_CARDS)]
HABITAT: list[int] = [_SEACOW[BASE[i]][4] for i in range(NUM_CARDS)]
ENDGAME: list[str] = [_SEACOW[BASE[i]][5] for i in range(NUM_CARDS)]
EDGES: list[tuple[int, int, int, int]] = [
    (
        EDGE_LETTER[_SEACOW[BASE[i]][3][0]],
        EDGE_LETTER[_SEACOW[BASE[i]][3][1]],
        EDGE_LETTER[_SEACOW[BASE[i]][3][2]],
        EDGE_LETTER[_SEACOW[BASE[i]][3][3]],
    )
    for i in range(NUM_CARDS)
]
# Icon counts per card: P (specific pink), Y (specific yellow), ? (random), H (harvest).
N_PINK: list[int] = [t.count("P") for t in TOP]
N_YELLOW: list[int] = [t.count("Y") for t in TOP]
N_RANDOM: list[int] = [t.count("?") for t in TOP]
N_HARVEST: list[int] = [t.count("H") for t in TOP]
N_RESCUE: list[int] = [p + y + r for p, y, r in zip(N_PINK, N_YELLOW, N_RANDOM, strict=True)]
"""Manatees an act of the card rescues: its P, Y and ? icons (before yellow bonus draws)."""


def card_ids(cards: list[int]) -> list[str]:
    """The ids of card indices, in order."""
    return [CARD_ID[c] for c in cards]


def cards_text(cards: list[int]) -> str:
    """The ids of card indices joined by spaces (the digest's form of a card list)."""
    return " ".join([CARD_ID[c] for c in cards])


def rotated_edges(edges: tuple[int, int, int, int], k: int) -> tuple[int, int, int, int]:
    """Compass sides N, E, S, W of a card turned ``k`` quarter turns clockwise (5.5)."""
    return (edges[(0 - k) % 4], edges[(1 - k) % 4], edges[(2 - k) % 4], edges[(3 - k) % 4])


# ROT_EDGES[base][k]: compass edges of sea-cow card ``base`` at rotation k*90.
ROT_EDGES: list[tuple[tuple[int, int, int, int], ...]] = [
    tuple(rotated_edges(EDGES[SEACOW_FIRST + b], k) for k in range(4)) for b in range(NUM_BASE)
]

# Round-bonus cards (optional module, spec "Round-bonus cards").
BONUS_IDS = ("RB1", "RB2", "RB3", "RB4", "RB5", "RB6", "RB7", "RB8")
BONUS_DOC = {
    "RB1": "3 points per housed yellow manatee",
    "RB2": "2 points per housed pink manatee",
    "RB3": "1 point per housed manatee",
    "RB4": "3 points per completed red flower",
    "RB5": "3 points per completed green flower",
    "RB6": "3 points per completed purple flower",
    "RB7": "5/10/15 points (round 1/2/3) with at most 3 food",
    "RB8": "5/10/15 points (round 1/2/3) for shape I3/O4/X5",
}
RB7_POINTS = (5, 10, 15)
RB8_POINTS = (5, 10, 15)
RB8_SHAPES = ("I3", "O4", "X5")

SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    "I3": ((0, 0), (1, 0), (2, 0)),
    "O4": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "X5": ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2)),
    "R6": ((0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)),
}

# Manatee round points (grey, pink, yellow) per round (5.7).
ROUND_POINTS = ((3, 6, 3), (2, 4, 2), (1, 2, 1))
SPACE_VALUE = (1, 1, 2)  # spaces freed by returning grey/pink/yellow
FOOD_VALUE = (1, 2, 1)  # food saved by returning grey/pink/yellow
FOOD_CAP = 99
RETURN_PENALTY = 2  # points lost per manatee returned to the bag (capacity or food)

BAG_STANDARD = (80, 30, 20)
BAG_SCRAMBLE = (160, 60, 40)

CHALLENGES = (
    "",
    "Harvester",
    "Tight Fit",
    "Colour Coordinated",
    "Shortage",
    "Power Cap",
    "Weak Cut",
    "Architect",
    "Manatee Saver",
)
SCOREBOARD = (
    "Try again",
    "You can do better",
    "Competent",
    "Good",
    "Great",
    "Amazing",
    "Too amazing",
    "Manatopia achieved",
)
SCOREBOARD_LOW = (50, 60, 70, 80, 90, 100, 110)

# Score breakdown categories (spec "Scoring"), in a fixed order.
CATEGORIES = (
    "start",
    "round_1",
    "round_2",
    "round_3",
    "bonus_1",
    "bonus_2",
    "bonus_3",
    "solo_1",
    "solo_2",
    "solo_3",
    "endgame",
    "returned_space",
    "returned_food",
)
CAT = {name: i for i, name in enumerate(CATEGORIES)}
