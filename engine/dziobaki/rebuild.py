"""Rebuild a Dziobaki state from one seat's observation (``Game._from_observation``).

A seat's observation at its own turn already holds almost the whole state: the round,
the tiles revealed so far in reveal order (the last one is this round's tile), and every
board as of the last completed round. The stack has no hidden order in the state (each
round's ``reveal`` is a fresh chance node), so the tiles not revealed yet are simply the
complement of ``revealed``.

The only hidden part is what the lower seats ``0 .. seat-1`` committed this round (the
placement is serialised in seat order, so the observer knows *that* they committed,
from ``committed``, but not *what*). Each such commitment is drawn with ``rng``,
independently and uniformly among that seat's legal placements (empty space x rotation),
by :func:`draw_commitment`, the same helper :meth:`DziobakiState._resample` uses. That is
uniform over all consistent assignments, since the seats' choices do not constrain one
another.

The observation is checked on the way in (clear :class:`ValueError` messages for a wrong
phase, seat, option, unknown or repeated tile, a board that does not hold exactly the
tiles of the completed rounds, ...), and at the end the rebuilt state's own observation
must equal the given one, which catches every inconsistent derived field (supply, stack
size, commitments, provisional scores).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from engine.core import JSON
from engine.dziobaki.components import NUM_TILES, ROUNDS, SPACES, TILE_IDS, TILE_INDEX

if TYPE_CHECKING:
    from engine.dziobaki.game import DziobakiState


def draw_commitment(empty_mask: int, rng: random.Random) -> int:
    """A uniformly random legal commitment ``4*space + rotation`` on a board whose empty
    spaces are the bits of ``empty_mask`` (which must not be 0)."""
    empties = [s for s in range(SPACES) if empty_mask >> s & 1]
    s = rng.choice(empties)
    return 4 * s + rng.randrange(4)


def _int(value: JSON, where: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(
            f"observation field {where} must be an integer {low}..{high}, got {value!r}"
        )
    return value


def _tile(value: JSON, where: str) -> int:
    if not isinstance(value, str) or value not in TILE_INDEX:
        raise ValueError(f"observation field {where} must be a tile id D01..D15, got {value!r}")
    return TILE_INDEX[value]


def _list(value: JSON, where: str, length: int | None = None) -> Sequence[JSON]:
    if not isinstance(value, list):
        raise ValueError(f"observation field {where} must be a list, got {value!r}")
    if length is not None and len(value) != length:
        raise ValueError(f"observation field {where} must have {length} entries, got {len(value)}")
    return value


def _board(value: JSON, seat: int, placed: set[int]) -> list[int]:
    """Oriented tile codes of one observed board, checked against the placed tiles."""
    where = f"boards[{seat}]"
    if not isinstance(value, Mapping):
        raise ValueError(f"observation field {where} must be an object, got {value!r}")
    if value["seat"] != seat:
        raise ValueError(f"observation field {where}.seat must be {seat}, got {value['seat']!r}")
    board = [-1] * SPACES
    seen: set[int] = set()
    for s, cell in enumerate(_list(value["spaces"], f"{where}.spaces", SPACES)):
        at = f"{where}.spaces[{s}]"
        if not isinstance(cell, Mapping) or cell["space"] != s:
            raise ValueError(
                f"observation field {at} must be the object of space {s}, got {cell!r}"
            )
        if cell["tile"] == "" and cell["rotation"] == -1:
            continue
        t = _tile(cell["tile"], f"{at}.tile")
        if t in seen:
            raise ValueError(f"observation field {where} holds tile {TILE_IDS[t]} twice")
        seen.add(t)
        board[s] = 4 * t + _int(cell["rotation"], f"{at}.rotation", 0, 3)
    if seen != placed:
        expected = " ".join(TILE_IDS[t] for t in sorted(placed)) or "nothing"
        got = " ".join(TILE_IDS[t] for t in sorted(seen)) or "nothing"
        raise ValueError(
            f"observation field {where} must hold exactly the tiles of the completed rounds "
            f"({expected}), got {got}"
        )
    return board


def rebuild(
    state: DziobakiState, seat: int, observation: Mapping[str, JSON], rng: random.Random
) -> DziobakiState:
    """Fill the fresh ``state`` in place from ``seat``'s ``observation`` and return it."""
    obs = observation
    if obs["phase"] != "place":
        raise ValueError(
            f"the observation is not one of seat {seat}'s turns: phase is {obs['phase']!r}"
        )
    if obs["current_player"] != seat or obs["viewer"] != seat:
        raise ValueError(
            f"the observation is not one of seat {seat}'s turns: viewer "
            f"{obs['viewer']!r}, current_player {obs['current_player']!r}"
        )
    for key in ("board_side", "all_together"):
        if obs[key] != state.options[key] or type(obs[key]) is not type(state.options[key]):
            raise ValueError(
                f"observation field {key} is {obs[key]!r} but the game option is "
                f"{state.options[key]!r}"
            )
    rnd = _int(obs["round"], "round", 1, ROUNDS)
    revealed_obs = _list(obs["revealed"], "revealed")
    if len(revealed_obs) != rnd:
        raise ValueError(
            f"observation field revealed must list one tile per round so far ({rnd}), "
            f"got {len(revealed_obs)}"
        )
    revealed = [_tile(t, f"revealed[{i}]") for i, t in enumerate(revealed_obs)]
    if len(set(revealed)) != rnd:
        raise ValueError(f"observation field revealed repeats a tile: {obs['revealed']!r}")
    if obs["revealed_tile"] != TILE_IDS[revealed[-1]]:
        raise ValueError(
            f"observation field revealed_tile must be the last revealed tile "
            f"{TILE_IDS[revealed[-1]]}, got {obs['revealed_tile']!r}"
        )
    placed = set(revealed[:-1])
    boards_obs = _list(obs["boards"], "boards", state.num_players)
    boards = [_board(b, j, placed) for j, b in enumerate(boards_obs)]

    state._round = rnd
    state._revealed = revealed
    state._remaining = ((1 << NUM_TILES) - 1) & ~sum(1 << t for t in revealed)
    state._boards = boards
    state._empty = [sum(1 << s for s in range(SPACES) if b[s] < 0) for b in boards]
    state._pending = [
        draw_commitment(state._empty[j], rng) if j < seat else -1 for j in range(state.num_players)
    ]
    state._cp = seat
    state._legal = None

    rebuilt = state.observation(seat)
    if rebuilt != obs:
        raise ValueError(
            "observation is inconsistent with its own round, tiles and boards: "
            + _mismatches(obs, rebuilt)
        )
    return state


def _mismatches(got: Mapping[str, JSON], expected: Mapping[str, JSON]) -> str:
    """Which fields of ``got`` differ from ``expected`` (per board score for ``boards``)."""
    parts: list[str] = []
    for key in sorted(set(got) | set(expected)):
        if got.get(key) == expected.get(key):
            continue
        if key == "boards":
            # Board contents were checked on the way in: usually a score differs.
            for j, (mine, theirs) in enumerate(zip(got[key], expected[key], strict=True)):
                if mine.get("score") != theirs["score"]:
                    parts.append(
                        f"boards[{j}].score: got {mine.get('score')!r}, "
                        f"expected {theirs['score']!r}"
                    )
                elif mine != theirs:
                    parts.append(f"boards[{j}]: got {mine!r}, expected {theirs!r}")
            continue
        shown = repr(got[key]) if key in got else "nothing"
        parts.append(f"{key}: got {shown}, expected {expected.get(key)!r}")
    return "; ".join(parts)
