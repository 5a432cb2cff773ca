"""Dziobaki rules: the position, the simultaneous placement, scoring, observations and
resampling."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Annotated

from engine.core import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Game,
    Result,
    State,
    competition_ranks,
)
from engine.dziobaki.actions import PLACES, Place, Reveal, places_on, reveals_of
from engine.dziobaki.data import NUM_TILES, ROUNDS, SPACES, TILE_IDS, TILE_INDEX, tile_text
from engine.dziobaki.render import render_observation
from engine.dziobaki.scoring import score_board
from engine.fields import Digest

FULL_MASK = (1 << NUM_TILES) - 1
EMPTY_BOARD_MASK = (1 << SPACES) - 1


def tile_ids(tiles: Sequence[int]) -> list[str]:
    """The ids of tile indices (``[8, 0]`` -> ``["D09", "D01"]``)."""
    return [TILE_IDS[t] for t in tiles]


def draw_commitment(empty_mask: int, rng: random.Random) -> int:
    """A uniformly random legal commitment ``4*space + rotation`` on a board whose empty
    spaces are the bits of ``empty_mask`` (which must not be 0)."""
    empties = [s for s in range(SPACES) if empty_mask >> s & 1]
    s = rng.choice(empties)
    return 4 * s + rng.randrange(4)


def ranks_of(breakdowns: Sequence[dict[str, int]]) -> list[int]:
    """Competition ranks by total, then the largest platypus meadow (spec "Ranking")."""
    return competition_ranks([(b["total"], b["max_platypus_in_meadow"]) for b in breakdowns])


class DziobakiState(State):
    """A Dziobaki position. Oriented tiles are codes ``4 * tile + rotation``."""

    round: int
    """The round: 0 before the first reveal, then 1..12."""
    revealed: Annotated[list[int], Digest(encode=tile_ids)]
    """The tile indices in reveal order; the last one is this round's tile."""
    remaining: Annotated[int, Digest(skip=True)]
    """Bit mask of the tile types not revealed yet: the stack as a multiset, never an order."""
    boards: list[list[int]]
    """Each seat's board as of the last completed round: a tile code per space, -1 empty."""
    empty_spaces: Annotated[list[int], Digest(skip=True)]
    """Each seat's bit mask of empty spaces (derived from ``boards``)."""
    commitments: Annotated[list[int], Digest(key="pending")]
    """Each seat's hidden commitment of this round, ``4 * space + rotation``, or -1."""
    current: Annotated[int, Digest(key="current_player")]
    """The seat to commit, CHANCE or TERMINAL."""

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        self.round = 0
        self.revealed = []
        self.remaining = FULL_MASK
        self.boards = [[-1] * SPACES for _ in range(num_players)]
        self.empty_spaces = [EMPTY_BOARD_MASK] * num_players
        self.commitments = [-1] * num_players
        self.current = CHANCE

    # -- contract -------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self.current

    @property
    def side(self) -> str:
        return str(self.options["board_side"])

    def _legal_actions(self) -> list[Action]:
        return places_on(self.empty_spaces[self.current])

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        return list(reveals_of(self.remaining))

    def is_legal(self, action: Action) -> bool:
        # Same answer as the base class, without scanning the list of legal actions.
        cp = self.current
        if cp >= 0:
            if not isinstance(action, Place):
                return False
            s, k = action.space, action.rotation
            return (
                type(s) is int
                and type(k) is int
                and 0 <= s < SPACES
                and 0 <= k < 4
                and bool(self.empty_spaces[cp] >> s & 1)
            )
        if cp == CHANCE and isinstance(action, Reveal):
            t = TILE_INDEX.get(action.tile, -1)
            return t >= 0 and bool(self.remaining >> t & 1)
        return False

    def _apply(self, action: Action) -> None:
        match action:  # places first: the most frequent
            case Place():
                cp = self.current
                self.commitments[cp] = 4 * action.space + action.rotation
                if cp + 1 < self.num_players:
                    self.current = cp + 1
                    return
                # Resolution: every commitment is revealed and applied at once.
                base = 4 * self.revealed[-1]
                commitments = self.commitments
                for j in range(self.num_players):
                    p = commitments[j]
                    s = p >> 2
                    self.boards[j][s] = base + (p & 3)
                    self.empty_spaces[j] &= ~(1 << s)
                    commitments[j] = -1
                self.current = TERMINAL if self.round == ROUNDS else CHANCE
            case Reveal():
                t = TILE_INDEX[action.tile]
                self.remaining &= ~(1 << t)
                self.revealed.append(t)
                self.round += 1
                self.current = 0

    # -- derived public facts -------------------------------------------------

    def _awaiting_tile(self) -> int:
        """Index of the revealed tile still to be placed this round, or -1."""
        return self.revealed[-1] if self.current >= 0 else -1

    def board(self, seat: int) -> list[int]:
        """Seat's board as of the last completed round (oriented tile codes, -1 empty)."""
        return list(self.boards[seat])

    def score(self, seat: int) -> dict[str, int]:
        """Seat's score breakdown on its board as it stands (final once the game is over)."""
        return score_board(self.boards[seat], self.side, bool(self.options["all_together"]))

    def _scores(self) -> list[float]:
        return [self.score(j)["total"] for j in range(self.num_players)]

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        cp = self.current
        awaiting = self._awaiting_tile()
        remaining = self.remaining
        unrevealed = [TILE_IDS[t] for t in range(NUM_TILES) if remaining >> t & 1]
        supply = [TILE_IDS[t] for t in range(NUM_TILES) if remaining >> t & 1 or t == awaiting]
        scores = [self.score(j) for j in range(self.num_players)]
        boards: list[JSON] = []
        for j in range(self.num_players):
            spaces: list[JSON] = []
            for s, code in enumerate(self.boards[j]):
                if code < 0:
                    spaces.append({"space": s, "tile": "", "rotation": -1})
                else:
                    spaces.append({"space": s, "tile": TILE_IDS[code >> 2], "rotation": code & 3})
            boards.append({"seat": j, "spaces": spaces, "score": scores[j]})
        own = self.commitments[seat] if seat is not None else -1
        committed = [cp >= 0 and j < cp for j in range(self.num_players)]
        return {
            "you": seat,
            "current_player": cp,
            "viewer": -1 if seat is None else seat,
            "phase": "over" if cp == TERMINAL else "reveal" if cp == CHANCE else "place",
            "scores": [b["total"] for b in scores],
            "round": self.round,
            "board_side": self.side,
            "all_together": bool(self.options["all_together"]),
            "revealed_tile": TILE_IDS[awaiting] if awaiting >= 0 else "",
            "revealed": tile_ids(self.revealed),
            "stack_size": NUM_TILES - len(self.revealed),
            "unrevealed": unrevealed,
            "supply": supply,
            "committed": committed,
            "my_commitment": {
                "space": own >> 2 if own >= 0 else -1,
                "rotation": own & 3 if own >= 0 else -1,
            },
            "boards": boards,
            "ranks": ranks_of(scores) if cp == TERMINAL else [],
        }

    def _result(self) -> Result:
        breakdown = [self.score(j) for j in range(self.num_players)]
        return Result(
            scores=[b["total"] for b in breakdown],
            breakdown=[dict(b) for b in breakdown],
            ranks=ranks_of(breakdown),
        )

    def _resample(self, seat: int, rng: random.Random) -> State:
        """Re-draw the hidden commitments of the other seats this round.

        The stack order is not part of the state (each reveal is a fresh chance node),
        so the only thing ``seat`` cannot see is what lower seats committed this round.
        Each such commitment is re-drawn uniformly among that seat's legal placements,
        and the history is rewritten to match, so replaying it gives the new state. A
        state rebuilt from an observation (``DziobakiGame.from_observation``) starts with
        an empty history, so the commitments made before it are not in its history; only
        the recorded ones are rewritten.
        """
        other = self.clone()
        assert isinstance(other, DziobakiState)
        cp = self.current
        if cp <= 0:
            return other
        history = other.history
        for j in range(cp):
            if j == seat:
                continue
            p = draw_commitment(self.empty_spaces[j], rng)
            other.commitments[j] = p
            # This round's commitments are the last ``cp`` steps of the history.
            at = len(history) - cp + j
            if at >= 0:
                history[at] = PLACES[p]
        return other

    # -- messages ---------------------------------------------------------------

    def _illegal_reason(self, action: Action) -> str:
        cp = self.current
        match action:
            case Reveal(tile=tile) if cp == CHANCE:
                if tile not in TILE_INDEX:
                    return f"unknown tile {tile!r}; tiles are D01..D15"
                t = TILE_INDEX[tile]
                left = " ".join(TILE_IDS[u] for u in range(NUM_TILES) if self.remaining >> u & 1)
                return (
                    f"tile {tile} was already revealed in round "
                    f"{self.revealed.index(t) + 1}; the stack holds {left}"
                )
            case Reveal() if cp >= 0:
                return (
                    f"seat {cp} must place the revealed tile {TILE_IDS[self.revealed[-1]]} "
                    f"(kind 'place'), not a chance outcome of kind 'reveal'"
                )
            case Place() if cp >= 0:
                problem = self._place_problem(cp, action)
                if problem:
                    return problem
        return super()._illegal_reason(action)

    def _place_problem(self, seat: int, action: Place) -> str | None:
        s, k = action.space, action.rotation
        if type(s) is not int or not 0 <= s < SPACES:
            return f"space {s!r} does not exist: spaces are 0..{SPACES - 1}"
        if type(k) is not int or not 0 <= k < 4:
            return f"rotation {k!r} is out of range: rotations are 0..3 quarter turns"
        code = self.boards[seat][s]
        if code >= 0:
            free = [str(x) for x in range(SPACES) if self.empty_spaces[seat] >> x & 1]
            return (
                f"space {s} of seat {seat}'s board is occupied (by {tile_text(code)}); "
                f"empty spaces: {', '.join(free)}"
            )
        return None

    def illegal_reason_for(self, seat: int, action: Action) -> str | None:
        """Why ``seat`` may not send ``action`` now (None if it may).

        Beyond :meth:`apply` (which always acts for ``current_player``) this answers
        for any seat, e.g. a seat that has already committed this round; the answer is
        meant for that seat only (it may mention its own commitment).
        """
        cp = self.current
        if seat == cp:
            return None if self.is_legal(action) else self._illegal_reason(action)
        if cp >= 0 and 0 <= seat < cp:
            p = self.commitments[seat]
            return (
                f"seat {seat} has already committed this round "
                f"(space {p >> 2}, rotation {p & 3}); it waits for the other seats"
            )
        if cp >= 0:
            return f"seat {seat} is not to move: seat {cp} commits first (seat order)"
        if cp == CHANCE:
            return f"seat {seat} is not to move: the next tile must be revealed first"
        return "the game is over"

    # -- text -----------------------------------------------------------------

    def render(self, seat: int | None = None) -> str:
        return render_observation(self.observation(seat))
