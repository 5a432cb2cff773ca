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
by :func:`~engine.dziobaki.state.draw_commitment`, the same helper
:meth:`DziobakiState._resample` uses. That is uniform over all consistent assignments,
since the seats' choices do not constrain one another. The state is made with
:func:`engine.fields.build`, which refuses a missing field.

The observation is checked on the way in (clear :class:`ValueError` messages for a wrong
phase, seat, option, unknown or repeated tile, a board that does not hold exactly the
tiles of the completed rounds, ...). Every inconsistent derived field (supply, stack
size, commitments, provisional scores) is caught afterwards by ``Game.from_observation``,
which requires the rebuilt state's own observation to equal the given one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.core import JSON
from engine.dziobaki.data import NUM_TILES, ROUNDS, SPACES, TILE_IDS, TILE_INDEX
from engine.dziobaki.state import DziobakiState, draw_commitment
from engine.fields import build
from engine.observed import read_int, read_list, read_obj


def _tile(value: JSON, where: str) -> int:
    if not isinstance(value, str) or value not in TILE_INDEX:
        raise ValueError(f"observation field {where} must be a tile id D01..D15, got {value!r}")
    return TILE_INDEX[value]


def _board(value: JSON, seat: int, placed: set[int]) -> list[int]:
    """Oriented tile codes of one observed board, checked against the placed tiles."""
    where = f"boards[{seat}]"
    if read_obj(value, where)["seat"] != seat:
        raise ValueError(f"observation field {where}.seat must be {seat}, got {value['seat']!r}")
    board = [-1] * SPACES
    seen: set[int] = set()
    for s, cell in enumerate(read_list(value["spaces"], f"{where}.spaces", SPACES)):
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
        board[s] = 4 * t + read_int(cell["rotation"], f"{at}.rotation", 0, 3)
    if seen != placed:
        expected = " ".join(TILE_IDS[t] for t in sorted(placed)) or "nothing"
        got = " ".join(TILE_IDS[t] for t in sorted(seen)) or "nothing"
        raise ValueError(
            f"observation field {where} must hold exactly the tiles of the completed rounds "
            f"({expected}), got {got}"
        )
    return board


def rebuild(
    initial: DziobakiState, seat: int, observation: Mapping[str, JSON], rng: random.Random
) -> DziobakiState:
    """The state of ``seat``'s ``observation`` (a new one, of ``initial``'s game, player count
    and options)."""
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
    options = initial.options
    for key in ("board_side", "all_together"):
        if obs[key] != options[key] or type(obs[key]) is not type(options[key]):
            raise ValueError(
                f"observation field {key} is {obs[key]!r} but the game option is {options[key]!r}"
            )
    rnd = read_int(obs["round"], "round", 1, ROUNDS)
    revealed_obs = read_list(obs["revealed"], "revealed")
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
    n = initial.num_players
    boards_obs = read_list(obs["boards"], "boards", n)
    boards = [_board(b, j, placed) for j, b in enumerate(boards_obs)]
    empty = [sum(1 << s for s in range(SPACES) if b[s] < 0) for b in boards]
    state: DziobakiState = build(
        DziobakiState,
        initial.game,
        n,
        options,
        round=rnd,
        revealed=revealed,
        remaining=((1 << NUM_TILES) - 1) & ~sum(1 << t for t in revealed),
        boards=boards,
        empty_spaces=empty,
        commitments=[draw_commitment(empty[j], rng) if j < seat else -1 for j in range(n)],
        current=seat,
    )
    return state
