"""Dziobaki: every conformance scenario (C01-C16) and worked example (WE1, WE2a, WE2b)
of shared/rules/dziobaki.md, driven through the public API with exact chance outcomes
and actions, plus hidden information, resampling, rendering and bad input."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from engine import CHANCE, TERMINAL, GameConfigError, State
from engine.dziobaki import GAME, DziobakiState, meadows, parse_board, score_board
from engine.dziobaki.data import ORIENTED_ANIMALS, ORIENTED_ARMS, TILE_IDS
from engine.dziobaki.render import board_lines, space_lines
from tests.games.kit import (
    GameKit,
    act,
    apply_all,
    legal_json,
    playout,
    rebuilt,
    rejects,
    rejects_observation,
    step,
)

KIT = GameKit(GAME, DziobakiState)

WE1 = "D04@1 D07@3 D12@2 D10@0 | D08@2 D01@2 D14@3 D15@3 | D05@0 D03@0 D06@2 D09@1"
WE2A = "D14@0 D13@3 D04@2 D02@3 | D08@1 D09@3 D10@0 D07@3 | D05@2 D06@1 D03@1 D01@2"
WE2B = "D15@2 D11@2 D10@1 D08@3 | D06@1 D03@0 D04@2 D02@0 | D07@2 D09@0 D12@2 D13@1"
C10_SEAT0 = "D01@2 D12@0 D04@2 D15@0 | D08@3 D05@0 D07@0 D14@3 | D10@2 D06@2 D03@1 D09@1"
C10_SEAT1 = "D14@1 D06@3 D07@3 D15@3 | D05@0 D09@1 D04@2 D01@2 | D12@3 D03@2 D08@2 D10@2"
C16 = "D08@0 D06@1 D04@0 D03@1 | D01@3 D09@3 D07@3 D05@0 | D12@3 D11@0 D02@0 D15@3"


def reveal(state: State, tile: str) -> None:
    act(state, kind="reveal", tile=tile)


def place(state: State, space: int, rotation: int) -> None:
    act(state, kind="place", space=space, rotation=rotation)


def play_boards(
    boards: Sequence[str], order: Sequence[str] | None = None, **options: bool | str
) -> DziobakiState:
    """Play a whole game through the public API so that seat i ends with ``boards[i]``.

    Every round reveals the next tile of ``order`` (default: seat 0's tiles by space)
    and each seat places it where its target board has it.
    """
    targets = [parse_board(b) for b in boards]
    where = [{code >> 2: (s, code & 3) for s, code in enumerate(t)} for t in targets]
    assert all(set(w) == set(where[0]) for w in where), "all boards need the same 12 tiles"
    tiles = list(order) if order else [TILE_IDS[code >> 2] for code in targets[0]]
    state = KIT.new(len(boards), options)
    for tid in tiles:
        reveal(state, tid)
        for seat in range(len(boards)):
            assert state.current_player == seat
            place(state, *where[seat][TILE_IDS.index(tid)])
    assert state.is_terminal()
    for seat, target in enumerate(targets):
        assert state.board(seat) == target
    return state


def meadow_table(board: str, side: str = "A") -> dict[tuple[int, int], tuple[int, ...]]:
    """First fine cell of each meadow -> (cell count, platypus, koala, kangaroo, glider)."""
    return {m.cells[0]: (len(m.cells), *m.counts) for m in meadows(parse_board(board), side)}


# --------------------------------------------------------------------------- scenarios


def test_c01_setup() -> None:
    state = KIT.new(3)
    assert state.current_player == CHANCE
    for seat in range(3):
        obs = state.observation(seat)
        assert all(sp["tile"] == "" for sp in obs["boards"][seat]["spaces"])
        assert obs["supply"] == list(TILE_IDS)
    outcomes = state.chance_outcomes()
    assert [o.to_json()["tile"] for o, _ in outcomes] == [f"D{i:02d}" for i in range(1, 16)]
    assert all(p == pytest.approx(1 / 15) for _, p in outcomes)
    reveal(state, "D09")
    assert state.current_player == 0
    legal = state.legal_actions()
    assert len(legal) == 48
    assert legal[0].to_json() == {"kind": "place", "space": 0, "rotation": 0}
    assert legal[-1].to_json() == {"kind": "place", "space": 11, "rotation": 3}
    for seat in range(3):
        place(state, seat, 0)
    assert state.current_player == CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 14
    assert "D09" not in [o.to_json()["tile"] for o, _ in outcomes]
    assert all(p == pytest.approx(1 / 14) for _, p in outcomes)


def test_c02_legal_actions_shrink() -> None:
    state = KIT.new(2)
    for tile, space in zip(("D01", "D02", "D03", "D04", "D05"), (0, 1, 2, 5, 9), strict=True):
        reveal(state, tile)
        place(state, space, 0)
        place(state, 11 - space, 1)
    reveal(state, "D06")
    assert state.observation(0)["round"] == 6
    legal = legal_json(state)
    assert len(legal) == 28
    assert sorted({a["space"] for a in legal}) == [3, 4, 6, 7, 8, 10, 11]
    assert legal == [
        {"kind": "place", "space": s, "rotation": k}
        for s in (3, 4, 6, 7, 8, 10, 11)
        for k in range(4)
    ]


def test_c03_last_round() -> None:
    state = KIT.new(1)
    spaces = [s for s in range(12) if s != 7]
    for tile, space in zip(TILE_IDS[:11], spaces, strict=True):
        reveal(state, tile)
        place(state, space, 0)
    reveal(state, "D12")
    assert state.observation(0)["round"] == 12
    assert legal_json(state) == [{"kind": "place", "space": 7, "rotation": k} for k in range(4)]


def test_c04_illegal_actions() -> None:
    state = KIT.new(2)
    reveal(state, "D01")
    place(state, 5, 0)
    place(state, 5, 2)
    reveal(state, "D02")
    spectator = state.observation(None)
    cases = [
        ({"kind": "place", "space": 5, "rotation": 0}, "space 5 of seat 0's board is occupied"),
        ({"kind": "place", "space": 3, "rotation": 4}, "rotation 4 is out of range"),
        ({"kind": "place", "space": 12, "rotation": 0}, "space 12 does not exist"),
    ]
    for data, message in cases:
        rejects(state, data, message)
        assert state.current_player == 0  # asked again
    # Seat 0 commits; a second place from seat 0 is rejected (already committed).
    place(state, 0, 0)
    digest = state.digest()
    second = GAME.action_from_json({"kind": "place", "space": 1, "rotation": 0})
    reason = state.illegal_reason_for(0, second)
    assert reason is not None and "seat 0 has already committed this round" in reason
    assert state.digest() == digest
    assert state.illegal_reason_for(1, second) is None
    # Nothing about the rejections reached anyone: seat 1's and the spectator's views
    # are those of a state where seat 0 committed without any rejected attempt.
    clean = apply_all(KIT.new(2), state.history)
    assert clean.observation(1) == state.observation(1)
    assert clean.observation(None) == state.observation(None)
    assert spectator["boards"] == state.observation(None)["boards"]


def test_c05_simultaneous_commit() -> None:
    state = KIT.new(2)
    reveal(state, "D08")
    place(state, 3, 0)
    obs1 = state.observation(1)
    assert all(sp["tile"] == "" for b in obs1["boards"] for sp in b["spaces"])
    assert obs1["my_commitment"] == {"space": -1, "rotation": -1}
    # Seat 1's view is the same whatever seat 0 committed.
    alt = KIT.new(2)
    reveal(alt, "D08")
    place(alt, 7, 1)
    assert alt.observation(1) == obs1
    assert alt.observation(None) == state.observation(None)
    place(state, 3, 2)
    boards = state.observation(None)["boards"]
    assert boards[0]["spaces"][3] == {"space": 3, "tile": "D08", "rotation": 0}
    assert boards[1]["spaces"][3] == {"space": 3, "tile": "D08", "rotation": 2}
    assert state.board(0)[3] == 4 * 7 + 0 and state.board(1)[3] == 4 * 7 + 2


def test_c06_rotation_semantics() -> None:
    state = KIT.new(1)
    reveal(state, "D10")
    place(state, 0, 1)
    code = state.board(0)[0]
    assert code == 4 * 9 + 1
    assert ORIENTED_ARMS[code] == 0b0110  # arms E and S
    assert sorted(ORIENTED_ANIMALS[code]) == [(0, 0), (1, 2)]  # platypus NW, koala SE
    assert space_lines(code) == (" P   . ", "    ###", " . # K ")
    # Two crossings beside it: the platypus cell (0,0) with (0,1) and (1,0) forms a
    # meadow that the koala's cell (1,1) is not part of (arms E and S cut it off).
    reveal(state, "D14")
    place(state, 1, 0)
    reveal(state, "D15")
    place(state, 4, 0)
    table = {m.cells: m.counts for m in meadows(state.board(0), "A")}
    # platypus (tile) + koala (D14 NW in (0,2)) + printed platypus at (2,0)
    assert table[((0, 0), (0, 1), (0, 2), (1, 0), (2, 0))] == (2, 1, 0, 0)
    assert all((1, 1) not in cells for cells in table if (0, 0) in cells)


def test_c07_game_end() -> None:
    state = KIT.new(3)
    rng = random.Random(7)
    rounds = 0
    while not state.is_terminal():
        rounds += state.current_player == CHANCE
        step(state, rng)
    assert rounds == 12
    assert state.current_player == TERMINAL
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    for seat in range(3):
        assert all(code >= 0 for code in state.board(seat))
    obs = state.observation(None)
    assert obs["stack_size"] == 3 and len(obs["unrevealed"]) == 3
    assert obs["phase"] == "over" and obs["ranks"] == state.result().ranks
    assert len(state.history) == 12 * 4


WE1_BREAKDOWN = {
    "meadows_platypus": 5,
    "meadows_koala": 5,
    "meadows_kangaroo": 5,
    "meadows_glider": 1,
    "all_together_bonus": 0,
    "total": 16,
    "max_platypus_in_meadow": 3,
}


def test_c08_worked_example_we1() -> None:
    state = play_boards([WE1])
    result = state.result()
    assert result.breakdown == [WE1_BREAKDOWN]
    assert result.scores == [16] and result.ranks == [1]
    assert state.observation(0)["unrevealed"] == ["D02", "D11", "D13"]  # unused tiles
    got = {m.cells: (m.counts, m.points) for m in meadows(state.board(0), "A")}
    expected = {
        ((3, 5), (3, 6), (3, 7), (4, 5), (4, 6), (4, 7), (5, 5), (5, 6)): ((0, 0, 5, 0), 5),
        ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4)): ((0, 4, 0, 0), 4),
        ((0, 7),): ((0, 1, 0, 0), 1),
        ((0, 5), (0, 6), (1, 5), (1, 6), (1, 7), (2, 5), (2, 6), (2, 7)): ((3, 0, 0, 0), 3),
        ((3, 0), (4, 0), (5, 0)): ((2, 0, 0, 0), 2),
        ((5, 7),): ((0, 0, 0, 1), 1),
    }
    for cells, value in expected.items():
        assert got.pop(cells) == value
    [(rest, (counts, points))] = got.items()
    assert len(rest) == 22 and (1, 0) in rest and counts == (3, 1, 2, 5) and points == 0


def test_we1_diagram() -> None:
    """The rendered WE1 board is exactly the spec's diagram."""
    expected = [
        "               k",
        " | .   K : K   . : K # . : . # K |",
        " |### ###:### ###:###    :    ###|",
        " | R   . : .   G : P # . : P   . |",
        " |... ...:... ...:... ...:... ...|",
        "p| .   . : P   . : G # P : . # P |",
        " |###    :       :### ###:### ###|",
        " | P # . : .   . : K # R : . # . |r",
        " |... ...:... ...:... ...:... ...|",
        " | . # G : R   . : . # R : R   . |",
        " |       :       :       :    ###|",
        " | P # . : .   G : . # R : . # G |",
        "                   g",
    ]
    assert board_lines(parse_board(WE1), "A") == expected
    rendered = play_boards([WE1]).render(0)
    assert "\n".join("  " + line for line in expected[1:-1]) in rendered


def test_c09_seed_meadow_examples() -> None:
    a = play_boards([WE2A]).result().breakdown[0]
    assert a == {
        "meadows_platypus": 0,
        "meadows_koala": 6,
        "meadows_kangaroo": 0,
        "meadows_glider": 2,
        "all_together_bonus": 0,
        "total": 8,
        "max_platypus_in_meadow": 6,
    }
    five_koalas = tuple((r, c) for r in (0, 1, 2) for c in (5, 6, 7))
    table_a = {m.cells: m for m in meadows(parse_board(WE2A), "A")}
    assert table_a[five_koalas].counts == (0, 5, 0, 0) and table_a[five_koalas].points == 5
    assert meadow_table(WE2A) == {
        (0, 0): (1, 0, 1, 0, 0),
        (0, 1): (2, 0, 0, 0, 2),
        (0, 3): (36, 6, 1, 7, 5),
        (0, 5): (9, 0, 5, 0, 0),
    }
    b = play_boards([WE2B]).result().breakdown[0]
    assert b == {
        "meadows_platypus": 1,
        "meadows_koala": 0,
        "meadows_kangaroo": 0,
        "meadows_glider": 1,
        "all_together_bonus": 0,
        "total": 2,
        "max_platypus_in_meadow": 4,
    }
    mixed = next(m for m in meadows(parse_board(WE2B), "A") if (0, 7) in m.cells)
    assert len(mixed.cells) == 15 and mixed.counts == (0, 4, 1, 0) and mixed.points == 0
    assert meadow_table(WE2B) == {
        (0, 0): (1, 1, 0, 0, 0),
        (0, 1): (31, 4, 3, 6, 5),
        (0, 7): (15, 0, 4, 1, 0),
        (5, 7): (1, 0, 0, 0, 1),
    }


def test_c10_tie_break_on_platypuses() -> None:
    order = ["D01", "D03", "D04", "D05", "D06", "D07", "D08", "D09", "D10", "D12", "D14", "D15"]
    state = play_boards([C10_SEAT0, C10_SEAT1], order=order)
    assert state.observation(None)["unrevealed"] == ["D02", "D11", "D13"]
    assert meadow_table(C10_SEAT0) == {
        (0, 0): (17, 5, 0, 0, 0),
        (0, 3): (26, 1, 5, 7, 5),
        (0, 7): (1, 0, 0, 0, 0),
        (1, 7): (2, 2, 0, 0, 0),
        (5, 0): (1, 0, 1, 0, 0),
        (5, 7): (1, 0, 0, 0, 1),
    }
    assert meadow_table(C10_SEAT1) == {
        (0, 0): (1, 0, 0, 1, 0),
        (0, 1): (6, 0, 3, 0, 0),
        (0, 7): (1, 1, 0, 0, 0),
        (1, 0): (4, 4, 0, 0, 0),
        (1, 1): (36, 3, 3, 6, 6),
    }
    result = state.result()
    assert result.breakdown == [
        {
            "meadows_platypus": 7,
            "meadows_koala": 1,
            "meadows_kangaroo": 0,
            "meadows_glider": 1,
            "all_together_bonus": 0,
            "total": 9,
            "max_platypus_in_meadow": 5,
        },
        {
            "meadows_platypus": 5,
            "meadows_koala": 3,
            "meadows_kangaroo": 1,
            "meadows_glider": 0,
            "all_together_bonus": 0,
            "total": 9,
            "max_platypus_in_meadow": 4,
        },
    ]
    assert result.scores == [9, 9]
    assert result.ranks == [1, 2]


def test_c11_full_tie() -> None:
    result = play_boards([WE1, WE1]).result()
    assert result.breakdown == [WE1_BREAKDOWN, WE1_BREAKDOWN]
    assert result.ranks == [1, 1]


def test_c12_optional_rule_no_bonus() -> None:
    result = play_boards([WE1], all_together=True).result()
    assert result.breakdown == [WE1_BREAKDOWN]
    table = meadows(parse_board(WE1), "A")
    holders = [sum(1 for m in table if m.counts[sp]) for sp in range(4)]
    assert holders == [3, 3, 2, 2]  # platypus, koala, kangaroo, glider meadows


def test_c13_board_side_matters() -> None:
    result = play_boards([WE1], board_side="B").result()
    assert result.breakdown == [
        {
            "meadows_platypus": 3,
            "meadows_koala": 2,
            "meadows_kangaroo": 4,
            "meadows_glider": 0,
            "all_together_bonus": 0,
            "total": 9,
            "max_platypus_in_meadow": 3,
        }
    ]
    assert meadow_table(WE1, "B") == {
        (0, 0): (5, 1, 3, 0, 0),
        (0, 5): (8, 3, 0, 0, 0),
        (0, 7): (1, 0, 2, 0, 0),
        (1, 0): (22, 2, 1, 2, 4),
        (3, 0): (3, 2, 0, 0, 1),
        (3, 5): (8, 0, 0, 4, 0),
        (5, 7): (1, 0, 0, 1, 1),
    }


def test_c14_solo() -> None:
    state = KIT.new(1)
    kinds = []
    board = parse_board(WE1)
    for s, code in enumerate(board):
        assert state.current_player == CHANCE
        reveal(state, TILE_IDS[code >> 2])
        kinds.append("reveal")
        assert state.current_player == 0
        place(state, s, code & 3)
        kinds.append("place")
    assert kinds == ["reveal", "place"] * 12
    assert state.is_terminal()
    assert state.observation(0)["stack_size"] == 3
    result = state.result()
    assert result.scores == [16] and result.ranks == [1]
    assert result.breakdown == [WE1_BREAKDOWN]


def test_c15_hidden_stack() -> None:
    state = KIT.new(4)
    rng = random.Random(15)
    rounds = 0
    while not state.is_terminal():
        if state.current_player == CHANCE:
            # The stack is only a multiset: every unrevealed type may come next.
            outcomes = state.chance_outcomes()
            unrevealed = state.observation(None)["unrevealed"]
            assert [o.to_json()["tile"] for o, _ in outcomes] == unrevealed
            assert len(unrevealed) == 15 - rounds
            for seat in [0, 1, 2, 3, None]:
                obs = state.observation(seat)
                assert obs["stack_size"] == 15 - rounds
                assert obs["revealed_tile"] == ""
            # The observation before a reveal is independent of the tile that comes.
            views = []
            for outcome, _ in outcomes[:3]:
                twin = state.clone()
                views.append([twin.observation(s) for s in (0, 1, 2, 3, None)])
                twin.apply(outcome)
            assert all(v == views[0] for v in views)
            rounds += 1
        step(state, rng)
    # The full state holds no stack order, only what was revealed.
    full = state._full_state()
    assert isinstance(full, dict)
    assert set(full) == {"round", "revealed", "boards", "commitments", "current"}
    assert len(full["revealed"]) == 12
    digested = state._digest_layout()  # the version-1 digest keys
    assert set(digested) == {"round", "revealed", "boards", "pending", "current_player"}


def test_c16_optional_rule_one_mixed_meadow() -> None:
    state = play_boards([C16], all_together=True)
    assert meadow_table(C16) == {(0, 0): (47, 6, 6, 7, 6), (5, 7): (1, 0, 0, 0, 0)}
    assert state.result().breakdown == [
        {
            "meadows_platypus": 0,
            "meadows_koala": 0,
            "meadows_kangaroo": 0,
            "meadows_glider": 0,
            "all_together_bonus": 0,
            "total": 0,
            "max_platypus_in_meadow": 6,
        }
    ]


def test_all_together_bonus_awarded() -> None:
    """Extra example (not in the spec): all 4 koalas (3 placed + printed) in one
    single-species meadow earn +3 with the optional rule, nothing without it."""
    board = "D14@1 D04@1 D07@3 D13@1 | D06@2 D03@3 D05@0 D11@0 | D15@2 D09@0 D08@3 D01@1"
    assert meadow_table(board)[(0, 1)] == (7, 0, 4, 0, 0)
    on = play_boards([board], all_together=True).result().breakdown[0]
    off = play_boards([board]).result().breakdown[0]
    assert on["all_together_bonus"] == 3 and on["total"] == 11
    assert off["all_together_bonus"] == 0 and off["total"] == 8


# ----------------------------------------------------------------- hidden information


def _mid_round(n: int, commits: Sequence[tuple[int, int]]) -> DziobakiState:
    state = KIT.new(n)
    reveal(state, "D05")
    for seat in range(n):
        place(state, 11, seat % 4)
    reveal(state, "D11")
    for s, k in commits:
        place(state, s, k)
    return state


def test_hidden_commitments_never_shown() -> None:
    for n in (2, 3, 4):
        a = _mid_round(n, [(0, 0), (1, 1), (2, 2)][: n - 1])
        b = _mid_round(n, [(10, 3), (9, 0), (8, 1)][: n - 1])
        assert a.digest() != b.digest()
        assert a.observation(n - 1) == b.observation(n - 1)
        assert a.observation(None) == b.observation(None)
        obs = a.observation(n - 1)
        assert obs["committed"] == [True] * (n - 1) + [False]
        assert obs["my_commitment"] == {"space": -1, "rotation": -1}
        # Committed seats see only their own commitment.
        for seat in range(n - 1):
            own = a.observation(seat)
            assert own["my_commitment"] == {"space": seat, "rotation": seat}
            assert own["boards"] == a.observation(None)["boards"]
        # Boards in observations are those of the last completed round.
        for board in obs["boards"]:
            assert sum(1 for sp in board["spaces"] if sp["tile"]) == 1
        assert "Your commitment" not in a.render(None)
        assert "Your commitment" not in a.render(n - 1)
        assert "Your commitment (hidden from the others): space 0, rotation 0" in a.render(0)


def test_resample_redraws_only_hidden_commitments() -> None:
    state = _mid_round(4, [(0, 0), (1, 1), (2, 2)])
    for seat in range(4):
        obs = state.observation(seat)
        digest = state.digest()
        seen = set()
        for i in range(20):
            other = state.resample(seat, random.Random(i))
            assert isinstance(other, DziobakiState)
            assert other.observation(seat) == obs
            assert state.digest() == digest
            for j in range(4):
                p = other.commitments[j]
                if j == seat or j >= 3:
                    assert p == state.commitments[j]
                else:
                    assert p >= 0 and other.board(j)[p >> 2] == -1  # legal commitment
            seen.add(tuple(other.commitments))
            # The rewritten history replays to the resampled state.
            replayed = apply_all(KIT.new(4), other.history)
            assert replayed.digest() == other.digest()
            playout(other, random.Random(i))
            assert other.is_terminal()
        assert len(seen) > 1  # the other seats' commitments were re-drawn


def test_resample_keeps_everything_at_chance_nodes() -> None:
    state = KIT.new(3)
    playout(state, random.Random(3), steps=9)  # reveal + 3 places, x2, + 1 reveal
    assert state.current_player == 0
    other = state.resample(1, random.Random(0))
    assert other.digest() == state.digest()


# -------------------------------------------------------------------------- bad input


def test_bad_options_and_player_counts() -> None:
    with pytest.raises(GameConfigError, match="no option 'colour'"):
        GAME.new_game(2, {"colour": "red"})
    for value in ("C", "a", 1):
        with pytest.raises(GameConfigError, match='\'board_side\': must be one of "A", "B"'):
            GAME.new_game(2, {"board_side": value})
    # JSON null means the default (the engine contract), like leaving the option out
    default = GAME.new_game(2)
    assert GAME.new_game(2, {"board_side": None, "all_together": None}).digest() == default.digest()
    for value in (1, "true"):
        with pytest.raises(GameConfigError, match="'all_together': must be one of false, true"):
            GAME.new_game(2, {"all_together": value})
    for n in (0, 5, True, "2"):
        with pytest.raises(GameConfigError, match="for 1-4 players"):
            GAME.new_game(n)  # type: ignore[arg-type]  # wrong types on purpose
    for options in GAME.variants(2):
        GAME.new_game(2, options)


def test_bad_actions() -> None:
    state = KIT.new(2)
    rejects(state, {"kind": "draw"}, "unknown action kind 'draw'; known kinds: place, reveal")
    rejects(state, {"kind": "reveal"}, "'reveal' action is missing field 'tile'")
    rejects(state, {"kind": "reveal", "tile": "D16"}, "reveal.tile must be one of")
    rejects(state, {"kind": "reveal", "tile": 9}, "reveal.tile must be one of")
    rejects(state, {"kind": "place", "space": 0, "rotation": 0}, "chance outcome of kind reveal")
    rejects(state, ["place"], "an action must be a JSON object")
    reveal(state, "D09")
    rejects(state, {"kind": "reveal", "tile": "D01"}, "seat 0 must place the revealed tile D09")
    rejects(state, {"kind": "place", "space": 0}, "'place' action is missing field 'rotation'")
    rejects(state, {"kind": "place", "space": "3", "rotation": 0}, "place.space must be an int")
    rejects(state, {"kind": "place", "space": 3, "rotation": 1.0}, "place.rotation must be an")
    rejects(state, {"kind": "place", "space": True, "rotation": 0}, "place.space must be an")
    rejects(state, {"kind": "place", "space": 3, "rotation": 0, "seat": 1}, "unknown field")
    rejects(state, {"kind": "place", "space": -1, "rotation": 0}, "space -1 does not exist")
    rejects(state, {"kind": "place", "space": 12, "rotation": 0}, "space 12 does not exist")
    rejects(state, {"kind": "place", "space": 3, "rotation": 4}, "rotation 4 is out of range")
    rejects(state, {"kind": "place", "space": 3, "rotation": -1}, "rotation -1 is out of range")
    place(state, 4, 0)
    place(state, 4, 0)
    rejects(state, {"kind": "reveal", "tile": "D09"}, "tile D09 was already revealed in round 1")
    reveal(state, "D10")
    rejects(state, {"kind": "place", "space": 4, "rotation": 1}, "space 4 of seat 0's board is")
    assert (
        state.illegal_reason_for(
            1, GAME.action_from_json({"kind": "place", "space": 0, "rotation": 0})
        )
        == "seat 1 is not to move: seat 0 commits first (seat order)"
    )
    playout(state, random.Random(1))
    rejects(state, {"kind": "reveal", "tile": "D01"}, "the game is over")


# ------------------------------------------------------------------ encoding, render


def test_action_json_and_text() -> None:
    action = GAME.action_from_json({"kind": "place", "space": 7, "rotation": 3})
    assert action.to_json() == {"kind": "place", "space": 7, "rotation": 3}
    assert str(action) == "place space=7 rotation=3"
    outcome = GAME.action_from_json({"kind": "reveal", "tile": "D08"})
    assert outcome.to_json() == {"kind": "reveal", "tile": "D08"}
    assert str(outcome) == "reveal tile=D08"


def test_observation_shape_is_proto_friendly() -> None:
    state = KIT.new(3, {"board_side": "B", "all_together": True})
    rng = random.Random(2)
    while not state.is_terminal():
        for seat in (0, 1, 2, None):
            obs = state.observation(seat)
            json.dumps(obs)
            assert set(obs) == {
                "you", "current_player", "viewer", "phase", "scores", "round", "board_side",
                "all_together", "revealed_tile", "revealed", "stack_size", "unrevealed",
                "supply", "committed", "my_commitment", "boards", "ranks",
            }  # fmt: skip
            assert obs["you"] == seat and obs["viewer"] == (-1 if seat is None else seat)
            assert obs["scores"] == [b["score"]["total"] for b in obs["boards"]]
            # the spectator's "you" is the only null
            assert "None" not in json.dumps(obs)
            assert "null" not in json.dumps({**obs, "you": 0})
        step(state, rng)
    final = state.observation(None)
    assert [b["score"] for b in final["boards"]] == state.result().breakdown


def test_render_readable() -> None:
    state = KIT.new(2, {"board_side": "B"})
    assert "reveals the top tile" in state.render()
    reveal(state, "D09")
    text = state.render(0)
    assert "Revealed tile: D09" in text and "rotation 3" in text
    assert "seat 0 (red) to place" in text
    place(state, 2, 1)
    place(state, 2, 3)
    playout(state, random.Random(4))
    text = state.render(None)
    assert "Game over." in text and "rank" in text and "final" in text
    assert text.count("|... ...:... ...:... ...:... ...|") == 4


def test_score_board_provisional_on_empty_board() -> None:
    empty = [-1] * 12
    score = score_board(empty, "A", False)
    assert score["total"] == 0 and score["max_platypus_in_meadow"] == 1


# ------------------------------------------------------- rebuild from an observation


def test_from_observation_redraws_hidden_commitments() -> None:
    state = _mid_round(4, [(0, 0), (1, 1), (2, 2)])  # seat 3 to place D11
    digests = set()
    pendings: set[tuple[int, int]] = set()
    for seed in range(30):
        copy = rebuilt(state, seed)
        assert rebuilt(state, seed).digest() == copy.digest()  # deterministic in the rng
        digests.add(copy.digest())
        assert copy.revealed == state.revealed and copy.round == 2
        assert [copy.board(j) for j in range(4)] == [state.board(j) for j in range(4)]
        assert copy.commitments[3] == -1
        for j in range(3):
            p = copy.commitments[j]
            assert p >= 0 and copy.board(j)[p >> 2] == -1  # a legal commitment
        pendings.update((j, copy.commitments[j] >> 2) for j in range(3))
        # The other seats see their own (re-drawn) commitment, never the true one.
        assert copy.observation(0)["my_commitment"] == {
            "space": copy.commitments[0] >> 2,
            "rotation": copy.commitments[0] & 3,
        }
    assert len(digests) > 20
    assert {s for j, s in pendings if j == 0} == set(range(11))  # every empty space drawn


def test_from_observation_nothing_hidden_for_first_seat_and_solo() -> None:
    for n in (1, 3):
        state = KIT.new(n, {"board_side": "B", "all_together": True})
        rng = random.Random(n)
        while not state.is_terminal():
            if state.current_player == 0:
                assert rebuilt(state, 1).digest() == state.digest()
            step(state, rng)


def test_from_observation_conserves_components() -> None:
    for n in (2, 4):
        for game_seed in range(3):
            state = KIT.new(n)
            rng = random.Random(game_seed)
            while not state.is_terminal():
                if state.current_player >= 0:
                    copy = rebuilt(state, rng.randrange(1000))
                    revealed = set(copy.revealed)
                    remaining = {t for t in range(15) if copy.remaining >> t & 1}
                    assert revealed.isdisjoint(remaining) and revealed | remaining == set(range(15))
                    for j in range(n):
                        tiles = [code >> 2 for code in copy.board(j) if code >= 0]
                        assert sorted(tiles) == sorted(copy.revealed[:-1])
                    playout(copy, random.Random(game_seed))
                    assert copy.is_terminal()
                    for j in range(n):
                        board = copy.board(j)
                        assert -1 not in board
                        assert {code >> 2 for code in board} == set(copy.revealed)
                    assert len(copy.revealed) == 12 and bin(copy.remaining).count("1") == 3
                    assert len(copy.result().ranks) == n
                step(state, rng)


def _last_empty(state: DziobakiState, seat: int) -> int:
    (space,) = [s for s in range(12) if state.board(seat)[s] < 0]
    return space


def test_from_observation_last_round_mid_commitment() -> None:
    state = KIT.new(3)
    playout(state, random.Random(7), steps=11 * 4 + 1)  # 11 rounds, then the 12th reveal
    place(state, _last_empty(state, 0), 1)  # seat 0 commits to its last space
    assert state.current_player == 1 and state.round == 12
    copy = rebuilt(state, 0)
    assert len(copy.legal_actions()) == 4
    assert copy.commitments[0] >> 2 == _last_empty(copy, 0)  # the only possible space
    place(copy, _last_empty(copy, 1), 2)  # seat 1 commits after the rebuild
    # The history holds only the steps after the rebuild; resampling copes with it.
    assert len(copy.history) == 1
    other = copy.resample(2, random.Random(3))
    assert isinstance(other, DziobakiState)
    assert other.observation(2) == copy.observation(2)
    assert other.history[0] == GAME.action_from_json(
        {"kind": "place", "space": other.commitments[1] >> 2, "rotation": other.commitments[1] & 3}
    )
    place(other, _last_empty(other, 2), 0)
    assert other.is_terminal() and len(other.result().ranks) == 3


def test_from_observation_rejects_malformed_observations() -> None:
    def spaces(obs: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        spaces: list[dict[str, Any]] = obs["boards"][seat]["spaces"]
        return spaces

    state = _mid_round(3, [(0, 0)])  # seat 1 to place D11 in round 2

    rejects_observation(state, lambda o: o.update(phase="reveal"), "not one of seat 1's turns")
    rejects_observation(state, lambda o: o.update(current_player=2), "not one of seat 1's turns")
    rejects_observation(
        state, lambda o: o.update(board_side="B"), "board_side is 'B' but the game option"
    )
    rejects_observation(
        state, lambda o: o.update(round=13), r"round must be an integer 1\.\.12, got 13"
    )
    rejects_observation(
        state, lambda o: o.update(round=3), r"one tile per round so far \(3\), got 2"
    )
    rejects_observation(state, lambda o: o["revealed"].__setitem__(0, "D16"), "must be a tile id")
    rejects_observation(state, lambda o: o["revealed"].__setitem__(0, "D11"), "repeats a tile")
    rejects_observation(
        state, lambda o: o.update(revealed_tile="D05"), "must be the last revealed tile D11"
    )
    rejects_observation(
        state, lambda o: o.update(boards=o["boards"][:2]), "boards must have 3 entries"
    )
    rejects_observation(
        state,
        lambda o: spaces(o, 2)[11].update(tile="", rotation=-1),
        r"boards\[2\] must hold exactly the tiles of the completed rounds \(D05\), got nothing",
    )
    rejects_observation(
        state,
        lambda o: spaces(o, 0)[3].update(tile="D05", rotation=0),
        r"boards\[0\] holds tile D05 twice",
    )
    rejects_observation(
        state,
        lambda o: spaces(o, 1)[11].update(rotation=4),
        r"spaces\[11\]\.rotation must be an integer",
    )
    rejects_observation(
        state,
        lambda o: o.update(committed=[False] * 3),
        r"inconsistent observation: committed\[0\] is False, but the rest of the observation "
        "implies True",
    )
    rejects_observation(
        state,
        lambda o: o.update(stack_size=15),
        "stack_size is 15, but the rest of the observation implies 13",
    )
    rejects_observation(
        state,
        lambda o: o.update(my_commitment={"space": 0, "rotation": 0}),
        "my_commitment.space is 0, but the rest of the observation implies -1",
    )
    rejects_observation(
        state,
        lambda o: o["boards"][1]["score"].update(total=5),
        r"boards\[1\]\.score\.total is 5, but",
    )
    rejects_observation(state, lambda o: o.pop("supply"), "supply is missing")
    rejects_observation(state, lambda o: o.pop("boards"), "has no field .boards.")
