"""Tests of carson_city_zoo: the spec's conformance scenarios CZ-01..CZ-15 and worked
examples W1/W2, hidden information, resample, options and bad input.

Scenarios are driven through the public API (forced ``deal`` outcomes, JSON actions).
CZ-03, CZ-07, CZ-11..CZ-15 start from a position built by
``carson_city_zoo_helpers.build_position`` (documented there) because reaching them by
play would need a long prefix; the actions after that are applied through the public API.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, cast

import pytest

from engine.carson_city_zoo import GAME, CarsonCityZooState, Move, Place
from engine.core import (
    CHANCE,
    TERMINAL,
    GameConfigError,
    State,
    replay,
)
from tests.games.carson_city_zoo_helpers import (
    KIT,
    action_json,
    build_position,
    deck_order,
    play,
    space,
    start_game,
)
from tests.games.kit import (
    DELETE,
    act,
    apply_all,
    obs_json,
    player_obs,
    playout,
    rebuild_fails,
    rebuilt,
    rejects,
    rejects_observation,
    same_view_for_every_seat,
    set_at,
    step,
    texts,
    wire,
)

ZID = re.compile(r"Z\d\d")


# ---------------------------------------------------------------------------
# Conformance scenarios
# ---------------------------------------------------------------------------


def test_cz_01_opening_legal_actions() -> None:
    for state in (start_game(2), random_deal(2, seed=7)):
        assert state.current_player == 0
        legal = state.legal_actions()
        assert len(legal) == 100
        assert all(isinstance(a, Place) for a in legal)
        assert texts(legal[:2]) == ["place Y3 0", "place Y3 1"]
        assert texts(legal[-1:]) == ["place Y6 24"]
        expected = [f"place Y{v} {s}" for v in (3, 4, 5, 6) for s in range(25)]
        assert texts(legal) == expected
        for seat in (0, 1, None):
            obs = state.observation(seat)
            for s in range(25):
                entry = space(obs, s)
                assert entry["cards"] == 2
                assert entry["top_value"] == state.top[s] // 10
                assert entry["occupant"] == ""
            assert not ZID.search(json.dumps(obs))


def test_cz_02_place_captures_top_and_uncovers_bottom() -> None:
    state = start_game(2, bottoms={0: "Z42"}, tops={0: "Z15"})
    assert space(state.observation(0), 0)["top_value"] == 1
    play(state, "place Y3 0")
    y = player_obs(state, 0)
    assert y["zoo_pile"] == [{"id": "Z15", "value": 1, "mutant": False}]
    entry = space(state.observation(None), 0)
    assert (entry["cards"], entry["top_value"], entry["occupant"]) == (1, 4, "Y3")
    assert entry["mutated"] is False
    assert y["hand"] == ["Y4", "Y5", "Y6"]
    assert y["zoo_cards"] == 1
    assert "Z42" not in obs_json(state)  # still on the board: face only, no id


def test_cz_03_placement_targets() -> None:
    def position(to_move: int) -> CarsonCityZooState:
        return build_position(
            3,
            teams=["Y", "B", "R"],
            stacks={0: ["Z42"], 1: ["Z47"], 2: []},
            occupants={0: "Y3", 1: "R6*"},
            to_move=to_move,
        )

    b_turn = position(1)
    assert "B4" in player_obs(b_turn, 1)["hand"]
    places = [a for a in b_turn.legal_actions() if isinstance(a, Place)]
    assert places and not [a for a in places if a.space in (0, 1, 2)]
    assert not b_turn.is_legal(Place("B4", 0))
    y_turn = position(0)
    places = [a for a in y_turn.legal_actions() if isinstance(a, Place)]
    assert places and not [a for a in places if a.space == 0]
    for s, why in ((0, "occupied by Y3"), (1, "occupied by R6*"), (2, "no zoo card left")):
        rejects(b_turn, action_json(f"place B4 {s}"), re.escape(why))


def test_cz_04_move_captures_zoo_card_and_vacated_space_is_placeable() -> None:
    state = start_game(2, bottoms={0: "Z42", 1: "Z05"}, tops={1: "Z33"})
    play(state, "place Y3 0")
    play(state, "place B3 24")
    before = player_obs(state, 0)["zoo_cards"]
    play(state, "move Y3 E")
    y = player_obs(state, 0)
    assert y["zoo_pile"][-1] == {"id": "Z33", "value": 3, "mutant": False}
    assert y["zoo_cards"] == before + 3
    obs = state.observation(None)
    one = space(obs, 1)
    assert (one["cards"], one["top_value"], one["occupant"]) == (1, 0, "Y3")
    zero = space(obs, 0)
    assert (zero["cards"], zero["top_value"], zero["occupant"]) == (1, 4, "")
    assert "place B4 0" in texts(state.legal_actions())  # Blue may place there
    play(state, "place B4 20")
    assert "place Y4 0" in texts(state.legal_actions())  # and so may Yellow


def w1_after_move_3() -> CarsonCityZooState:
    """W1 (3 players R, Y, B, Red starts) after moves 1-3, driven by play."""
    state = start_game(
        3,
        teams=["R", "Y", "B"],
        tops={12: "Z32", 11: "Z12", 7: "Z41", 13: "Z22"},
    )
    play(state, "place R4 12")
    play(state, "place Y5 11")
    play(state, "place B5 7")
    return state


def test_w1_rulebook_opening() -> None:
    state = w1_after_move_3()
    r, y, b = (player_obs(state, s) for s in range(3))
    assert (r["zoo_cards"], y["zoo_cards"], b["zoo_cards"]) == (3, 1, 4)
    assert r["zoo_pile"][0]["mutant"] is False
    assert state.current_player == 0
    legal = state.legal_actions()
    assert len(legal) == 68
    places = [a for a in legal if isinstance(a, Place)]
    assert len(places) == 66
    assert {a.char for a in places} == {"R3", "R5", "R6"}
    assert {a.space for a in places} == set(range(25)) - {7, 11, 12}
    assert texts([a for a in legal if isinstance(a, Move)]) == ["move R4 E", "move R4 S"]
    assert space(state.observation(0), 13)["top_value"] == 2
    # Option A: move R4 E, +2, space 12 shows its uncovered bottom card.
    a = KIT.narrow(state.clone())
    play(a, "move R4 E")
    assert player_obs(a, 0)["zoo_cards"] == 5
    twelve = space(a.observation(None), 12)
    assert (twelve["cards"], twelve["occupant"]) == (1, "")
    assert twelve["top_value"] == a.bottom[12] // 10
    # Option B: place R5 on 13, +2, R4 guarded on its east side.
    b_ = KIT.narrow(state.clone())
    play(b_, "place R5 13")
    assert player_obs(b_, 0)["zoo_cards"] == 5
    assert space(b_.observation(None), 13)["occupant"] == "R5"


def test_cz_05_equal_value_captures_higher_does_not() -> None:
    state = w1_after_move_3()
    assert not state.is_legal(Move("R4", "N"))  # onto B5: 5 > 4
    assert not state.is_legal(Move("R4", "W"))  # onto Y5: 5 > 4
    rejects(state, action_json("move R4 W"), "worth more")
    play(state, "place R3 24")  # Red plays elsewhere
    assert state.current_player == 1
    assert "move Y5 E" in texts(state.legal_actions())
    play(state, "move Y5 E")
    y = player_obs(state, 1)
    assert y["character_pile"] == [{"id": "R4", "value": 4, "mutated": False}]
    assert y["captured_characters"] == 4
    eleven = space(state.observation(None), 11)
    assert (eleven["cards"], eleven["occupant"]) == (1, "")
    assert space(state.observation(None), 12)["occupant"] == "Y5"
    assert state.current_player == 2
    assert "move B5 S" in texts(state.legal_actions())
    play(state, "move B5 S")
    b = player_obs(state, 2)
    assert b["character_pile"] == [{"id": "Y5", "value": 5, "mutated": False}]
    assert b["captured_characters"] == 5
    assert "Y5" not in player_obs(state, 1)["on_board"]


def test_cz_06_own_active_character_blocks_movement() -> None:
    state = start_game(2)
    play(state, "place Y3 0")
    play(state, "place B3 24")
    play(state, "place Y4 1")
    play(state, "place B4 23")
    moves = texts([a for a in state.legal_actions() if isinstance(a, Move)])
    assert "move Y3 E" not in moves and "move Y4 W" not in moves
    assert "move Y3 S" in moves and "move Y4 E" in moves
    for text in ("move Y3 E", "move Y4 W"):
        rejects(state, action_json(text), "own character")


def test_cz_07_empty_spaces_and_board_edge() -> None:
    state = build_position(2, stacks={21: [], 15: ["Z44"]}, occupants={20: "B4"}, to_move=1)
    moves = [a for a in state.legal_actions() if isinstance(a, Move)]
    assert texts(moves) == ["move B4 N"]
    rejects(state, action_json("move B4 E"), "space 21 is empty")
    rejects(state, action_json("move B4 S"), "off the board")


def mutation_prefix() -> CarsonCityZooState:
    """2 players (R, Y), Red starts; (4,4) = [Z47, Z21]; Red's hand ends as [R6]."""
    state = start_game(2, teams=["R", "Y"], bottoms={24: "Z47"}, tops={24: "Z21"})
    for text in ("place R3 5", "place Y4 9", "place R4 6", "place Y5 8"):
        play(state, text)
    play(state, "place R5 7")
    play(state, "place Y6 10")
    return state


def test_cz_08_mutation_on_placement() -> None:
    state = mutation_prefix()
    assert player_obs(state, 0)["hand"] == ["R6"]
    assert space(state.observation(1), 24)["top_value"] == 2
    assert "Z21" not in obs_json(state) and "Z47" not in obs_json(state)
    before = player_obs(state, 0)["zoo_cards"]
    play(state, "place R6 24")
    r = player_obs(state, 0)
    assert r["zoo_pile"][-1] == {"id": "Z21", "value": 2, "mutant": True}
    assert r["zoo_cards"] == before + 2
    assert state.observation(0)["mutant_found"] == [False, False, True, False]
    entry = space(state.observation(None), 24)
    assert (entry["occupant"], entry["mutated"], entry["cards"], entry["top_value"]) == (
        "R6",
        True,
        1,
        4,
    )
    assert "R6" in r["on_board"]
    assert r["surviving_characters"] == 3 + 4 + 5
    assert not [a for a in state.legal_actions() if isinstance(a, Place) and a.space == 24]
    play(state, "place Y3 23")
    legal = state.legal_actions()
    assert not [a for a in legal if isinstance(a, Move) and a.char == "R6"]
    rejects(state, action_json("move R6 N"), "mutated")


def test_cz_09_any_active_character_captures_opposing_mutant() -> None:
    state = mutation_prefix()
    play(state, "place R6 24")
    play(state, "place Y3 23")
    play(state, "move R3 N")  # Red elsewhere
    assert state.current_player == 1
    assert "move Y3 E" in texts(state.legal_actions())  # 3 < 6 does not matter
    before = player_obs(state, 1)["zoo_cards"]
    play(state, "move Y3 E")
    y = player_obs(state, 1)
    assert y["character_pile"] == [{"id": "R6", "value": 6, "mutated": True}]
    assert y["captured_characters"] == 6
    assert y["zoo_cards"] == before
    entry = space(state.observation(None), 24)
    assert (entry["occupant"], entry["mutated"], entry["cards"], entry["top_value"]) == (
        "Y3",
        False,
        1,
        4,
    )


def test_cz_10_recovering_own_mutant() -> None:
    state = start_game(2, teams=["R", "Y"], bottoms={24: "Z47"}, tops={24: "Z21"})
    for text in ("place R3 19", "place Y3 0", "place R4 5", "place Y4 1", "place R5 6"):
        play(state, text)
    play(state, "place Y5 2")
    play(state, "place R6 24")
    play(state, "place Y6 3")
    assert space(state.observation(None), 24)["mutated"] is True
    assert "move R3 S" in texts(state.legal_actions())
    play(state, "move R3 S")
    r = player_obs(state, 0)
    assert r["character_pile"] == [{"id": "R6", "value": 6, "mutated": True}]
    assert r["captured_characters"] == 6
    assert r["surviving_characters"] == 3 + 4 + 5
    assert "R6" not in r["hand"] and "R6" not in r["on_board"]
    assert space(state.observation(None), 24)["occupant"] == "R3"


def test_cz_11_game_ends_when_acting_players_last_character_mutates() -> None:
    state = build_position(
        2,
        stacks={7: ["Z47", "Z11"]},
        occupants={12: "B5", 24: "B6*"},
        piles={0: ["B3", "B4"]},
        to_move=1,
    )
    assert player_obs(state, 1)["hand"] == []
    assert texts(state.legal_actions()) == ["move B5 N", "move B5 E", "move B5 S", "move B5 W"]
    play(state, "move B5 N")
    b = player_obs(state, 1)
    assert b["zoo_pile"] == [{"id": "Z11", "value": 1, "mutant": True}]
    entry = space(state.observation(None), 7)
    assert (entry["occupant"], entry["mutated"], entry["cards"], entry["top_value"]) == (
        "B5",
        True,
        1,
        4,
    )
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.legal_actions() == []
    res = state.result()
    assert res.breakdown[1] == {
        "zoo_cards": 1,
        "captured_characters": 0,
        "surviving_characters": 0,
        "total": 1,
    }
    assert res.breakdown[0]["total"] == 7 + 18
    assert res.ranks == [1, 2]


def test_cz_12_game_ends_when_non_acting_player_has_no_action() -> None:
    state = build_position(
        2,
        stacks={1: [], 5: ["Z43", "Z16"]},
        occupants={0: "Y4", 24: "Y6*"},
        piles={1: ["Y3", "Y5"]},
        to_move=1,
    )
    assert "B5" in player_obs(state, 1)["hand"] and player_obs(state, 0)["hand"] == []
    play(state, "place B5 5")
    b = player_obs(state, 1)
    assert b["zoo_pile"][-1] == {"id": "Z16", "value": 1, "mutant": False}
    entry = space(state.observation(None), 5)
    assert (entry["occupant"], entry["cards"], entry["top_value"]) == ("B5", 1, 4)
    assert state.is_terminal()
    res = state.result()
    assert res.breakdown[1]["zoo_cards"] == 1
    assert res.breakdown[1]["captured_characters"] == 8
    assert res.breakdown[0]["surviving_characters"] == 4


def w2_final_state() -> CarsonCityZooState:
    """W2: Red's final position in a 3-player game (R, Y, B)."""
    return build_position(
        3,
        teams=["R", "Y", "B"],
        occupants={12: "R5", 13: "R4*"},
        piles={
            0: ["Z45", "Z46", "Z35", "Z31", "Z25", "Z26", "Z02", "Y3", "B4"],
            1: ["R3"],
        },
        over=True,
    )


def test_cz_13_rulebook_scoring_example() -> None:
    state = w2_final_state()
    assert player_obs(state, 0)["hand"] == ["R6"]
    expected = {
        "zoo_cards": 18,
        "captured_characters": 7,
        "surviving_characters": 11,
        "total": 36,
    }
    assert state.result().breakdown[0] == expected
    assert state.result().scores[0] == 36
    r = player_obs(state, 0)
    assert {k: r[k] for k in expected} == expected


def test_cz_14_mutant_left_on_board_scores_for_nobody() -> None:
    state = build_position(
        2,
        occupants={0: "Y5", 1: "Y4*", 2: "B4", 3: "B6", 4: "B5*"},
        piles={0: ["Z42", "Z33", "Z01", "B3"], 1: ["Z44", "Z21", "Y3"]},
        over=True,
    )
    assert player_obs(state, 0)["hand"] == ["Y6"] and player_obs(state, 1)["hand"] == []
    res = state.result()
    assert res.breakdown[0] == {
        "zoo_cards": 7,
        "captured_characters": 3,
        "surviving_characters": 11,
        "total": 21,
    }
    assert res.breakdown[1] == {
        "zoo_cards": 6,
        "captured_characters": 3,
        "surviving_characters": 10,
        "total": 19,
    }
    assert res.scores == [21, 19]
    assert res.ranks == [1, 2]


def test_cz_15_tie_is_shared_rank() -> None:
    state = build_position(3, piles={0: ["Z41", "Z32"], 1: ["Z42", "Z33"], 2: ["Z23"]}, over=True)
    res = state.result()
    assert res.scores == [25, 25, 20]
    assert res.ranks == [1, 1, 3]


# ---------------------------------------------------------------------------
# Chance, options, bad input
# ---------------------------------------------------------------------------


def random_deal(num_players: int, seed: int, **options: Any) -> CarsonCityZooState:
    rng = random.Random(seed)
    state = KIT.new(num_players, {"start_player": 0} | options)
    while state.is_chance_node():
        step(state, rng)
    return state


def test_chance_nodes() -> None:
    state = GAME.new_game(3)
    assert state.current_player == CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 50 and outcomes[0][0].to_json() == {"kind": "deal", "card": "Z01"}
    assert all(p == pytest.approx(1 / 50) for _, p in outcomes)
    state.apply_json({"kind": "deal", "card": "Z17"})
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 49 and all(p == pytest.approx(1 / 49) for _, p in outcomes)
    assert "Z17" not in [o.to_json()["card"] for o, _ in outcomes]
    rejects(state, {"kind": "deal", "card": "Z17"}, "not a possible chance outcome")
    for card in deck_order({}, {})[1:]:
        if card == "Z17":
            card = "Z01"
        state.apply_json({"kind": "deal", "card": card})
    assert state.current_player == CHANCE
    outcomes = state.chance_outcomes()
    assert [o.to_json() for o, _ in outcomes] == [
        {"kind": "start_player", "seat": s} for s in range(3)
    ]
    assert all(p == pytest.approx(1 / 3) for _, p in outcomes)
    assert state.observation(None)["phase"] == "start"
    state.apply_json({"kind": "start_player", "seat": 2})
    assert state.current_player == 2
    assert state.observation(1)["start_player"] == 2


def test_options_teams_and_start_player() -> None:
    state = random_deal(3, seed=1, teams=["R", "G", "Y"], start_player=1)
    assert state.current_player == 1
    assert [p["team"] for p in state.observation(None)["players"]] == ["R", "G", "Y"]
    assert texts(state.legal_actions()[:1]) == ["place G3 0"]
    rejects(state, {"kind": "place", "char": "R3", "space": 0}, "belongs to seat 0")
    rejects(state, {"kind": "place", "char": "B3", "space": 0}, "not in this game")
    assert GAME.options == {"start_player": None, "teams": None}
    for n in (2, 3, 4):
        for opts in GAME.variants(n):
            GAME.new_game(n, opts)


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (3, {"colour": "red"}, "has no option 'colour'"),
        (3, {"start_player": 3}, "must be a seat 0..2 or null"),
        (3, {"start_player": "0"}, "'start_player': must be an integer"),
        (3, {"start_player": True}, "'start_player': must be an integer"),
        (3, {"teams": ["Y", "B"]}, "must list exactly 3 team ids"),
        (3, {"teams": ["Y", "B", "B"]}, "must be distinct"),
        (3, {"teams": ["Y", "B", "X"]}, "'X' is not a team id"),
        (2, {"teams": "YB"}, "'teams': must be a list"),
        (1, {}, "is for 2-4 players"),
        (5, {}, "is for 2-4 players"),
    ],
)
def test_bad_config(players: int, options: dict[str, Any], message: str) -> None:
    with pytest.raises(GameConfigError, match=re.escape(message)):
        GAME.new_game(players, options)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "jump"}, "unknown action kind 'jump'"),
        ({"kind": "place", "char": "Y3"}, "missing field 'space'"),
        ({"kind": "move", "dir": "N"}, "missing field 'char'"),
        ({"kind": "place", "char": "Y3", "space": "12"}, "place.space must be an integer"),
        ({"kind": "place", "char": "Y7", "space": 1}, "place.char must be one of"),
        ({"kind": "move", "char": "Y3", "dir": "NE"}, "move.dir must be one of"),
        ({"kind": "place", "char": "Y3", "space": 1, "x": 1}, "unknown field(s) ['x']"),
        ({"kind": "place", "char": "Y4", "space": 25}, "space must be 0..24, got 25"),
        ({"kind": "place", "char": "Y4", "space": -1}, "space must be 0..24, got -1"),
        ({"kind": "place", "char": "B3", "space": 1}, "B3 belongs to seat 1, not to seat 0"),
        ({"kind": "move", "char": "Y4", "dir": "N"}, "Y4 is in hand, not on the board"),
        ({"kind": "place", "char": "Y4", "space": 0}, "space 0 is occupied by Y3"),
        ({"kind": "move", "char": "Y5", "dir": "W"}, "off the board"),
        ({"kind": "move", "char": "Y5", "dir": "N"}, "own character Y3"),
        ({"kind": "place", "char": "Y5", "space": 3}, "Y5 is not in hand: it is on space 5"),
        ({"kind": "deal", "card": "Z01"}, "must choose an action of kind move/place"),
        ({"kind": "start_player", "seat": 0}, "must choose an action of kind move/place"),
    ],
)
def test_bad_actions(data: dict[str, Any], message: str) -> None:
    state = start_game(2)
    play(state, "place Y3 0")
    play(state, "place B3 24")
    play(state, "place Y5 5")
    play(state, "place B4 23")
    rejects(state, data, re.escape(message))


def test_bad_actions_in_other_phases() -> None:
    state = KIT.new(2)
    rejects(
        state, {"kind": "place", "char": "Y3", "space": 0}, "chance outcome of kind deal is due"
    )
    rejects(state, {"kind": "deal", "card": "Z51"}, "not a possible chance outcome")
    over = w2_final_state()
    rejects(over, {"kind": "place", "char": "R6", "space": 0}, "the game is over")


# ---------------------------------------------------------------------------
# Hidden information and resample
# ---------------------------------------------------------------------------


def captured_ids(state: CarsonCityZooState) -> set[str]:
    return {z["id"] for p in state.observation(None)["players"] for z in p["zoo_pile"]}


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_observations_never_show_board_card_ids_or_backs(num_players: int) -> None:
    rng = random.Random(num_players)
    for _ in range(6):
        state = KIT.new(num_players)
        while True:
            spectator = state.observation(None)
            text = json.dumps(spectator)
            # Only captured zoo cards are named; "mutant" appears only in the piles.
            assert set(ZID.findall(text)) == captured_ids(state)
            assert text.count('"mutant"') == sum(len(p["zoo_pile"]) for p in spectator["players"])
            assert same_view_for_every_seat(state)  # the same but for the header's "you"
            if state.observation(None)["phase"] == "deal":
                assert all(s["top_value"] == -1 for s in spectator["spaces"])
            if state.is_terminal():
                break
            step(state, rng)


def test_states_differing_only_in_hidden_cards_look_the_same() -> None:
    # a: default deck; b: the bottom cards of spaces 3 and 4 swapped (different faces)
    # and the top cards Z11 (mutant back) and Z12 swapped between spaces 20 and 21.
    base = deck_order({3: "Z05", 4: "Z45"}, {20: "Z11", 21: "Z12"})
    other = deck_order({3: "Z45", 4: "Z05"}, {20: "Z12", 21: "Z11"})
    assert base != other
    states = []
    for order in (base, other):
        state = KIT.new(3, {"start_player": 1})
        for card in order:
            act(state, kind="deal", card=card)
        states.append(state)
    a, b = states
    for text in ("place B5 10", "place G4 11", "place Y3 0", "move B5 S", "place G6 12"):
        for seat in (0, 1, 2, None):
            assert a.observation(seat) == b.observation(seat)
        assert a.digest() != b.digest()
        play(a, text)
        play(b, text)
    assert a.observation(0) == b.observation(0)
    # Taking a top card reveals its id and back: Z11 vs Z12 now differ publicly.
    play(a, "place Y4 20")
    play(b, "place Y4 20")
    assert a.observation(0) != b.observation(0)
    assert space(a.observation(0), 20)["mutated"] is True
    assert space(b.observation(0), 20)["mutated"] is False


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_resample_keeps_observation_and_replays(num_players: int) -> None:
    rng = random.Random(100 + num_players)
    for game_index in range(4):
        state = KIT.new(num_players)
        stop = rng.randrange(10, 110)
        digests = set()
        while not state.is_terminal() and len(state.history) < stop:
            step(state, rng)
        for seat in range(num_players):
            for _ in range(5):
                other = KIT.narrow(state.resample(seat, rng))
                assert other.observation(seat) == state.observation(seat)
                assert other.observation(None) == state.observation(None)
                assert other.legal_actions() == state.legal_actions()
                assert sorted(other.dealt + other.undealt) == list(range(50))
                again = replay(GAME, num_players, state.options, other.history)
                assert again.digest() == other.digest()
                digests.add(other.digest())
                # the resampled state plays on
                playout(other, random.Random(game_index))
                assert other.is_terminal()
        if len(state.dealt) > 5 and not state.is_terminal():
            assert len(digests) > 1  # hidden cards really are redrawn


def test_resample_redraws_mutant_positions_consistently() -> None:
    state = start_game(2)
    seen = set()
    rng = random.Random(5)
    for _ in range(40):
        other = KIT.narrow(state.resample(0, rng))
        for s in range(25):  # every visible face is kept
            assert other.top[s] // 10 == state.top[s] // 10
        seen.add(tuple(other.top))
    assert len(seen) > 30
    # Once Z21 is captured, no resample may put another mutant-backed 2 on the board.
    state = start_game(2, tops={4: "Z21"})
    play(state, "place Y3 4")
    for _ in range(20):
        other = KIT.narrow(state.resample(1, rng))
        assert 20 not in other.top and 20 not in other.bottom
        assert other.observation(1) == state.observation(1)


# ---------------------------------------------------------------------------
# Random playouts: fast legality check, end condition, clone, render
# ---------------------------------------------------------------------------


def every_candidate(state: CarsonCityZooState) -> list[Any]:
    out: list[Any] = []
    for name in (*state.roster.names, "G3", "R6"):
        out += [Place(cast(Any, name), s) for s in (-1, *range(26))]
        out += [Move(cast(Any, name), cast(Any, d)) for d in "NESW"]
    return out


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_playouts_are_consistent(num_players: int) -> None:
    rng = random.Random(num_players * 11)
    for game_index in range(8):
        opts = GAME.variants(num_players)[game_index % 2]
        state = KIT.new(num_players, opts)
        steps = 0
        while not state.is_terminal():
            if not state.is_chance_node():
                legal = state.legal_actions()
                assert legal
                legal_set = set(legal)
                for cand in every_candidate(state):
                    assert state.is_legal(cand) == (cand in legal_set), cand
                for seat in range(num_players):  # the end check has not fired
                    assert state._actions_of(seat)
            copy = state.clone()
            before = copy.digest()
            step(state, rng)
            steps += 1
            assert copy.digest() == before  # the clone is untouched by the parent's step
            assert len(copy.history) == steps - 1
        assert steps <= GAME.step_bound(num_players, opts)
        assert any(not state._actions_of(seat) for seat in range(num_players))
        res = state.result()
        assert res.scores == [b["total"] for b in res.breakdown]
        # every card is somewhere: on the board or in exactly one pile
        on_board = [c for c in state.bottom + state.top if c >= 0]
        piles = [c for p in state.zoo_piles for c in p]
        assert sorted(on_board + piles) == list(range(50))


def test_render_is_readable() -> None:
    state = w1_after_move_3()
    text = state.render(0)
    assert "seat 0 R (you)" in text and "2:2" in text and "1:" in text
    assert "R4" in text and "Y5" in text and "B5" in text
    assert not ZID.search(text.replace("Z32", "").replace("Z12", "").replace("Z41", ""))
    over = w2_final_state()
    assert "R4*" in over.render() and "ranks:" in over.render()
    assert "dealing: 0/50" in GAME.new_game(2).render()


# ---------------------------------------------------------------------------
# from_observation (engine/carson_city_zoo/rebuild.py)
# ---------------------------------------------------------------------------


def mid_game(num_players: int, seed: int, turns: int, **options: Any) -> CarsonCityZooState:
    """A random game stopped at a decision after ``turns`` turns (or fewer)."""
    rng = random.Random(seed)
    state = KIT.new(num_players, options)
    while state.is_chance_node():
        step(state, rng)
    for _ in range(turns):
        after = KIT.narrow(state.clone())
        step(after, rng)
        if after.is_terminal():
            break
        state = after
    assert not state.is_terminal()
    return state


def test_from_observation_redraws_only_the_hidden_cards() -> None:
    state = mid_game(3, seed=1, turns=12)
    obs = state.observation(state.current_player)
    two_card = [s for s in range(25) if state.top[s] >= 0]
    assert two_card and any(state.top[s] < 0 <= state.bottom[s] for s in range(25))
    boards = set()
    for seed in range(20):
        other = rebuilt(state, seed)
        assert other.history == [] and other.current_player == state.current_player
        assert other.observation(state.current_player) == obs
        assert other.legal_actions() == state.legal_actions()
        # public: occupants, piles, the face of every uppermost card, what is gone
        assert other.occupant == state.occupant and other.character_space == state.character_space
        assert other.mutated == state.mutated
        assert other.zoo_piles == state.zoo_piles and other.character_piles == state.character_piles
        for s in range(25):
            assert (other.bottom[s] < 0, other.top[s] < 0) == (
                state.bottom[s] < 0,
                state.top[s] < 0,
            )
            upper = other.top[s] if other.top[s] >= 0 else other.bottom[s]
            if upper >= 0:
                assert upper // 10 == state.top_value(s)
        boards.add((tuple(other.bottom), tuple(other.top)))
    assert len(boards) == 20  # the ids (and the covered faces) really are redrawn
    bottoms = {b[0][s] // 10 for b in boards for s in two_card}
    assert len(bottoms) == 5  # covered bottoms take any face value
    assert rebuilt(state, 3).digest() == rebuilt(state, 3).digest()
    assert rebuilt(state, 3).digest() != rebuilt(state, 4).digest()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_from_observation_conserves_the_components(num_players: int) -> None:
    for seed in range(6):
        state = mid_game(num_players, seed=seed, turns=5 * seed)
        other = rebuilt(state, seed)
        captured = sorted(c for pile in other.zoo_piles for c in pile)
        on_board = sorted(c for c in other.bottom + other.top if c >= 0)
        assert sorted(captured + on_board) == list(range(50))
        assert sorted(other.dealt) == list(range(50)) and other.undealt == []
        assert other.character_space == state.character_space and other.zoo_piles == state.zoo_piles
        # the rebuilt state is a normal one: it resamples, replays from itself, ends
        again = other.resample(state.current_player, random.Random(seed))
        assert again.observation(state.current_player) == other.observation(state.current_player)
        copy = other.clone()
        playout(other, random.Random(seed))
        assert other.is_terminal() and len(other.history) <= 66
        assert apply_all(copy, other.history).digest() == other.digest()


def test_from_observation_never_redraws_a_found_mutant() -> None:
    # Z21 (mutant back, value 2) is captured on the first turn: the value-2 cards left
    # on the board are all plan-backed in every determinization.
    state = start_game(2, tops={4: "Z21"}, bottoms={9: "Z31"})
    play(state, "place Y3 4")
    assert player_obs(state, 0)["zoo_pile"][0]["mutant"] is True
    assert state.observation(1)["mutant_found"] == [False, False, True, False]
    mutant_spaces = set()
    for seed in range(30):
        other = rebuilt(state, seed)
        board = other.bottom + other.top
        assert 20 not in board
        assert {0, 10, 30} <= set(board)  # the mutants not found are still out there
        mutant_spaces.add(board.index(30) % 25)
        assert other.mutated[other.roster.index["Y3"]]  # Y3 mutated where it stands
    assert len(mutant_spaces) > 5  # the unfound mutants move around


def test_from_observation_with_options_and_late_game() -> None:
    opts = {"start_player": 2, "teams": ["R", "G", "Y"]}
    state = mid_game(3, seed=9, turns=40, **opts)
    assert state.start_player == 2
    other = rebuilt(state, 0)
    assert other.teams == ("R", "G", "Y") and other.start_player == 2
    assert other.observation(None) == state.observation(None)
    # the same observation under other options is not this game's
    obs = wire(state, state.current_player)
    rebuild_fails(state, obs, "seat 0 plays 'Y'", options={})  # {}: the default options
    rebuild_fails(state, obs, "option start_player is 1", options={**opts, "start_player": 1})


def test_from_observation_with_emptied_spaces() -> None:
    # Space 0 keeps its occupant B4 on no card; space 1 ends with neither card nor occupant.
    state = start_game(2, bottoms={0: "Z42", 1: "Z05"}, tops={1: "Z33"})
    for text in (
        "place Y3 0",
        "place B3 24",
        "move Y3 E",
        "place B4 0",
        "move Y3 S",
        "place B5 1",
        "place Y4 20",
        "move B5 S",
    ):
        play(state, text)
    obs = state.observation(0)
    assert (space(obs, 0)["cards"], space(obs, 0)["occupant"]) == (0, "B4")
    assert (space(obs, 1)["cards"], space(obs, 1)["occupant"]) == (0, "")
    for seed in range(5):
        other = rebuilt(state, seed)
        assert other.bottom[0] == other.top[0] == other.bottom[1] == other.top[1] == -1
        assert other.legal_actions() == state.legal_actions()
        assert not {a.space for a in other.legal_actions() if isinstance(a, Place)} & {0, 1}
        other.apply(Place("Y5", 2))
        assert "move B4 E" not in texts(other.legal_actions())  # space 1 is empty


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("phase", "over", "phase is 'over'"),
        ("current_player", 1, "seat 1's turn, not seat 0's"),
        ("spaces", [], "spaces must have 25 entries"),
        ("spaces.3.cards", 3, r"spaces\[3\].cards must be an integer 0..2"),
        ("spaces.3.top_value", 7, r"spaces\[3\].top_value must be an integer 0..4"),
        ("spaces.3.cards", 1, "the board shows 47 zoo cards and the piles 2;"),
        ("spaces.3.occupant", "Y9", "'Y9' is not a character of this game"),
        ("spaces.4.cards", 2, "an occupant never stands on 2 zoo cards"),
        ("spaces.4.occupant", "B4", "B4 is on space 7, but also on space 4"),
        ("players.0.team", "G", "seat 0 plays 'Y'"),
        ("players.1.hand", ["B3", "B5"], r"\['B6'\] are in no hand"),
        ("players.0.zoo_pile.0.id", "Z99", "'Z99' is not a zoo card id"),
        ("players.0.zoo_pile.0.value", 3, r"zoo_pile\[0\].value is 3, but"),
        ("players.0.zoo_cards", 9, "zoo_cards is 9, but the rest of the observation implies"),
        ("mutant_found", [True, False, False, False], r"mutant_found\[0\] is True"),
        ("spaces.4.mutated", True, r"1 mutated character\(s\) but 0 mutant-backed card\(s\)"),
        ("players", DELETE, r"lacks field\(s\) \['players'\]"),
    ],
)
def test_from_observation_rejects_a_malformed_observation(
    path: str, value: Any, message: str
) -> None:
    state = start_game(2, tops={3: "Z44", 4: "Z15"})
    play(state, "place Y3 4")
    play(state, "place B4 7")
    rejects_observation(state, set_at(path, value), message)


def test_from_observation_rejects_a_finished_game() -> None:
    state = mid_game(2, seed=4, turns=80)  # the last decision before the end
    legal = state.legal_actions()
    end = next(iter(a for a in legal if _ends(state, a)), None)
    assert end is not None
    state.apply(end)
    assert state.is_terminal()
    obs = wire(state, 0)
    rebuild_fails(state, obs, "phase is 'over'", seat=0)
    # dressed up as a turn, it still cannot be one: somebody has no action left
    stuck = {**obs, "phase": "play", "current_player": 0}
    rebuild_fails(state, stuck, "has no legal action, so the game would be over", seat=0)


def _ends(state: State, action: Any) -> bool:
    after = state.clone()
    after.apply(action)
    return after.is_terminal()
