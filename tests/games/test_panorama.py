"""Panorama: the spec's conformance scenarios C01-C16, worked examples, hidden info, bad input.

Everything is driven through the public API (``new_game``, ``apply`` with exact chance
outcomes and actions, ``observation``, ``result``). Two small helpers build positions that
play cannot reach in a reasonable number of steps; each says so in its docstring.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine.core import (
    CHANCE,
    GameConfigError,
    IllegalActionError,
    State,
)
from engine.panorama import GAME, PanoramaState
from engine.panorama.actions import BalloonDrop, Fly, Reveal
from engine.panorama.data import (
    FLY_PHASE,
    FOREST,
    HILLS,
    ITEM_ROWS,
    MOUNTAINS,
    NUM_TILES,
    PLACE_PHASE,
    PLAINS,
    RIVER,
    TERRAIN_ROWS,
    TILE_IDS,
    TILE_INDEX,
)
from engine.panorama.scoring import analyse, areas
from tests.games.kit import (
    Edit,
    act,
    apply_all,
    full_state,
    legal_json,
    obs_json,
    player_obs,
    rebuild_fails,
    rebuilt,
    rejects,
    rejects_observation,
    same_view_for_every_seat,
    wire,
)
from tests.games.panorama_helpers import KIT, build_position, finished, setup

RED, YELLOW, GREEN, BLUE = range(4)


def c01_state() -> PanoramaState:
    tops = ["T15", "T10", "T02", "T29", "T13", "T26", "T34"]
    return setup(3, tops, [GREEN, RED, YELLOW])


def legal_fly(state: State) -> list[int]:
    return [a.space for a in state.legal_actions() if isinstance(a, Fly)]


def pan(state: State, seat: int) -> tuple[str, int]:
    p = player_obs(state, seat)
    return " ".join(p["panorama"]), p["start_index"]


# ---------------------------------------------------------------------------
# Component data
# ---------------------------------------------------------------------------


def test_tile_data_matches_spec_counts() -> None:
    animals = Counter[str]()
    flowers = Counter[str]()
    items = Counter[str]()
    exits = Counter[str]()
    for t in range(NUM_TILES):
        for trow, irow in zip(TERRAIN_ROWS[t], ITEM_ROWS[t], strict=True):
            for ter, it in zip(trow, irow, strict=True):
                if it == "a":
                    animals[ter] += 1
                elif it in "12":
                    flowers[ter] += int(it)
                elif it != ".":
                    items[it] += 1
                if it == "o":
                    assert ter == "S"
                if it == "w":
                    assert ter == "W"
        left = any(row[0] == "W" for row in TERRAIN_ROWS[t])
        right = any(row[2] == "W" for row in TERRAIN_ROWS[t])
        exits[{(1, 1): "both", (1, 0): "left", (0, 1): "right", (0, 0): "none"}[left, right]] += 1
    assert animals == {"M": 10, "F": 10, "H": 10, "P": 10}
    assert flowers == {"M": 18, "F": 18, "H": 18, "P": 18}
    assert items == {"o": 30, "c": 12, "w": 8}
    assert exits == {"both": 11, "left": 4, "right": 4, "none": 17}


# ---------------------------------------------------------------------------
# Conformance scenarios
# ---------------------------------------------------------------------------


def test_c01_setup_three_players() -> None:
    state = GAME.new_game(3)
    assert state.current_player == CHANCE
    outcomes = state.chance_outcomes()
    assert outcomes[0][0].to_json() == {"kind": "reveal", "space": 0, "tile": "T01"}
    assert len(outcomes) == 36 and all(p == pytest.approx(1 / 36) for _, p in outcomes)
    tops = ["T15", "T10", "T02", "T29", "T13", "T26", "T34"]
    for space, tile in enumerate(tops):
        outs = state.chance_outcomes()
        assert len(outs) == 36 - space
        assert {o.to_json()["space"] for o, _ in outs} == {space}
        act(state, kind="reveal", space=space, tile=tile)
    sizes = []
    for space, seat in enumerate([GREEN, RED, YELLOW]):
        outs = state.chance_outcomes()
        sizes.append(len(outs))
        assert all(isinstance(o, BalloonDrop) and o.space == space for o, _ in outs)
        act(state, kind="balloon_drop", space=space, seat=seat)
    assert sizes == [3, 2, 1]
    obs = state.observation(None)
    assert obs["token_space"] == 0 and obs["token_face"] == "sun"
    assert state.current_player == GREEN
    assert legal_fly(state) == [3, 4, 5, 6]


def test_c02_first_turn() -> None:
    state = c01_state()
    act(state, kind="fly", space=5)
    assert state.current_player == CHANCE
    obs = state.observation(None)
    assert obs["held_tile"] == "T26" and obs["spaces"][5]["count"] == 3
    assert obs["spaces"][5]["top"] == "" and obs["pending_space"] == 5
    outs = state.chance_outcomes()
    assert len(outs) == 29 and all(o.to_json()["space"] == 5 for o, _ in outs)
    act(state, kind="reveal", space=5, tile="T07")
    assert state.observation(None)["spaces"][5]["top"] == "T07"
    assert state.current_player == GREEN
    act(state, kind="place", end="right")
    assert pan(state, GREEN) == ("ST_G T26", 0)
    assert state.current_player == RED
    assert state.observation(None)["token_space"] == 1


def c02_state() -> PanoramaState:
    state = c01_state()
    act(state, kind="fly", space=5)
    act(state, kind="reveal", space=5, tile="T07")
    act(state, kind="place", end="right")
    return state


def test_c03_passing_another_balloon() -> None:
    state = c02_state()
    act(state, kind="fly", space=4)
    assert state.observation(None)["held_tile"] == "T13"
    act(state, kind="reveal", space=4, tile="T32")
    act(state, kind="place", end="left")
    assert pan(state, RED) == ("T13 ST_R", 1)
    assert state.current_player == YELLOW
    assert state.observation(None)["token_space"] == 2


def c04_state() -> PanoramaState:
    state = c02_state()
    act(state, kind="fly", space=4)
    act(state, kind="reveal", space=4, tile="T32")
    act(state, kind="place", end="left")
    act(state, kind="fly", space=3)
    act(state, kind="reveal", space=3, tile="T11")
    act(state, kind="place", end="right")
    return state


def test_c04_same_player_again() -> None:
    state = c04_state()
    assert pan(state, YELLOW) == ("ST_Y T29", 0)
    assert state.current_player == YELLOW
    assert state.observation(None)["token_space"] == 3
    assert legal_fly(state) == [0, 1, 2, 6]


def test_c05_illegal_actions() -> None:
    state = c04_state()
    cases: dict[str, tuple[dict[str, object], str]] = {
        "fly 4": ({"kind": "fly", "space": 4}, "red's standing balloon"),
        "fly 3": ({"kind": "fly", "space": 3}, "own current space"),
        "fly 7": ({"kind": "fly", "space": 7}, "no space 7"),
        "place first": ({"kind": "place", "end": "left"}, "must fly"),
    }
    for data, msg in cases.values():
        rejects(state, data, msg)
    act(state, kind="fly", space=0)
    act(state, kind="reveal", space=0, tile="T12")
    rejects(state, {"kind": "fly", "space": 1}, "already flown")
    rejects(state, {"kind": "place", "end": "middle"}, "'left', 'right', got 'middle'")


def test_c06_end_trigger_two_players() -> None:
    stacks = [["T01", "T02"], ["T03"], ["T04"], ["T05", "T06"], ["T07", "T08", "T09"]]
    state = build_position(2, stacks, [0, 3], RED)
    assert legal_fly(state) == [1, 2, 4]
    act(state, kind="fly", space=2)
    assert state.current_player == RED  # stack emptied: no reveal node
    act(state, kind="place", end="right")
    obs = state.observation(None)
    assert obs["players"][RED]["balloon"] == "deflated"
    assert obs["players"][RED]["balloon_space"] == 2
    assert obs["token_face"] == "moon" and obs["token_space"] == 3
    assert state.current_player == YELLOW
    assert legal_fly(state) == [0, 1, 4]
    act(state, kind="fly", space=1)
    act(state, kind="place", end="left")
    assert state.is_terminal()
    assert pan(state, RED) == ("ST_R T04", 0) and pan(state, YELLOW) == ("T03 ST_Y", 1)


def test_c07_final_turns_deflated_balloons_block() -> None:
    stacks = [["T01", "T02"], ["T03"], ["T04", "T05"], ["T06"]]
    stacks += [["T07", "T08", "T09"], ["T10", "T11"], ["T12", "T13"]]
    state = build_position(3, stacks, [6, 0, 2], RED)
    assert legal_fly(state) == [1, 3, 4, 5]
    act(state, kind="fly", space=3)
    act(state, kind="place", end="right")
    assert state.observation(None)["token_face"] == "moon"
    assert state.current_player == YELLOW
    assert legal_fly(state) == [1, 4, 5, 6]
    act(state, kind="fly", space=4)
    act(state, kind="reveal", space=4, tile="T08")
    act(state, kind="place", end="right")
    obs = state.observation(None)
    assert obs["spaces"][4]["count"] == 2 and obs["players"][YELLOW]["balloon"] == "deflated"
    assert state.current_player == GREEN
    assert legal_fly(state) == [0, 1, 5, 6]
    act(state, kind="fly", space=1)
    act(state, kind="place", end="left")
    assert state.is_terminal()
    assert [len(p["panorama"]) for p in state.observation(None)["players"]] == [2, 2, 2]


def test_c08_we1_forest_zones() -> None:
    tiles = tuple(TILE_INDEX[t] for t in ["T15", "T20", "ST_Y"])
    forest = sorted((a.size, a.animals, a.flowers) for a in areas(tiles) if a.terrain == FOREST)
    assert forest == [(5, 1, 0), (7, 2, 1)]
    bd = finished(["T15 T20 ST_Y", "ST_R"], [2, 0], ["S1", "R1", "T1"]).result().breakdown[0]
    assert (bd["plains"], bd["hills"], bd["forest"], bd["mountains"]) == (0, 0, 2, 0)


def test_c09_we2_mountain_zones() -> None:
    tiles = tuple(TILE_INDEX[t] for t in ["T05", "ST_Y", "T27", "T09", "T03", "T12"])
    zones = areas(tiles)
    mountains = sorted((a.size, a.animals, a.flowers) for a in zones if a.terrain == MOUNTAINS)
    assert mountains == [(6, 1, 2), (15, 2, 4)]
    plains = sorted((a.size, a.animals, a.flowers) for a in zones if a.terrain == PLAINS)
    assert plains == [(3, 2, 0), (30, 0, 0)]
    hills = sorted((a.size, a.animals, a.flowers) for a in zones if a.terrain == HILLS)
    assert hills == [(1, 0, 0), (15, 1, 1)]
    assert [(a.size, a.animals, a.flowers) for a in zones if a.terrain == FOREST] == [(21, 0, 4)]
    a = analyse(tiles, 1)
    assert (a.points[PLAINS], a.points[HILLS], a.points[FOREST], a.points[MOUNTAINS]) == (
        0,
        1,
        0,
        10,
    )
    assert (a.metrics["S1"], a.metrics["R1"], a.metrics["T1"]) == (3, 1, 1)
    assert sorted(z.size for z in zones if z.terrain == 0) == [2, 8, 20]


WE3 = (
    ["ST_R T11 T07 T24 T25", "T05 ST_Y T27 T09 T03 T12", "T16 ST_G T23 T34 T08"],
    [0, 1, 1],
)


def test_c10_we3_goal_tie_fewest_clouds() -> None:
    state = finished(*WE3, ["S1", "R1", "T1"])
    tiles = [tuple(TILE_INDEX[t] for t in p.split()) for p in WE3[0]]
    assert [analyse(t, s).metrics["S1"] for t, s in zip(tiles, WE3[1], strict=True)] == [6, 3, 3]
    assert [b["goal_sky"] for b in state.result().breakdown] == [0, 10, 10]
    # Green's rivers: T16 alone, T23 alone (1 waterfall), T34 + T08 (2 tiles, 2 waterfalls)
    rivers = sorted((len(a.tiles), a.waterfalls) for a in areas(tiles[2]) if a.terrain == RIVER)
    assert rivers == [(1, 0), (1, 1), (2, 2)]


def test_c11_we3_final_scoring() -> None:
    res = finished(*WE3, ["S1", "R1", "T1"]).result()
    expected = [
        {"plains": 2, "hills": 0, "forest": 15, "mountains": 0},
        {"plains": 0, "hills": 1, "forest": 0, "mountains": 10},
        {"plains": 2, "hills": 0, "forest": 0, "mountains": 0},
    ]
    goals = [(0, 0, 10), (10, 0, 10), (10, 10, 0)]
    for b, exp, g in zip(res.breakdown, expected, goals, strict=True):
        assert {k: b[k] for k in exp} == exp
        assert (b["goal_sky"], b["goal_river"], b["goal_terrain"]) == g
        assert list(b) == [*exp, "goal_sky", "goal_river", "goal_terrain", "total"]
    assert res.scores == [27, 31, 22]
    assert res.ranks == [2, 1, 3]


def test_c12_best_value_zero() -> None:
    state = finished(WE3[0][:2], WE3[1][:2], ["S2", "R4", "T3"])
    tiles = [tuple(TILE_INDEX[t] for t in p.split()) for p in WE3[0][:2]]
    metrics = [analyse(t, s).metrics for t, s in zip(tiles, WE3[1], strict=False)]
    assert [m["S2"] for m in metrics] == [6, 3]
    assert [m["R4"] for m in metrics] == [0, 0]
    assert [m["T3"] for m in metrics] == [2, 4]
    res = state.result()
    assert [(b["goal_sky"], b["goal_river"], b["goal_terrain"]) for b in res.breakdown] == [
        (10, 10, 0),
        (0, 10, 10),
    ]
    assert res.scores == [37, 31]


def test_c13_shared_win() -> None:
    pans = ["T08 T13 ST_R T20 T02 T27 T10", "T23 T35 T21 T25 T18 T03 T11 ST_Y"]
    res = finished(pans, [2, 7], ["S1", "R1", "T1"]).result()
    red, yellow = res.breakdown
    assert (red["plains"], red["hills"], red["forest"], red["mountains"]) == (2, 0, 3, 0)
    assert (yellow["plains"], yellow["hills"], yellow["forest"], yellow["mountains"]) == (
        6,
        7,
        0,
        2,
    )
    tiles = [tuple(TILE_INDEX[t] for t in p.split()) for p in pans]
    m = [analyse(t, s).metrics for t, s in zip(tiles, [2, 7], strict=True)]
    assert [(x["S1"], x["R1"], x["T1"]) for x in m] == [(5, 1, 3), (12, 3, 0)]
    assert (red["goal_sky"], red["goal_river"], red["goal_terrain"]) == (10, 0, 10)
    assert (yellow["goal_sky"], yellow["goal_river"], yellow["goal_terrain"]) == (0, 10, 0)
    assert res.scores == [25, 25] and res.ranks == [1, 1]


def test_c14_placement_ends_only() -> None:
    state = c04_state()  # red has T13 ST_R (start index 1); T10 is the top of space 1
    act(state, kind="fly", space=6)  # yellow takes T34
    act(state, kind="reveal", space=6, tile="T36")
    act(state, kind="place", end="right")
    assert state.current_player == RED  # token from 3: space 4 holds red
    assert pan(state, RED) == ("T13 ST_R", 1)
    act(state, kind="fly", space=1)
    assert state.observation(None)["held_tile"] == "T10"
    act(state, kind="reveal", space=1, tile="T30")
    assert legal_json(state) == [
        {"kind": "place", "end": "left"},
        {"kind": "place", "end": "right"},
    ]
    left = state.clone()
    act(left, kind="place", end="left")
    assert pan(left, RED) == ("T10 T13 ST_R", 2)
    act(state, kind="place", end="right")
    assert pan(state, RED) == ("T13 ST_R T10", 1)
    for bad in ("middle", "between", 1, None):
        with pytest.raises(IllegalActionError):
            GAME.action_from_json({"kind": "place", "end": bad})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_c15_setup_sizes(players: int) -> None:
    n = 2 * players + 1
    state = GAME.new_game(players)
    reveals = 0
    while state.current_player == CHANCE and state.chance_outcomes()[0][0].KIND == "reveal":
        act(state, kind="reveal", space=reveals, tile=TILE_IDS[reveals])
        reveals += 1
    assert reveals == n
    for i in range(players):
        act(state, kind="balloon_drop", space=i, seat=i)
    obs = state.observation(None)
    assert [s["count"] for s in obs["spaces"]] == [4] * n
    assert [p["balloon_space"] for p in obs["players"]] == list(range(players))
    assert obs["token_space"] == 0 and obs["token_face"] == "sun"
    assert obs["unrevealed_tiles"] == NUM_TILES - n
    assert len(state.legal_actions()) == n - players
    # random goals: three goal_draw nodes come first
    rnd = GAME.new_game(players, {"goal_set": "random"})
    for colour in "SRT":
        outs = rnd.chance_outcomes()
        assert [o.to_json()["goal"] for o, _ in outs] == [f"{colour}{i}" for i in range(1, 5)]
        act(rnd, kind="goal_draw", goal=f"{colour}3")
    assert rnd.chance_outcomes()[0][0].KIND == "reveal"
    assert rnd.observation(None)["goals"] == ["S3", "R3", "T3"]


def test_c16_observations() -> None:
    state = c01_state()
    for seat in (None, 0, 1, 2):
        obs = state.observation(seat)
        assert [s["count"] for s in obs["spaces"]] == [4] * 7
        assert [s["top"] for s in obs["spaces"]] == [
            "T15",
            "T10",
            "T02",
            "T29",
            "T13",
            "T26",
            "T34",
        ]
    text = obs_json(state, None) + json.dumps(state._full_state())
    hidden = ["T12", "T30", "T03", "T19", "T21", "T31", "T24", "T09", "T35", "T16"]
    assert not [t for t in hidden if t in text]
    state = c02_state()
    obs = state.observation(None)
    assert obs["spaces"][5] == {"space": 5, "count": 3, "top": "T07", "balloon_seat": GREEN}


# ---------------------------------------------------------------------------
# Hidden information, resample, options, bad input
# ---------------------------------------------------------------------------


def test_hidden_tiles_never_observed() -> None:
    """Tiles below each top are drawn only when they become tops: no state has them."""
    for players in (2, 3, 4):
        states = KIT.random_states(players, players)
        final = states[-1]
        revealed_at: dict[str, int] = {}
        for i, step in enumerate(final.history):
            if isinstance(step, Reveal):
                revealed_at[step.tile] = i
        never = set(TILE_IDS[:NUM_TILES]) - set(revealed_at)
        assert len(never) >= NUM_TILES - 4 * (2 * players + 1)
        for i, state in enumerate(states):
            blob = json.dumps(state._full_state()) + "".join(
                obs_json(state, s) for s in (None, *range(players))
            )
            for tile in never:
                assert tile not in blob
            for tile, when in revealed_at.items():
                if when >= i:  # not revealed yet in states[i]
                    assert tile not in blob, (i, tile)
            assert state.render(0)


def test_observation_identical_for_all_seats_and_resample_keeps_it() -> None:
    rng = random.Random(5)
    for state in KIT.random_states(4, 11)[::7]:
        # the same for every seat and the spectator, but the header's ``you``
        assert same_view_for_every_seat(state)
        for seat in range(4):
            other = state.resample(seat, rng)
            assert obs_json(other, seat) == obs_json(state, seat)
            assert other.digest() == state.digest()
            assert other.chance_outcomes() == state.chance_outcomes()
            assert other.legal_actions() == state.legal_actions()


def test_two_deals_differing_below_tops_observe_equal() -> None:
    """Two physical deals with the same tops but different tiles below are the same state."""
    a = c01_state()
    b = c01_state()
    assert obs_json(a, 0) == obs_json(b, 0) and a.digest() == b.digest()
    # diverge only in what is revealed later: observations differ only after the reveal
    act(a, kind="fly", space=5)
    act(b, kind="fly", space=5)
    assert obs_json(a, 1) == obs_json(b, 1)
    act(a, kind="reveal", space=5, tile="T07")
    act(b, kind="reveal", space=5, tile="T08")
    assert obs_json(a, 1) != obs_json(b, 1)


def test_bad_options() -> None:
    with pytest.raises(GameConfigError, match="no option 'goalset'"):
        GAME.new_game(2, {"goalset": "random"})
    with pytest.raises(GameConfigError, match="must be one of"):
        GAME.new_game(2, {"goal_set": "scenario_7"})
    with pytest.raises(GameConfigError, match="exactly three"):
        GAME.new_game(2, {"goals": ["S1", "R1"]})
    with pytest.raises(GameConfigError, match="unknown goal id 'X1'"):
        GAME.new_game(2, {"goals": ["S1", "R1", "X1"]})
    with pytest.raises(GameConfigError, match="exactly one sky goal"):
        GAME.new_game(2, {"goals": ["S1", "S2", "T1"]})
    for players in (1, 5, "3", True):
        with pytest.raises(GameConfigError, match="2-4 players"):
            GAME.new_game(players)  # type: ignore[arg-type]  # wrong types on purpose


def test_goal_options() -> None:
    state = GAME.new_game(2, {"goals": ["T2", "R3", "S4"], "goal_set": "random"})
    assert state.observation(None)["goals"] == ["S4", "R3", "T2"]
    assert state.chance_outcomes()[0][0].KIND == "reveal"
    scen = GAME.new_game(3, {"goal_set": "less_is_more"})
    assert scen.observation(None)["goals"] == ["S1", "R4", "T2"]
    assert GAME.new_game(4).observation(None)["goals"] == ["S1", "R1", "T1"]
    assert GAME.new_game(2, {"goals": None}).observation(None)["goals"] == ["S1", "R1", "T1"]


def test_bad_actions() -> None:
    state = c04_state()
    bad = [
        ({"kind": "jump", "space": 1}, "unknown action kind 'jump'"),
        ({"kind": "fly"}, "missing field 'space'"),
        ({"kind": "fly", "space": "1"}, "must be an integer"),
        ({"kind": "fly", "space": 1, "tile": "T01"}, "unknown field"),
        ({"kind": "place", "end": "top"}, "must be one of 'left', 'right'"),
        ("fly 1", "must be a JSON object"),
    ]
    for data, msg in bad:
        rejects(state, data, msg)
    illegal = [
        ({"kind": "fly", "space": -1}, "no space -1"),
        ({"kind": "fly", "space": 9}, "no space 9"),
        ({"kind": "reveal", "space": 0, "tile": "T01"}, "must choose an action of kind fly"),
        ({"kind": "balloon_drop", "space": 0, "seat": 0}, "must choose an action of kind fly"),
    ]
    for data, msg in illegal:
        rejects(state, data, msg)
    # chance nodes
    fresh = KIT.new(2)
    for data, msg in [
        ({"kind": "reveal", "space": 1, "tile": "T01"}, "reveal for space 0 is due"),
        ({"kind": "reveal", "space": 0, "tile": "T99"}, "not a panorama tile"),
        ({"kind": "reveal", "space": 0, "tile": "ST_R"}, "not a panorama tile"),
        ({"kind": "fly", "space": 0}, "chance outcome of kind reveal is due"),
    ]:
        rejects(fresh, data, msg)
    act(fresh, kind="reveal", space=0, tile="T01")
    rejects(fresh, {"kind": "reveal", "space": 1, "tile": "T01"}, "already been revealed")


def test_random_games_invariants() -> None:
    """Always n - p legal flies; each seat gets exactly one turn in the moon phase."""
    for players in (2, 3, 4):
        n = 2 * players + 1
        for seed in range(15):
            options = {"goal_set": "random"} if seed % 2 else None
            states = KIT.random_states(players, seed, options)
            moon_turns = Counter[int]()
            for s in states:
                if s.current_player >= 0 and s.phase == FLY_PHASE:
                    assert len(s.legal_actions()) == n - players
                    if s.moon:
                        moon_turns[s.current_player] += 1
            final = states[-1]
            trigger = [q for q in range(players) if moon_turns[q] == 0]
            assert len(trigger) == 1 and all(
                moon_turns[q] == 1 for q in range(players) if q != trigger[0]
            )
            assert len(final.history) <= GAME.step_bound(players, options or {})
            res = final.result()
            assert all(b["total"] == s for b, s in zip(res.breakdown, res.scores, strict=True))


def test_render_shows_board() -> None:
    state = c02_state()
    text = state.render(RED)
    assert "red (seat 0) (you)" in text and "ST_G*" in text and "T26" in text
    assert "space 5: 3 tile(s), top T07" in text and "SUN on space 1" in text
    assert "T12" not in text


def test_variants_cover_goal_sets() -> None:
    for players in (2, 3, 4):
        vs = GAME.variants(players)
        sets = {v.get("goal_set", "first_game") for v in vs if "goals" not in v}
        assert sets == {
            "first_game",
            "random",
            "animal_festival",
            "river_lover",
            "long_way_home",
            "wonderful_view",
            "riverside_walk",
            "less_is_more",
        }
        for v in vs:
            GAME.new_game(players, v)


# ---------------------------------------------------------------------------
# Rebuilding a state from one seat's observation (engine.panorama.rebuild)
# ---------------------------------------------------------------------------


def test_rebuild_nothing_hidden_so_every_seed_gives_the_state_itself() -> None:
    """No tile below a top is in the state: any seed rebuilds the same (= the original)."""
    for players in (2, 3, 4):
        for options in (None, {"goal_set": "random"}):
            for state in KIT.random_states(players, 40 + players, options):
                if state.current_player < 0:
                    continue
                one = rebuilt(state, seed=1, options=options)
                two = rebuilt(state, seed=2, options=options)
                assert one.digest() == two.digest()
                # equal full states, apart from the leftover index of the last reveal
                assert full_state(one, "pending_space") == full_state(state, "pending_space")
                assert one.legal_actions() == state.legal_actions()


def test_rebuild_future_reveals_draw_from_the_tiles_not_in_view() -> None:
    """The hidden part of the game (the next tops) comes from the same unrevealed tiles."""
    state = c02_state()  # red's turn; 8 tiles in view (7 tops + T26)
    copy = rebuilt(state, seed=7)
    for s in (state, copy):
        act(s, kind="fly", space=4)
    assert copy.chance_outcomes() == state.chance_outcomes()
    tiles = {o.to_json()["tile"] for o, _ in copy.chance_outcomes()}
    assert len(tiles) == NUM_TILES - 8
    assert tiles.isdisjoint({"T15", "T10", "T02", "T29", "T13", "T07", "T34", "T26"})
    assert "T12" in tiles and "T03" in tiles  # below a top / in the box: both still possible


def test_rebuild_conserves_components() -> None:
    for state in KIT.random_states(3, 9)[::5]:
        if state.current_player < 0:
            continue
        copy = rebuilt(state)
        view = [t for t in copy.tops if t >= 0] + [t for p in copy.panoramas for t in p]
        if copy.held_tile >= 0:
            view.append(copy.held_tile)
        assert sorted(view + copy.unrevealed) == [*range(NUM_TILES), 36, 37, 38]
        assert copy.unrevealed == sorted(copy.unrevealed)
        assert sum(4 - c for c in copy.stack_counts) == sum(len(p) - 1 for p in copy.panoramas) + (
            copy.held_tile >= 0
        )


def test_rebuild_place_phase_after_a_reveal_is_exact() -> None:
    state = c01_state()
    act(state, kind="fly", space=5)
    act(state, kind="reveal", space=5, tile="T07")
    copy = rebuilt(state, seat=GREEN)
    assert copy.digest() == state.digest()  # here even the last reveal's space is known
    assert copy.legal_actions() == state.legal_actions()
    for s in (state, copy):
        act(s, kind="place", end="right")
    assert copy.digest() == state.digest() and copy.current_player == RED


def test_rebuild_end_phase_and_last_turn() -> None:
    """Stack emptied (place, no reveal), moon turns, the last turn: play on to the same end."""
    for seed in range(6):
        states = [s for s in KIT.random_states(3, seed) if s.current_player >= 0]
        final = KIT.random_states(3, seed)[-1]
        trigger = next(
            s
            for s in states
            if s.phase == PLACE_PHASE
            and s.stack_counts[s.balloon_space[s.active_player]] == 0
            and not s.moon
        )
        moon = [s for s in states if s.moon]
        assert moon and all(s.phase in (FLY_PHASE, PLACE_PHASE) for s in moon)
        for state in (trigger, moon[0], moon[-1]):
            copy = apply_all(rebuilt(state), final.history[len(state.history) :])
            assert copy.is_terminal() and copy.result() == final.result()
        assert rebuilt(moon[0]).observation(0)["token_face"] == "moon"


def test_rebuild_goals_from_the_observation() -> None:
    state = KIT.random_states(2, 3, {"goal_set": "random"})[-2]
    assert state.current_player >= 0
    copy = rebuilt(state, options={"goal_set": "random"})
    assert copy.goals == state.goals and copy.phase == state.phase
    rebuild_fails(
        state,
        wire(state, state.current_player),
        "options fix the sky goal",
        options={"goals": ["S4", "R4", "T4"]},
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda o: o.pop("spaces"), r"has no field 'spaces'"),
        (lambda o: o.update(phase="reveal"), "phase is 'reveal'"),
        (lambda o: o.update(current_player=RED), "not seat 1's turn"),
        (lambda o: o.update(num_spaces=9), "num_spaces must be 7"),
        (
            lambda o: o["spaces"][0].update(count=5),
            r"spaces\[0\]\.count must be an integer 0\.\.4, got 5",
        ),
        (lambda o: o["spaces"][0].update(count="4"), r"count must be an integer 0\.\.4, got '4'"),
        (lambda o: o["spaces"][0].update(top="ST_R"), "must be a panorama tile"),
        (lambda o: o["spaces"][0].update(top="T26"), "T26 shown more than once"),
        (lambda o: o["spaces"][0].update(balloon_seat=RED), "balloon_seat is 0 but players"),
        (lambda o: o["players"][RED].update(panorama=["ST_R"], start_index=0), "missing 3"),
        (lambda o: o["players"][RED].update(start_index=0), "must hold ST_R at start_index 0"),
        (lambda o: o["players"][GREEN].update(balloon="deflated"), "still shows the sun"),
        (lambda o: o.update(token_face="moon"), "no balloon is deflated"),
        (lambda o: o.update(held_tile="T12"), "held_tile must be empty"),
        (lambda o: o.update(token_space=0), "not seat 1's balloon space 3"),
        (lambda o: o.update(unrevealed_tiles=30), "unrevealed_tiles is 30"),
        (lambda o: o.update(goals=["R1", "S1", "T1"]), "options fix the sky goal"),
        (
            lambda o: o["players"][RED]["points"].update(total=99),
            r"players\[0\]\.points\.total is 99",
        ),
        (lambda o: o.update(extra=1), "unknown field extra"),
    ],
)
def test_rebuild_rejects_malformed_observations(change: Edit, message: str) -> None:
    state = c04_state()  # yellow to fly
    assert state.current_player == YELLOW
    rejects_observation(state, change, message)


def test_rebuild_rejects_a_deflated_seat_and_non_turns() -> None:
    state = c01_state()
    rebuild_fails(state, wire(state, RED), "not seat 0's turn", seat=RED)
    act(state, kind="fly", space=5)  # a reveal node is due: nobody's turn
    rebuild_fails(state, wire(state, GREEN), "phase is 'reveal'", seat=GREEN)
