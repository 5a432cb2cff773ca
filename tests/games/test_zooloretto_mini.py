"""Zooloretto Mini: every conformance scenario (ZM-01..ZM-15) and worked example (W1-W4) of
``rules/zooloretto_mini.md``, hidden information, determinization and bad input.

Scenarios are driven through the public API with the exact chance outcomes and actions
(``play`` in the helpers); the few positions that play cannot reach, or reaches only after a
long prefix, are built with the documented ``build`` helper (each such test says so).
"""

from __future__ import annotations

import json
import random

import pytest

from engine.core import CHANCE, TERMINAL, GameConfigError, IllegalActionError, sample_outcome
from engine.zooloretto_mini import GAME, Draw, ZoolorettoMiniState, score_zoo
from engine.zooloretto_mini.data import BONUS, PLACE, offspring_pool, tile_pool
from tests.games.zooloretto_mini_helpers import build, legal, play

TWO = {"removed_species": ["S5", "S6", "S7"], "start_player": 0}
THREE = {"removed_species": ["S6", "S7"], "start_player": 0}


def new(n: int, options: dict) -> ZoolorettoMiniState:
    state = GAME.new_game(n, options)
    assert isinstance(state, ZoolorettoMiniState)
    return state


def zoo(state: ZoolorettoMiniState, seat: int) -> dict:
    """Seat's zoo from the observation: {"E1": [...], "E2": ..., "E3": ..., "barn": [...]}."""
    player = state.observation(seat)["players"][seat]
    out = {e["id"]: e["tiles"] for e in player["enclosures"]}
    out["barn"] = player["barn"]
    return out


def trucks(state: ZoolorettoMiniState) -> dict:
    return {t["id"]: t["tiles"] for t in state.observation(None)["trucks"]}


def supply_of(state: ZoolorettoMiniState, species: str) -> list[str]:
    return [t for t in state.observation(None)["offspring_supply"] if t.startswith(species)]


# ---------------------------------------------------------------------------
# Conformance scenarios
# ---------------------------------------------------------------------------


def test_zm_01_four_player_setup() -> None:
    state = new(4, {"removed_species": ["S7"], "start_player": 0})
    obs = state.observation(None)
    assert (obs["bag_count"], obs["end_count"], obs["last_round"]) == (60, 15, False)
    assert obs["trucks"] == [
        {"id": f"T{k}", "capacity": 3, "tiles": [], "taken_by": -1} for k in (1, 2, 3, 4)
    ]
    assert obs["offspring_supply"] == [f"S{s}K{i}" for s in range(1, 7) for i in (1, 2)]
    for player in obs["players"]:
        assert player["barn"] == [] and all(e["tiles"] == [] for e in player["enclosures"])
    assert obs["removed_species"] == ["S7"]
    assert "S7" not in json.dumps({k: v for k, v in obs.items() if k != "removed_species"})
    assert state.current_player == 0
    assert [a.to_json() for a in state.legal_actions()] == [{"kind": "draw"}]
    # No S7 tile is in play: the first draw is uniform over the 75 tiles of the pool.
    play(state, "draw")
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 75 and all(p == pytest.approx(1 / 75) for _, p in outcomes)
    assert not [o for o, _ in outcomes if o.to_json()["tile"].startswith("S7")]


def test_zm_02_draw_then_load_empty_truck_cannot_be_taken() -> None:
    state = new(3, THREE)
    play(state, "0: dl S1N1 T1", "1: dl S2N1 T1", "2: dl S3N1 T1", "0: dl S4N1 T2")
    assert trucks(state) == {"T1": ["S1N1", "S2N1", "S3N1"], "T2": ["S4N1"], "T3": []}
    assert state.current_player == 1
    assert legal(state) == ["draw", "take_truck T1", "take_truck T2"]
    bag = state.observation(1)["bag_count"]
    play(state, "draw", "draw_tile LP1")
    assert legal(state) == ["load T2", "load T3"]
    play(state, "load T3")
    assert trucks(state)["T3"] == ["LP1"]
    assert state.observation(1)["bag_count"] == bag - 1
    assert state.current_player == 2


def test_zm_03_all_available_trucks_full() -> None:
    state = new(3, THREE)
    play(
        state,
        "0: dl S1N1 T1",
        "1: dl S1N2 T1",
        "2: dl S5N1 T3",
        "0: dl S1N3 T1",
        "1: dl S2N1 T2",
        "2: tk T3 S5N1->E1",
        "0: dl S2N2 T2",
        "1: dl LR1 T2",
    )
    assert trucks(state) == {
        "T1": ["S1N1", "S1N2", "S1N3"],
        "T2": ["S2N1", "S2N2", "LR1"],
        "T3": [],
    }
    assert state.observation(None)["players"][2]["truck"] == "T3"
    assert state.current_player == 0
    assert legal(state) == ["take_truck T1", "take_truck T2"]
    digest = state.digest()
    with pytest.raises(IllegalActionError, match="no available truck has a free slot"):
        state.apply(GAME.action_from_json({"kind": "draw"}))
    assert state.digest() == digest


def test_zm_04_placement_legality() -> None:
    state = new(2, TWO)
    play(
        state,
        "0: dl S2N1 T3",
        "1: dl S2N2 T3",
        "0: dl LP1 T3",
        "1: dl S3N1 T1",
        "0: tk T3 S2N1->E1 S2N2->E1 LP1->E2",
        "1: tk T1 S3N1->E1",
        "1: dl S1N1 T2",
        "0: dl LR1 T2",
        "1: dl S3N2 T1",
    )
    assert zoo(state, 0) == {"E1": ["S2N1", "S2N2"], "E2": ["LP1"], "E3": [], "barn": []}
    play(state, "0: take_truck T2")
    assert legal(state) == [
        "place S1N1->E2",
        "place S1N1->E3",
        "place S1N1->barn",
        "place LR1->E1",
        "place LR1->E2",
        "place LR1->E3",
        "place LR1->barn",
    ]
    digest = state.digest()
    with pytest.raises(IllegalActionError, match="E1 already holds species S2"):
        play(state, "place S1N1->E1")
    assert state.digest() == digest
    play(state, "place S1N1->E2")
    assert zoo(state, 0)["E2"] == ["LP1", "S1N1"]
    assert state.observation(0)["players"][0]["enclosures"][1]["species"] == "S1"
    assert legal(state) == ["place LR1->E1", "place LR1->E2", "place LR1->E3", "place LR1->barn"]


def test_zm_05_birth_into_the_enclosure() -> None:
    state = new(2, TWO)
    play(
        state,
        "0: dl S2M1 T3",
        "1: dl S2N1 T3",
        "0: dl S2N2 T3",
        "1: dl S3N1 T1",
        "0: tk T3 S2M1->E2 S2N1->E2 S2N2->E2",
        "1: tk T1 S3N1->E1",
        "1: dl S2F1 T1",
    )
    assert zoo(state, 0)["E2"] == ["S2M1", "S2N1", "S2N2"]
    assert supply_of(state, "S2") == ["S2K1", "S2K2"]
    play(state, "0: take_truck T1", "place S2F1->E2")
    assert zoo(state, 0)["E2"] == ["S2M1", "S2N1", "S2N2", "S2F1", "S2K1"]
    assert state.observation(0)["players"][0]["enclosures"][1]["paired"] == ["S2M1", "S2F1"]
    assert supply_of(state, "S2") == ["S2K2"]
    # E2 is not full: no bonus, the turn passes on.
    assert state.observation(None)["phase"] == "turn" and state.current_player == 1


def zm_06_bonus_decision() -> ZoolorettoMiniState:
    """ZM-06's position at seat 0's bonus decision (after placing S3N5 into E3)."""
    state = build(
        3,
        ["S6", "S7"],
        zoos={
            0: {
                "E1": ["S1N1", "S1N2", "S1N3", "LS1", "LS2"],
                "E2": ["S2M1", "S2N1", "S2N2", "S2N3", "S2N4"],
                "E3": ["S3N1", "S3N2", "S3N3", "S3N4", "LP1"],
            },
            1: {"barn": ["S2F1", "S4N1"]},
        },
        trucks={"T1": ["S3N5"]},
        current=0,
    )
    play(state, "0: take_truck T1", "place S3N5->E3")
    return state


def run_zm_06() -> None:
    """ZM-06 / W4 (rulebook FAQ). The start position needs 15 tiles in seat 0's enclosures
    (five full-truck rounds) plus a crafted barn for seat 1, so it is built directly."""
    state = zm_06_bonus_decision()
    obs = state.observation(0)
    assert obs["phase"] == "bonus" and obs["bonus_pending"] == 1
    assert [a.to_json() for a in state.legal_actions()] == [
        {"kind": "bonus_take", "from": 1, "tile": "S2F1", "to": "E2"},
        {"kind": "bonus_skip"},
    ]
    play(state, "bonus_take 1:S2F1->E2")
    mine = zoo(state, 0)
    assert mine["E2"] == ["S2M1", "S2N1", "S2N2", "S2N3", "S2N4", "S2F1"]
    assert mine["barn"] == ["S2K1"]
    assert state.observation(0)["players"][0]["enclosures"][1]["paired"] == ["S2M1", "S2F1"]
    assert zoo(state, 1)["barn"] == ["S4N1"]
    # No further bonus: E2 filled by a bonus take does not chain.
    assert state.observation(None)["phase"] == "turn" and state.current_player == 1
    assert state.observation(None)["players"][0]["score"] == {
        "enclosure_1": 3,
        "enclosure_2": 12,
        "enclosure_3": 8,
        "landscapes": 4,
        "barn": -2,
        "total": 25,
        "landscape_tiles": 3,
    }


def test_zm_06_faq_bonus_take_offspring_to_barn_no_chaining() -> None:
    run_zm_06()


def test_zm_07_third_marked_animal_gives_no_birth() -> None:
    state = new(2, TWO)
    play(
        state,
        "0: dl S1M1 T3",
        "1: dl S1F1 T3",
        "0: dl LP1 T3",
        "1: dl S2N1 T1",
        "0: tk T3 S1M1->E1 S1F1->E1 LP1->E1",
        "1: tk T1 S2N1->E1",
        "1: dl S1M2 T1",
    )
    assert zoo(state, 0)["E1"] == ["S1M1", "S1F1", "S1K1", "LP1"]
    assert supply_of(state, "S1") == ["S1K2"]
    play(state, "0: take_truck T1", "place S1M2->E1")
    enc = state.observation(0)["players"][0]["enclosures"][0]
    assert enc["tiles"] == ["S1M1", "S1F1", "S1K1", "LP1", "S1M2"]
    assert enc["paired"] == ["S1M1", "S1F1"]
    assert supply_of(state, "S1") == ["S1K2"]


def test_zm_08_bonus_discard() -> None:
    state = new(2, {"removed_species": ["S4", "S6", "S7"], "start_player": 0})
    play(
        state,
        # round 1 (seat 0 starts)
        "0: dl S1N1 T3",
        "1: dl S1N2 T3",
        "0: dl S1N3 T3",
        "1: dl S2N1 T1",
        "0: tk T3 S1N1->E1 S1N2->E1 S1N3->E1",
        "1: tk T1 S2N1->E1",
        # round 2 (seat 1 took the last truck)
        "1: dl S1N4 T3",
        "0: dl S1N5 T3",
        "1: dl S5N1 T3",
        "0: tk T3 S1N4->E1 S1N5->E1 S5N1->barn",
        "1: dl S2N2 T1",
        "1: tk T1 S2N2->E1",
        # round 3
        "1: dl S5N2 T2",
        "0: dl LR2 T2",
        "1: dl S2N3 T1",
        "0: tk T2 S5N2->barn LR2->barn",
        "1: tk T1 S2N3->E1",
        # round 4
        "1: dl S1N6 T1",
    )
    assert zoo(state, 0) == {
        "E1": ["S1N1", "S1N2", "S1N3", "S1N4", "S1N5"],
        "E2": [],
        "E3": [],
        "barn": ["S5N1", "S5N2", "LR2"],
    }
    assert zoo(state, 1)["barn"] == []
    assert state.observation(None)["players"][0]["score"]["barn"] == -4
    play(state, "0: take_truck T1", "place S1N6->E1")
    assert legal(state) == [
        "bonus_discard S5N1",
        "bonus_discard S5N2",
        "bonus_discard LR2",
        "bonus_skip",
    ]
    play(state, "bonus_discard LR2")
    obs = state.observation(None)
    assert zoo(state, 0)["barn"] == ["S5N1", "S5N2"]
    assert "LR2" in obs["out_of_play"]
    assert obs["players"][0]["score"]["barn"] == -2


def test_zm_09_last_active_player_plays_alone_and_starts_next_round() -> None:
    state = new(3, THREE)
    play(
        state,
        "0: dl S2N1 T1",
        "1: dl S3N1 T3",
        "2: dl S1N1 T2",
        "0: dl S2N2 T1",
        "1: tk T1 S2N1->E1 S2N2->E1",
        "2: tk T3 S3N1->E1",
    )
    assert state.current_player == 0 and trucks(state)["T2"] == ["S1N1"]
    assert legal(state) == ["draw", "take_truck T2"]
    play(state, "0: draw", "draw_tile S1N2")
    assert legal(state) == ["load T2"]
    play(state, "load T2")
    assert state.current_player == 0
    play(state, "0: tk T2 S1N1->E1 S1N2->E1")
    obs = state.observation(None)
    assert (obs["round"], obs["round_start_player"], state.current_player) == (2, 0, 0)
    assert [(t["tiles"], t["taken_by"]) for t in obs["trucks"]] == [([], -1)] * 3
    assert all(p["active"] and p["truck"] == "" for p in obs["players"])
    assert legal(state) == ["draw"]


def test_zm_10_two_player_trucks_and_leftovers() -> None:
    state = new(2, TWO)
    obs = state.observation(None)
    assert [(t["id"], t["capacity"]) for t in obs["trucks"]] == [("T1", 1), ("T2", 2), ("T3", 3)]
    assert (obs["bag_count"], obs["end_count"], len(obs["offspring_supply"])) == (38, 15, 8)
    play(
        state,
        "0: dl S1N1 T1",
        "1: dl S2N1 T2",
        "0: dl S2N2 T2",
        "1: dl S3N1 T3",
        "0: dl S3N2 T3",
        "1: dl S3N3 T3",
    )
    assert trucks(state) == {"T1": ["S1N1"], "T2": ["S2N1", "S2N2"], "T3": ["S3N1", "S3N2", "S3N3"]}
    assert legal(state) == ["take_truck T1", "take_truck T2", "take_truck T3"]
    play(state, "0: tk T3 S3N1->E1 S3N2->E1 S3N3->E1")
    assert state.current_player == 1 and legal(state) == ["take_truck T1", "take_truck T2"]
    play(state, "1: tk T2 S2N1->E1 S2N2->E1")
    obs = state.observation(None)
    assert obs["out_of_play"] == ["S1N1"]
    assert trucks(state) == {"T1": [], "T2": [], "T3": []}
    assert (obs["round"], state.current_player) == (2, 1)


def _zm_11_policy_step(state: ZoolorettoMiniState) -> None:
    """Deterministic play: lowest-id tile drawn, draw whenever legal, first load, first
    truck, every tile into the barn, every bonus skipped."""
    if state.is_chance_node():
        state.apply(state.chance_outcomes()[0][0])
        return
    actions = state.legal_actions()
    barn = [a for a in actions if a.to_json().get("to") == "barn"]
    state.apply(barn[0] if barn else actions[0])


def test_zm_11_end_stack_trigger_and_game_end() -> None:
    # Reached through play: with this policy every round fills all 9 slots, so after five
    # rounds the bag holds 4 tiles and round 6 starts with seat 0; three draws later the
    # bag holds 1 tile and seat 0 is to move.
    state = new(3, {"removed_species": ["S6", "S7"], "start_player": 2})
    obs = state.observation(None)
    while not (obs["bag_count"] == 1 and obs["phase"] == "turn"):
        _zm_11_policy_step(state)
        obs = state.observation(None)
    assert (obs["bag_count"], obs["end_count"], obs["last_round"]) == (1, 15, False)
    assert state.current_player == 0 and obs["round"] == 6
    play(state, "0: draw", "draw_tile S5N7", "load T2")
    obs = state.observation(None)
    assert (obs["bag_count"], obs["end_count"], obs["last_round"]) == (0, 15, False)
    play(state, "1: draw", "draw_tile S5N6", "load T2")
    obs = state.observation(None)
    assert (obs["bag_count"], obs["end_count"], obs["last_round"]) == (0, 14, True)
    assert legal(state)[0] == "draw"  # players may still draw from the end stack
    play(state, "2: draw", "draw_tile S5N5", "load T2")
    assert state.observation(None)["end_count"] == 13
    takes = 0
    while not state.is_terminal():
        assert state.observation(None)["round"] == 6  # no round after this one
        takes += str(state.history[-1]).startswith("take_truck")
        _zm_11_policy_step(state)
    assert takes == 3 and str(state.history[-1]).startswith("place")
    assert state.current_player == TERMINAL
    assert len(state.result().scores) == 3


def test_zm_12_same_species_in_two_enclosures_barn_always_allowed() -> None:
    state = new(2, TWO)
    play(
        state,
        "0: dl S4N1 T3",
        "1: dl S4N2 T3",
        "0: dl S4N3 T3",
        "1: dl S1N1 T1",
        "0: tk T3 S4N1->E1 S4N2->E1 S4N3->E1",
        "1: tk T1 S1N1->E1",
        "1: dl S4N4 T3",
        "0: dl S4N5 T3",
        "1: dl S4N6 T3",
        "0: tk T3 S4N4->E1 S4N5->E1 S4N6->E1",
    )
    # E1 filled while placing: one bonus; nothing to take or discard, so skip alone (D14).
    assert legal(state) == ["bonus_skip"]
    play(
        state,
        "0: bonus_skip",
        "1: dl S1N2 T1",
        "1: tk T1 S1N2->E1",
        "1: dl S4N7 T2",
        "0: dl S2N1 T2",
        "1: dl S1N3 T1",
        "0: tk T2 S4N7->E2 S2N1->E3",
        "1: tk T1 S1N3->E1",
        "1: dl S4M1 T1",
        "0: take_truck T1",
    )
    assert zoo(state, 0) == {
        "E1": ["S4N1", "S4N2", "S4N3", "S4N4", "S4N5", "S4N6"],
        "E2": ["S4N7"],
        "E3": ["S2N1"],
        "barn": [],
    }
    assert legal(state) == ["place S4M1->E2", "place S4M1->barn"]


W1_ZOO = {
    "E1": ["S1N1", "S1N2", "S1N3", "S1N4", "LS1", "LS2"],
    "E2": ["S2M1", "S2F1", "S2K1", "S2N1", "S2N2", "S2N3"],
    "E3": ["S3N1", "S3N2", "S3N3", "S3N4", "S3N5", "LP1"],
    "barn": ["S4N1", "LR1"],
}
W1_SCORE = {
    "enclosure_1": 4,
    "enclosure_2": 12,
    "enclosure_3": 8,
    "landscapes": 4,
    "barn": -4,
    "total": 24,
    "landscape_tiles": 3,
}


def test_zm_13_rulebook_scoring_example() -> None:
    # A final state is built directly (scoring only); the result is read through the API.
    state = build(3, ["S6", "S7"], zoos={0: W1_ZOO}, paired=["S2M1", "S2F1"], over=True)
    assert state.is_terminal()
    result = state.result()
    assert result.breakdown[0] == W1_SCORE
    assert result.scores[0] == 24


def test_zm_14_tie_break_by_landscape_tiles() -> None:
    # Final state built directly (a scoring-only position).
    state = build(
        3,
        ["S6", "S7"],
        zoos={
            0: {
                "E1": ["S1N1", "S1N2", "S1N3", "S1N4", "S1N5", "S1N6"],
                "E2": ["S2N1", "S2N2", "S2N3", "S2N4", "S2N5", "S2N6"],
                "E3": ["S3N1", "S3N2", "LP1", "LS1"],
            },
            1: {
                "E1": ["S4N1", "S4N2", "S4N3", "S4N4", "S4N5", "S4N6"],
                "E2": ["S5N1", "S5N2", "S5N3", "S5N4", "S5N5", "S5N6"],
                "E3": ["S3N3", "S3N4", "LP2", "LS2", "LR1", "LR2"],
                "barn": ["S1N7"],
            },
            2: {
                "E1": ["S3N5", "S3N6", "S3N7", "S3M1", "S3M2", "S3F1"],
                "E2": ["S4N7", "S4M1", "S4M2"],
                "E3": ["S5N7", "S5M1", "S5M2"],
            },
        },
        over=True,
    )
    result = state.result()
    assert result.scores == [30, 30, 18]
    assert [b["landscape_tiles"] for b in result.breakdown] == [2, 4, 0]
    assert result.ranks == [2, 1, 3]


def test_zm_15_barn_penalty_counts_kinds_offspring_as_species() -> None:
    # Not reachable in play (an offspring reaches the barn only when its enclosure is
    # full): scoring on a constructed final position, as the spec says.
    barn = ["S2K1", "S2N5", "S6N1", "LP2", "LP3"]
    assert score_zoo([[], [], []], barn) == {
        "enclosure_1": 0,
        "enclosure_2": 0,
        "enclosure_3": 0,
        "landscapes": 0,
        "barn": -6,
        "total": -6,
        "landscape_tiles": 0,
    }
    state = build(3, ["S5", "S7"], zoos={0: {"barn": barn}}, over=True)
    assert state.result().breakdown[0]["barn"] == -6
    assert state.result().scores[0] == -6


# ---------------------------------------------------------------------------
# Worked examples
# ---------------------------------------------------------------------------


def test_w1_rulebook_scoring_example() -> None:
    encs = [W1_ZOO["E1"], W1_ZOO["E2"], W1_ZOO["E3"]]
    assert score_zoo(encs, W1_ZOO["barn"]) == W1_SCORE


def test_w2_landscape_kinds() -> None:
    score = score_zoo([["LR1", "LP1"], ["LR2", "LS1"], []], [])
    assert score["landscapes"] == 6
    assert score["landscape_tiles"] == 4 and score["total"] == 6


def test_w3_barn_penalty_per_species() -> None:
    assert score_zoo([[], [], []], ["S3N6", "S3N7", "S3M1"])["barn"] == -2


def test_w4_faq_sequence() -> None:
    run_zm_06()


# ---------------------------------------------------------------------------
# More rules: setup chance, bonuses, D6
# ---------------------------------------------------------------------------


def test_setup_chance_events_and_removed_species() -> None:
    state = new(2, {})
    for i, species in enumerate(["S6", "S2", "S4"]):
        assert state.current_player == CHANCE
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 7 - i and all(p == pytest.approx(1 / (7 - i)) for _, p in outcomes)
        play(state, f"remove_species {species}")
    assert [str(o) for o, _ in state.chance_outcomes()] == ["start_player 0", "start_player 1"]
    play(state, "start_player 1")
    obs = state.observation(None)
    assert obs["removed_species"] == ["S2", "S4", "S6"]
    assert (obs["bag_count"], obs["end_count"], state.current_player) == (38, 15, 1)
    assert new(5, {}).chance_outcomes()[0][0].to_json() == {"kind": "start_player", "seat": 0}


def test_offspring_filling_an_enclosure_earns_a_bonus_and_two_bonuses() -> None:
    # Built directly (seat 0 needs 9 enclosure tiles first).
    state = build(
        3,
        ["S6", "S7"],
        zoos={
            0: {
                "E1": ["S1M1", "S1N1", "S1N2", "S1N3"],
                "E2": ["S2N1", "S2N2", "S2N3", "S2N4", "S2N5"],
            },
            1: {"barn": ["LP1"]},
            2: {"barn": ["S3N1"]},
        },
        trucks={"T2": ["S1F1", "S2N6"]},
    )
    play(state, "0: take_truck T2", "place S1F1->E1")
    assert zoo(state, 0)["E1"] == ["S1M1", "S1N1", "S1N2", "S1N3", "S1F1", "S1K1"]
    play(state, "place S2N6->E2")
    assert state.observation(0)["bonus_pending"] == 2
    assert legal(state) == ["bonus_take 1:LP1->E3", "bonus_take 2:S3N1->E3", "bonus_skip"]
    play(state, "bonus_take 2:S3N1->E3")
    # The second bonus sees the state left by the first: E3 now holds llamas.
    assert legal(state) == ["bonus_take 1:LP1->E3", "bonus_skip"]
    play(state, "bonus_take 1:LP1->E3")
    assert zoo(state, 0)["E3"] == ["S3N1", "LP1"]
    assert state.current_player == 1 and state.observation(0)["phase"] == "turn"


def test_draw_illegal_when_bag_and_end_stack_empty() -> None:
    # D6: unreachable in play; built directly with all tiles out of the bag and end stack.
    state = build(2, ["S5", "S6", "S7"], trucks={"T3": ["S1N1"]})
    state.bag_count = state.end_count = 0
    state._fields_changed()
    assert legal(state) == ["take_truck T3"]


# ---------------------------------------------------------------------------
# Hidden information, determinization, contract details
# ---------------------------------------------------------------------------


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_hidden_information_and_resample(num_players: int) -> None:
    rng = random.Random(num_players)
    state = new(num_players, {})
    step = 0
    while not state.is_terminal():
        if step % 7 == 0:
            obs = state.observation(None)
            # Same view for every seat and the spectator (but the header's ``you``); no
            # undrawn tile ever appears.
            assert all(state.observation(s) == {**obs, "you": s} for s in range(num_players))
            assert not _strings(obs) & set(state.undrawn)
            assert "undrawn" not in json.dumps(obs)
            # A state differing only in the engine's (unmodelled) draw order representation.
            other = state.clone()
            assert isinstance(other, ZoolorettoMiniState)
            other.undrawn.reverse()
            assert other.observation(None) == obs
            # resample keeps the observation (and, with nothing hidden, the digest) and is
            # independent and consistent: play can continue from it.
            seat = step % num_players
            sample = state.resample(seat, random.Random(step))
            assert sample.observation(seat) == state.observation(seat)
            assert sample.digest() == state.digest()
            digest = state.digest()
            while not sample.is_terminal():
                if sample.is_chance_node():
                    sample.apply(sample_outcome(sample.chance_outcomes(), rng))
                else:
                    sample.apply(rng.choice(sample.legal_actions()))
            assert state.digest() == digest
        if state.is_chance_node():
            state.apply(sample_outcome(state.chance_outcomes(), rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
        step += 1
    assert len(state.history) <= GAME.step_bound(num_players, {})


def test_action_json_and_str_forms() -> None:
    cases = {
        "draw": {"kind": "draw"},
        "take_truck T2": {"kind": "take_truck", "truck": "T2"},
        "load T3": {"kind": "load", "truck": "T3"},
        "place S1N1->E2": {"kind": "place", "tile": "S1N1", "to": "E2"},
        "place LR1->barn": {"kind": "place", "tile": "LR1", "to": "barn"},
        "bonus_take 1:S2F1->E2": {"kind": "bonus_take", "from": 1, "tile": "S2F1", "to": "E2"},
        "bonus_discard LR2": {"kind": "bonus_discard", "tile": "LR2"},
        "bonus_skip": {"kind": "bonus_skip"},
        "draw_tile S1N3": {"kind": "draw_tile", "tile": "S1N3"},
        "remove_species S4": {"kind": "remove_species", "species": "S4"},
        "start_player 0": {"kind": "start_player", "seat": 0},
    }
    for text, data in cases.items():
        action = GAME.action_from_json(data)
        assert str(action) == text
        assert action.to_json() == data


def test_render_and_observation_shape() -> None:
    state = new(3, THREE)
    play(state, "0: dl S1M1 T1", "1: dl S1F1 T1", "2: tk T1 S1M1->E1 S1F1->E1")
    text = state.render(0)
    assert "T1 [. . .] taken by seat 2" in text and "S1M1* S1F1* S1K1" in text
    assert "to move: seat 0 (turn)" in text
    obs = state.observation(None)
    json.dumps(obs)
    assert obs["you"] is None and state.observation(1)["you"] == 1
    assert set(obs) == {
        "you",
        "current_player",
        "phase",
        "round",
        "round_start_player",
        "last_round",
        "bag_count",
        "end_count",
        "removed_species",
        "offspring_supply",
        "out_of_play",
        "drawn_tile",
        "bonus_pending",
        "trucks",
        "players",
        "scores",
    }


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("num_players", "options", "message"),
    [
        (3, {"colour": "red"}, "no option 'colour'"),
        (3, {"start_player": 3}, "seat 0..2"),
        (3, {"start_player": "0"}, "integer"),
        (3, {"start_player": True}, "integer"),
        (3, {"removed_species": ["S1"]}, "exactly 2 species"),
        (3, {"removed_species": ["S1", "S8"]}, "unknown species"),
        (3, {"removed_species": ["S1", "S1"]}, "distinct"),
        (3, {"removed_species": "S1,S2"}, "list"),
        (1, {}, "2-5 players"),
        (6, {}, "2-5 players"),
        ("3", {}, "2-5 players"),
    ],
)
def test_bad_config(num_players: int, options: dict, message: str) -> None:
    with pytest.raises(GameConfigError, match=message):
        GAME.new_game(num_players, options)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "fly"}, "unknown action kind"),
        ({"kind": "load"}, "missing field 'truck'"),
        ({"kind": "bonus_take", "from": "1", "tile": "S2F1", "to": "E2"}, "integer"),
        ({"kind": "load", "truck": "T9"}, "must be one of"),
        ({"kind": "place", "tile": "S1N1", "to": "E4"}, "must be one of"),
        ({"kind": "draw", "x": 1}, "unknown field"),
        ("draw", "JSON object"),
    ],
)
def test_bad_action_json(data: object, message: str) -> None:
    with pytest.raises(IllegalActionError, match=message):
        GAME.action_from_json(data)


def test_actions_not_legal_now_leave_the_state_unchanged() -> None:
    state = new(2, TWO)
    cases = [
        ({"kind": "take_truck", "truck": "T1"}, "T1 is empty"),
        ({"kind": "take_truck", "truck": "T4"}, "no T4 with 2 players"),
        ({"kind": "load", "truck": "T1"}, "must choose an action of kind draw"),
    ]
    for data, message in cases:
        digest = state.digest()
        with pytest.raises(IllegalActionError, match=message):
            state.apply_json(data)
        assert state.digest() == digest and state.history == []
    play(state, "draw")
    with pytest.raises(IllegalActionError, match="chance outcome of kind draw_tile"):
        state.apply_json({"kind": "load", "truck": "T1"})
    with pytest.raises(IllegalActionError, match="S7N1 is not a possible chance outcome"):
        state.apply_json({"kind": "draw_tile", "tile": "S7N1"})
    play(state, "draw_tile S1N1", "load T1", "1: dl S1N2 T2", "0: take_truck T1")
    digest = state.digest()
    with pytest.raises(IllegalActionError, match="S1N2 is not on seat 0's truck"):
        state.apply_json({"kind": "place", "tile": "S1N2", "to": "E1"})
    assert state.digest() == digest


# ---------------------------------------------------------------------------
# Rebuilding a state from an observation (Game.from_observation, rebuild.py)
# ---------------------------------------------------------------------------


def rebuilt(
    state: ZoolorettoMiniState, seed: int = 0, options: dict | None = None
) -> ZoolorettoMiniState:
    """``from_observation`` of the seat to move, fed the observation as plain JSON."""
    seat = state.current_player
    obs = json.loads(json.dumps(state.observation(seat)))
    opts = state.options if options is None else options
    out = GAME.from_observation(state.num_players, opts, seat, obs, random.Random(seed))
    assert isinstance(out, ZoolorettoMiniState)
    return out


def components(state: ZoolorettoMiniState) -> list[str]:
    """Every tile of the state wherever it is (undrawn included), sorted, duplicates kept."""
    tiles = [*state.undrawn, *state.offspring_supply, *state.out_of_play]
    tiles += [t for truck in state.trucks for t in truck] + [t for e in state.enclosures for t in e]
    tiles += [t for b in state.barns for t in b] + ([state.drawn_tile] if state.drawn_tile else [])
    return sorted(tiles)


def same_but_last_taker(a: ZoolorettoMiniState, b: ZoolorettoMiniState) -> None:
    full_a, full_b = a._full_state(), b._full_state()
    assert isinstance(full_a, dict) and isinstance(full_b, dict)
    full_a.pop("last_taker")
    full_b.pop("last_taker")
    assert full_a == full_b


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_from_observation_rebuilds_the_one_consistent_state(num_players: int) -> None:
    # Nothing is hidden beyond the unmodelled draw order, so every seed gives the same state:
    # the true one, up to who took the most recent truck (which no rule reads before a later
    # take overwrites it). The unseen tiles are re-derived and the components conserved.
    rng = random.Random(f"rebuild:{num_players}")
    state = new(num_players, {})
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        decisions += 1
        if decisions % 3 == 0:
            one, two = rebuilt(state, 1), rebuilt(state, 2)
            assert one.digest() == two.digest()
            same_but_last_taker(one, state)
            if state.phase in (PLACE, BONUS):
                assert one.digest() == state.digest()
            assert one.undrawn == state.undrawn
            pool = tile_pool(state.removed_species) + offspring_pool(state.removed_species)
            assert components(one) == sorted(pool)
            if one.legal_actions()[0] == Draw():
                # The next draw is uniform over exactly the unseen tiles, as in the true game.
                one.apply(Draw())
                state_draw = state.clone()
                state_draw.apply(Draw())
                assert one.chance_outcomes() == state_draw.chance_outcomes()
        state.apply(rng.choice(state.legal_actions()))


def test_from_observation_at_a_bonus_decision() -> None:
    # ZM-06's bonus decision: the rebuilt state offers the take and resolves it (birth into
    # the barn because E2 is full, no chained bonus) exactly as the real one does.
    state = zm_06_bonus_decision()
    copy = rebuilt(state)
    assert copy.digest() == state.digest()
    assert legal(copy) == ["bonus_take 1:S2F1->E2", "bonus_skip"]
    for s in (state, copy):
        play(s, "bonus_take 1:S2F1->E2")
    assert copy.digest() == state.digest() and zoo(copy, 0)["barn"] == ["S2K1"]


def test_from_observation_mid_placement_and_in_the_last_round() -> None:
    # 2 players, chance-chosen setup (no options): the rebuild takes the removed species and
    # the start player from the observation. Seat 0 places a truck halfway, with a bonus
    # already earned, and the end stack is already open.
    state = build(
        2,
        ["S5", "S6", "S7"],
        zoos={0: {"E1": ["S1N1", "S1N2", "S1N3", "S1N4", "S1N5"]}, 1: {"barn": ["LR1"]}},
        trucks={"T3": ["S1N6", "S2N1", "LP1"], "T1": ["S3N1"]},
    )
    state.bag_count, state.end_count, state.last_round = 0, 12, True
    state.undrawn = state.undrawn[:12]
    state.out_of_play = [t for t in tile_pool(["S5", "S6", "S7"]) if t not in components(state)]
    play(state, "0: take_truck T3", "place S1N6->E1")
    assert state.observation(0)["phase"] == "place" and state.bonus_pending == 1
    copy = rebuilt(state, options={})
    assert copy.digest() == state.digest()
    assert legal(copy) == legal(state)
    for s in (state, copy):
        play(s, "place S2N1->E2", "place LP1->E2")
        assert s.observation(0)["phase"] == "bonus"
        play(s, "bonus_take 1:LR1->E2")
        assert s.observation(1)["phase"] == "turn" and s.current_player == 1
    assert copy.digest() == state.digest()
    for s in (state, copy):
        play(s, "take_truck T1", "place S3N1->E1")
    assert copy.is_terminal() and copy.result() == state.result()


def _observation() -> dict:
    """A plain-JSON observation of seat 1 in a 3-player round 1 with a few tiles out."""
    state = new(3, THREE)
    play(state, "0: dl S1M1 T1", "1: dl LP1 T2", "2: tk T1 S1M1->E1", "0: dl S2N1 T2")
    assert state.current_player == 1
    return json.loads(json.dumps(state.observation(1)))


def _edit(obs: dict, path: str, value: object) -> None:
    """Set the field at a dotted path (list indices as numbers) to ``value``."""
    *head, last = path.split(".")
    node: object = obs
    for key in head:
        node = node[int(key)] if isinstance(node, list) else node[key]  # type: ignore[index]  # a JSON object here
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value  # type: ignore[index]  # a JSON object here


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("current_player", 2, "not one of seat 1's turns"),
        ("phase", "game_over", "phase must be turn, load, place or bonus"),
        ("bag_count", "49", "bag_count must be an integer"),
        ("bag_count", 40, "tiles of the pool are unseen, but bag_count"),
        ("end_count", 14, "end stack is opened only once the bag is empty"),
        ("last_round", True, "last_round must be true exactly when"),
        ("removed_species", ["S5", "S7"], "differs from the option"),
        ("trucks.1.tiles", ["LP1", "S1M1"], "S1M1 appears twice"),
        ("trucks.1.tiles", ["LP1", "S7N1"], "'S7N1', which is not a tile in play"),
        ("trucks.1.tiles", ["LP1", "S2N1", "S3K1"], "truck T2 cannot hold S3K1"),
        ("trucks.1.tiles", ["LP1"], "tiles of the pool are unseen"),
        ("trucks.0.taken_by", -1, "seat 2 took T1, but that truck is not taken by it"),
        ("players.0.barn", ["S1K2"], "S1K2 appears twice: in offspring_supply and in seat 0"),
        (
            "offspring_supply",
            [f"S{s}K{i}" for s in range(1, 6) for i in (1, 2)][1:],
            r"offspring tiles \['S1K1'\] are nowhere",
        ),
        ("offspring_supply", ["S1K2", "S1K1"], "offspring_supply must be sorted"),
        ("players.1.enclosures.1.tiles", ["S3N1"] * 7, "holds 7 tiles, more than 6"),
        ("players.2.enclosures.0.tiles", ["S1M1", "S2N2"], "more than one species"),
        ("players.2.enclosures.0.paired", ["S1M1"], "do not match males with females"),
        ("players.2.enclosures.0.species", "S2", r"players\[2\]\.enclosures\[0\]\.species"),
        (
            "players.2.score.total",
            5,
            r"players\[2\]\.score\.total is 5, but the rest of the observation implies 1",
        ),
        ("drawn_tile", "S3N1", "drawn_tile is set exactly in the load phase"),
        ("offspring_supply", "S1K1", "offspring_supply must be a list"),
    ],
)
def test_from_observation_rejects_malformed_observations(
    path: str, value: object, message: str
) -> None:
    obs = _observation()
    assert GAME.from_observation(3, THREE, 1, obs, random.Random(0)).current_player == 1
    _edit(obs, path, value)
    with pytest.raises(ValueError, match=message):
        GAME.from_observation(3, THREE, 1, obs, random.Random(0))


def test_from_observation_rejects_missing_and_unknown_fields() -> None:
    obs = _observation()
    del obs["trucks"]
    with pytest.raises(ValueError, match="has no field 'trucks'"):
        GAME.from_observation(3, THREE, 1, obs, random.Random(0))
    obs = _observation()
    obs["colour"] = "red"
    with pytest.raises(ValueError, match="inconsistent observation: unknown field colour"):
        GAME.from_observation(3, THREE, 1, obs, random.Random(0))
    with pytest.raises(ValueError, match="not one of seat 0's turns"):
        GAME.from_observation(3, THREE, 0, _observation(), random.Random(0))
