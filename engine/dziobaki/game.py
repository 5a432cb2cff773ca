"""Rules of Dziobaki: actions, the state machine, observations, resampling, the game."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from engine.core import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Game,
    Option,
    Result,
    State,
    check_choice,
    competition_ranks,
)
from engine.dziobaki.components import (
    NUM_TILES,
    ROUNDS,
    SEAT_COLOURS,
    SIDES,
    SPACES,
    TILE_IDS,
    TILE_INDEX,
    tile_text,
)
from engine.dziobaki.rebuild import draw_commitment, rebuild
from engine.dziobaki.render import board_lines, rotations_lines
from engine.dziobaki.scoring import score_board

TileId = Literal[
    "D01", "D02", "D03", "D04", "D05", "D06", "D07", "D08",
    "D09", "D10", "D11", "D12", "D13", "D14", "D15",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """Chance outcome: the top tile of the caller's stack turns out to be ``tile``."""

    KIND: ClassVar[str] = "reveal"
    tile: TileId


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Commit this round's tile to ``space`` (0..11) at ``rotation`` (0..3 quarter turns cw)."""

    KIND: ClassVar[str] = "place"
    space: int
    rotation: int

    def __str__(self) -> str:
        return f"place space={self.space} rotation={self.rotation}"


REVEALS: tuple[Reveal, ...] = tuple(Reveal(tid) for tid in TILE_IDS)  # type: ignore[arg-type]
PLACES: tuple[Place, ...] = tuple(Place(s, k) for s in range(SPACES) for k in range(4))
FULL_MASK = (1 << NUM_TILES) - 1
EMPTY_BOARD_MASK = (1 << SPACES) - 1

_LEGAL_CACHE: dict[int, list[Action]] = {}
_CHANCE_CACHE: dict[int, list[tuple[Action, float]]] = {}


def _legal_for(empty_mask: int) -> list[Action]:
    """Canonical legal ``place`` actions for a board whose empty spaces are ``empty_mask``."""
    acts = _LEGAL_CACHE.get(empty_mask)
    if acts is None:
        acts = [PLACES[4 * s + k] for s in range(SPACES) if empty_mask >> s & 1 for k in range(4)]
        _LEGAL_CACHE[empty_mask] = acts
    return acts


def _reveals_for(remaining: int) -> list[tuple[Action, float]]:
    """``reveal`` outcomes (ascending id, uniform) over the tile types in ``remaining``."""
    outs = _CHANCE_CACHE.get(remaining)
    if outs is None:
        tiles = [t for t in range(NUM_TILES) if remaining >> t & 1]
        p = 1.0 / len(tiles)
        outs = [(REVEALS[t], p) for t in tiles]
        _CHANCE_CACHE[remaining] = outs
    return outs


class DziobakiState(State):
    """A Dziobaki position.

    Fields: ``_round`` (0 before the first reveal, then 1..12), ``_revealed`` (tile
    indices in reveal order; the last one is this round's tile), ``_remaining`` (bit
    mask of tile types not revealed yet: the stack as a multiset, never an order),
    ``_boards[seat][space]`` (oriented tile code ``4*tile+rotation`` or -1),
    ``_empty[seat]`` (bit mask of empty spaces), ``_pending[seat]`` (``4*space+rotation``
    committed this round, or -1) and ``_cp`` (seat to commit, CHANCE or TERMINAL).
    """

    _round: int
    _revealed: list[int]
    _remaining: int
    _boards: list[list[int]]
    _empty: list[int]
    _pending: list[int]
    _cp: int

    def __init__(self, game: Game, num_players: int, options: dict[str, JSON]) -> None:
        super().__init__(game, num_players, options)
        self._round = 0
        self._revealed = []
        self._remaining = FULL_MASK
        self._boards = [[-1] * SPACES for _ in range(num_players)]
        self._empty = [EMPTY_BOARD_MASK] * num_players
        self._pending = [-1] * num_players
        self._cp = CHANCE

    # -- contract -------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return self._cp

    @property
    def side(self) -> str:
        return str(self.options["board_side"])

    def _legal_actions(self) -> list[Action]:
        return _legal_for(self._empty[self._cp])

    def _chance_outcomes(self) -> list[tuple[Action, float]]:
        return list(_reveals_for(self._remaining))

    def is_legal(self, action: Action) -> bool:
        # Same answer as the base class, without scanning the list of legal actions.
        cp = self._cp
        if cp >= 0:
            if type(action) is not Place:
                return False
            s, k = action.space, action.rotation
            return (
                type(s) is int
                and type(k) is int
                and 0 <= s < SPACES
                and 0 <= k < 4
                and bool(self._empty[cp] >> s & 1)
            )
        if cp == CHANCE:
            if type(action) is not Reveal:
                return False
            t = TILE_INDEX.get(action.tile, -1)
            return t >= 0 and bool(self._remaining >> t & 1)
        return False

    def _apply(self, action: Action) -> None:
        cp = self._cp
        if cp == CHANCE:
            t = TILE_INDEX[action.tile]  # type: ignore[attr-defined]
            self._remaining &= ~(1 << t)
            self._revealed.append(t)
            self._round += 1
            self._cp = 0
            return
        self._pending[cp] = 4 * action.space + action.rotation  # type: ignore[attr-defined]
        if cp + 1 < self.num_players:
            self._cp = cp + 1
            return
        # Resolution: every commitment is revealed and applied at once.
        base = 4 * self._revealed[-1]
        pending = self._pending
        for j in range(self.num_players):
            p = pending[j]
            s = p >> 2
            self._boards[j][s] = base + (p & 3)
            self._empty[j] &= ~(1 << s)
            pending[j] = -1
        self._cp = TERMINAL if self._round == ROUNDS else CHANCE

    def _copy_into(self, other: State) -> None:
        assert isinstance(other, DziobakiState)
        other._round = self._round
        other._revealed = self._revealed[:]
        other._remaining = self._remaining
        other._boards = [b[:] for b in self._boards]
        other._empty = self._empty[:]
        other._pending = self._pending[:]
        other._cp = self._cp

    def _full_state(self) -> JSON:
        return {
            "round": self._round,
            "revealed": [TILE_IDS[t] for t in self._revealed],
            "boards": [list(b) for b in self._boards],
            "pending": list(self._pending),
            "current_player": self._cp,
        }

    # -- derived public facts -------------------------------------------------

    def _awaiting_tile(self) -> int:
        """Index of the revealed tile still to be placed this round, or -1."""
        return self._revealed[-1] if self._cp >= 0 else -1

    def board(self, seat: int) -> list[int]:
        """Seat's board as of the last completed round (oriented tile codes, -1 empty)."""
        return list(self._boards[seat])

    def score(self, seat: int) -> dict[str, int]:
        """Seat's score breakdown on its board as it stands (final once the game is over)."""
        return score_board(self._boards[seat], self.side, bool(self.options["all_together"]))

    def _observation(self, seat: int | None) -> dict[str, JSON]:
        cp = self._cp
        awaiting = self._awaiting_tile()
        unrevealed = [TILE_IDS[t] for t in range(NUM_TILES) if self._remaining >> t & 1]
        supply = [
            TILE_IDS[t] for t in range(NUM_TILES) if self._remaining >> t & 1 or t == awaiting
        ]
        boards: list[JSON] = []
        for j in range(self.num_players):
            spaces: list[JSON] = []
            for s, code in enumerate(self._boards[j]):
                if code < 0:
                    spaces.append({"space": s, "tile": "", "rotation": -1})
                else:
                    spaces.append({"space": s, "tile": TILE_IDS[code >> 2], "rotation": code & 3})
            boards.append({"seat": j, "spaces": spaces, "score": self.score(j)})
        own = self._pending[seat] if seat is not None else -1
        committed = [cp >= 0 and j < cp for j in range(self.num_players)]
        return {
            "current_player": cp,
            "viewer": -1 if seat is None else seat,
            "phase": "over" if cp == TERMINAL else "reveal" if cp == CHANCE else "place",
            "round": self._round,
            "board_side": self.side,
            "all_together": bool(self.options["all_together"]),
            "revealed_tile": TILE_IDS[awaiting] if awaiting >= 0 else "",
            "revealed": [TILE_IDS[t] for t in self._revealed],
            "stack_size": NUM_TILES - len(self._revealed),
            "unrevealed": unrevealed,
            "supply": supply,
            "committed": committed,
            "my_commitment": {
                "space": own >> 2 if own >= 0 else -1,
                "rotation": own & 3 if own >= 0 else -1,
            },
            "boards": boards,
            "ranks": self._result().ranks if cp == TERMINAL else [],
        }

    def _result(self) -> Result:
        breakdown = [self.score(j) for j in range(self.num_players)]
        keys = [(b["total"], b["max_platypus_in_meadow"]) for b in breakdown]
        return Result(
            scores=[b["total"] for b in breakdown],
            breakdown=breakdown,  # type: ignore[arg-type]
            ranks=competition_ranks(keys),
        )

    def _resample(self, seat: int, rng: random.Random) -> State:
        """Re-draw the hidden commitments of the other seats this round.

        The stack order is not part of the state (each reveal is a fresh chance node),
        so the only thing ``seat`` cannot see is what lower seats committed this round.
        Each such commitment is re-drawn uniformly among that seat's legal placements,
        and the history is rewritten to match, so replaying it gives the new state. A
        state rebuilt from an observation (``Dziobaki.from_observation``) starts with an
        empty history, so the commitments made before it are not in its history; only
        the recorded ones are rewritten.
        """
        other = self.clone()
        assert isinstance(other, DziobakiState)
        cp = self._cp
        if cp <= 0:
            return other
        history = other.history
        for j in range(cp):
            if j == seat:
                continue
            p = draw_commitment(self._empty[j], rng)
            other._pending[j] = p
            # This round's commitments are the last ``cp`` steps of the history.
            at = len(history) - cp + j
            if at >= 0:
                history[at] = PLACES[p]
        return other

    # -- messages ---------------------------------------------------------------

    def _illegal_reason(self, action: Action) -> str:
        cp = self._cp
        if cp == CHANCE and isinstance(action, Reveal):
            if action.tile not in TILE_INDEX:
                return f"unknown tile {action.tile!r}; tiles are D01..D15"
            t = TILE_INDEX[action.tile]
            left = " ".join(TILE_IDS[u] for u in range(NUM_TILES) if self._remaining >> u & 1)
            return (
                f"tile {action.tile} was already revealed in round "
                f"{self._revealed.index(t) + 1}; the stack holds {left}"
            )
        if cp >= 0 and isinstance(action, Reveal):
            return (
                f"seat {cp} must place the revealed tile {TILE_IDS[self._revealed[-1]]} "
                f"(kind 'place'), not a chance outcome of kind 'reveal'"
            )
        if cp >= 0 and isinstance(action, Place):
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
        code = self._boards[seat][s]
        if code >= 0:
            free = [str(x) for x in range(SPACES) if self._empty[seat] >> x & 1]
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
        cp = self._cp
        if seat == cp:
            return None if self.is_legal(action) else self._illegal_reason(action)
        if cp >= 0 and 0 <= seat < cp:
            p = self._pending[seat]
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
        cp = self._cp
        side = self.side
        at = bool(self.options["all_together"])
        lines = [
            f"Dziobaki - round {self._round}/{ROUNDS}, board side {side}, "
            f"all together {'on' if at else 'off'}, {NUM_TILES - len(self._revealed)} "
            f"tiles in the stack"
        ]
        unrevealed = " ".join(TILE_IDS[t] for t in range(NUM_TILES) if self._remaining >> t & 1)
        lines.append(f"Not revealed yet: {unrevealed or '-'}")
        if cp == CHANCE:
            lines.append("Next: the caller (seat 0) reveals the top tile of his stack.")
        elif cp >= 0:
            tile = self._revealed[-1]
            lines.append(f"Revealed tile: {TILE_IDS[tile]} (every player places his copy)")
            lines.extend("  " + x for x in rotations_lines(tile))
            done = ", ".join(str(j) for j in range(cp)) or "nobody"
            lines.append(f"Committed: {done}; seat {cp} ({SEAT_COLOURS[cp]}) to place.")
            if seat is not None and self._pending[seat] >= 0:
                p = self._pending[seat]
                lines.append(
                    f"Your commitment (hidden from the others): space {p >> 2}, rotation {p & 3}"
                )
        else:
            lines.append("Game over.")
        ranks = self._result().ranks if cp == TERMINAL else None
        for j in range(self.num_players):
            sc = self.score(j)
            label = "final" if cp == TERMINAL else "so far"
            you = " (you)" if seat == j else ""
            head = (
                f"Seat {j} ({SEAT_COLOURS[j]}){you}: {label} {sc['total']} = "
                f"P {sc['meadows_platypus']} + K {sc['meadows_koala']} + "
                f"R {sc['meadows_kangaroo']} + G {sc['meadows_glider']} + "
                f"bonus {sc['all_together_bonus']}; max platypus/meadow "
                f"{sc['max_platypus_in_meadow']}"
            )
            if ranks is not None:
                head += f"; rank {ranks[j]}"
            lines.append("")
            lines.append(head)
            lines.extend("  " + x for x in board_lines(self._boards[j], side))
        return "\n".join(lines)


class Dziobaki(Game):
    id = "dziobaki"
    name = "Dziobaki"
    version = 1
    min_players = 1
    max_players = 4
    option_specs: ClassVar[dict[str, Option]] = {
        "board_side": Option(
            "A",
            'side of the personal boards, the same for everybody: "A" (printed animals in '
            'the middle of the four edges) or "B" (printed animals in the four corners)',
        ),
        "all_together": Option(
            False,
            "optional rule 'all together': +3 per species whose animals on the finished "
            "board (placed tiles + printed animal) all lie in one single-species meadow",
        ),
    }
    action_classes = (Reveal, Place)

    def _check_option(
        self, key: str, value: JSON, num_players: int, options: Mapping[str, JSON]
    ) -> str | None:
        if key == "board_side":
            return check_choice(value, SIDES)
        if key == "all_together":
            return check_choice(value, (False, True))
        return None

    def _new_state(self, num_players: int, options: dict[str, JSON]) -> State:
        return DziobakiState(self, num_players, options)

    def _from_observation(
        self, initial: State, seat: int, observation: Mapping[str, JSON], rng: random.Random
    ) -> State:
        """Rebuild a state from ``seat``'s observation; see :mod:`engine.dziobaki.rebuild`."""
        assert isinstance(initial, DziobakiState)
        return rebuild(initial, seat, observation, rng)

    def step_bound(self, num_players: int, options: Mapping[str, JSON]) -> int:
        return ROUNDS * (num_players + 1)

    def variants(self, num_players: int) -> list[dict[str, JSON]]:
        return [
            {},
            {"board_side": "B"},
            {"all_together": True},
            {"board_side": "B", "all_together": True},
        ]


GAME = Dziobaki()
