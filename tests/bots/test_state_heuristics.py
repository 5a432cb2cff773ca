"""The heuristics that read the state directly equal the observation-based ones they
replaced, on random positions (the fast path must not change what the bots value)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bots.heuristics import carson_city_zoo as carson
from bots.heuristics import manatee_sanctuary as manatee
from bots.heuristics import zooloretto_mini as zoo_mod
from bots.heuristics.dziobaki import CONFLICT_WEIGHT, OPEN_WEIGHT, evaluate_board
from bots.heuristics.dziobaki import HEURISTIC as DZIOBAKI
from bots.heuristics.panorama import HEURISTIC as PANORAMA
from bots.heuristics.panorama import TILE_VALUE, open_potential, place_gain
from engine import State, get_game
from engine.carson_city_zoo.actions import Move as CarsonMove
from engine.carson_city_zoo.actions import Place as CarsonPlace
from engine.carson_city_zoo.data import DIR_INDEX, NEIGHBOURS, TARGET, character_value
from engine.dziobaki.actions import Place
from engine.dziobaki.data import (
    CELL_SPACE,
    CROSS_QUADRANTS,
    NUM_TILES,
    PRINTED_CELLS,
    TILE_INDEX,
    board_codes,
)
from engine.dziobaki.scoring import animal_counts, meadow_ids
from engine.manatee_sanctuary.actions import Act as ManateeAct
from engine.manatee_sanctuary.actions import Expand as ManateeExpand
from engine.manatee_sanctuary.actions import Keep as ManateeKeep
from engine.manatee_sanctuary.actions import Split as ManateeSplit
from engine.manatee_sanctuary.data import CARD_INDEX as MANATEE_CARD
from engine.manatee_sanctuary.data import ENDGAME, HABITAT, N_HARVEST, N_RESCUE
from engine.panorama.actions import Fly
from engine.panorama.actions import Place as PanoramaPlace
from engine.panorama.data import TILE_INDEX as PANORAMA_TILE
from engine.panorama.scoring import analyse
from engine.zooloretto_mini import actions as zoo_actions
from engine.zooloretto_mini.data import DESTINATIONS as ZOO_DESTINATIONS
from tests.games.kit import positions


def evaluate_board_reference(codes: list[int], side: str) -> float:
    """The board estimate as it was computed before (``meadow_ids`` + ``animal_counts``)."""
    ids = meadow_ids(codes, open_ground=False)
    touches: dict[int, set[int]] = {}
    for sa, qa, sb, qb in CROSS_QUADRANTS:
        ida, idb = ids[sa], ids[sb]
        if ida is None:
            if idb is not None:
                touches.setdefault(idb[qb], set()).add(sa)
        elif idb is None:
            touches.setdefault(ida[qa], set()).add(sb)
    counts = animal_counts(codes, side, ids)
    loose: dict[int, list[int]] = {}
    for sp, cell in enumerate(PRINTED_CELLS[side]):
        space = CELL_SPACE[cell]
        if codes[space] < 0:
            loose.setdefault(space, [0, 0, 0, 0])[sp] += 1
    total = 0.0
    pressure: dict[int, list[float]] = {}
    for root, cnt in counts.items():
        present = [i for i in range(4) if cnt[i]]
        is_open = root in touches
        if len(present) == 1:
            n = cnt[present[0]]
            total += n * (OPEN_WEIGHT if is_open else 1.0)
            if is_open:
                for e in touches[root]:
                    pressure.setdefault(e, [0.0] * 5)[present[0]] += n
        elif len(present) > 1 and is_open:
            for e in touches[root]:
                pressure.setdefault(e, [0.0] * 5)[4] += 1.0
    for space, cnt in loose.items():
        row = pressure.setdefault(space, [0.0] * 5)
        for i in range(4):
            row[i] += 0.5 * cnt[i]
    for row in pressure.values():
        groups = sorted(row[:4], reverse=True)
        if row[4]:
            total -= CONFLICT_WEIGHT * OPEN_WEIGHT * sum(groups) * 0.5
        else:
            total -= CONFLICT_WEIGHT * OPEN_WEIGHT * sum(groups[1:])
    return total


def dziobaki_estimate_from_observation(state: State) -> list[float]:
    """The estimate as it was computed before: from the spectator observation (and the
    seat's own observation for its pending commitment)."""
    obs: Any = state.observation(None)
    if obs["phase"] == "over":
        return [float(b["score"]["total"]) for b in obs["boards"]]
    side = obs["board_side"]
    tile = obs["revealed_tile"]
    out = []
    for seat, board in enumerate(obs["boards"]):
        codes = board_codes(board)
        if obs["committed"][seat] and tile:
            mine: Any = state.observation(seat)["my_commitment"]
            if mine["space"] >= 0:
                codes[mine["space"]] = 4 * TILE_INDEX[tile] + mine["rotation"]
        out.append(
            evaluate_board_reference(codes, side) + float(board["score"]["all_together_bonus"])
        )
    return out


def dziobaki_rollout_from_observation(state: State, rng: random.Random) -> Place:
    obs: Any = state.observation(None)
    codes = board_codes(obs["boards"][obs["current_player"]])
    tile = TILE_INDEX[obs["revealed_tile"]]
    best, best_v = None, -1e9
    for a in state.legal_actions():
        assert isinstance(a, Place)
        trial = list(codes)
        trial[a.space] = 4 * tile + a.rotation
        v = evaluate_board_reference(trial, obs["board_side"]) + rng.random() * 0.3
        if v > best_v:
            best, best_v = a, v
    assert best is not None
    return best


def random_positions(game_id: str, players: int, seed: int) -> list[State]:
    """Every position (clones) of one random game of every variant."""
    game = get_game(game_id)
    rng = random.Random(seed)
    out: list[State] = []
    for variant in game.variants(players):
        out += positions(game.new_game(players, variant), rng)
    return out


@pytest.mark.parametrize("players", [1, 2, 4])
def test_dziobaki_estimate_and_rollout_equal_the_observation_based_ones(players: int) -> None:
    checked = 0
    for seed in range(4):
        for state in random_positions("dziobaki", players, seed):
            assert DZIOBAKI.estimate(state) == dziobaki_estimate_from_observation(state)
            if state.current_player >= 0:
                legal = state.legal_actions()
                got = DZIOBAKI.rollout_action(state, legal, random.Random(seed))
                assert got == dziobaki_rollout_from_observation(state, random.Random(seed))
            checked += 1
    assert checked > 100


def test_dziobaki_board_estimate_equals_the_reference_on_random_boards() -> None:
    """Random partial boards of both sides, bit for bit (the float sums' order too)."""
    rng = random.Random(5)
    for _ in range(3000):
        codes = [rng.randrange(4 * NUM_TILES) if rng.random() < 0.6 else -1 for _ in range(12)]
        for side in ("A", "B"):
            assert evaluate_board(codes, side) == evaluate_board_reference(codes, side)


def panorama_queue_ranks_from_observation(obs: Any) -> list[int]:
    n = obs["num_spaces"]
    token = obs["token_space"]
    active = obs["active_player"]
    ranks = [-1] * len(obs["players"])
    order: list[tuple[int, int]] = []
    for p in obs["players"]:
        if p["balloon"] != "standing":
            continue
        seat = p["seat"]
        dist = 0 if seat == active and obs["phase"] == "fly" else (p["balloon_space"] - token) % n
        order.append((dist if dist else (0 if seat == active else n), seat))
    for rank, (_, seat) in enumerate(sorted(order)):
        ranks[seat] = rank
    return ranks


def panorama_estimate_from_observation(state: State) -> list[float]:
    """The Panorama estimate as it was computed before, from the spectator observation."""
    h = PANORAMA
    obs: Any = state.observation(None)
    players = obs["players"]
    out = [float(p["points"]["total"]) for p in players]
    if obs["phase"] == "game_over" or state.is_terminal():
        return out
    moon = obs["token_face"] == "moon"
    ranks = panorama_queue_ranks_from_observation(obs)
    left = sum(sp["count"] for sp in obs["spaces"])
    progress = min(1.0, left / (4.0 * obs["num_spaces"]))
    for seat, p in enumerate(players):
        if p["balloon"] != "standing":
            continue
        tiles = tuple(PANORAMA_TILE[t] for t in p["panorama"])
        held = obs["held_tile"]
        if held and seat == obs["active_player"]:
            lft, rgt = place_gain(tiles, p["start_index"], PANORAMA_TILE[held])
            base = float(sum(analyse(tiles, p["start_index"]).points))
            out[seat] += max(lft, rgt) - base
        weight = h.open_weight * (0.3 if moon else 0.3 + 0.7 * progress)
        out[seat] += weight * open_potential(tiles)
        if not moon and ranks[seat] >= 0:
            out[seat] -= h.tempo * ranks[seat]
    return out


def panorama_rollout_from_observation(state: State, rng: random.Random) -> Any:
    obs: Any = state.observation(None)
    legal = state.legal_actions()
    match legal[0]:
        case PanoramaPlace(end=first_end):
            p = obs["players"][obs["active_player"]]
            tiles = tuple(PANORAMA_TILE[t] for t in p["panorama"])
            lft, rgt = place_gain(tiles, p["start_index"], PANORAMA_TILE[obs["held_tile"]])
            if lft == rgt:
                return legal[rng.randrange(len(legal))]
            return legal[0] if (lft > rgt) == (first_end == "left") else legal[1]
    n = obs["num_spaces"]
    token = obs["token_space"]
    tops = {sp["space"]: sp["top"] for sp in obs["spaces"]}
    best, best_v = legal[0], -1e9
    for a in legal:
        match a:
            case Fly(space=space):
                top = tops.get(space)
                v = rng.random() * 3.0 - 0.4 * ((space - token) % n)
                if top:
                    v += TILE_VALUE[PANORAMA_TILE[top]]
                if v > best_v:
                    best, best_v = a, v
    return best


@pytest.mark.parametrize("players", [2, 3, 4])
def test_panorama_estimate_and_rollout_equal_the_observation_based_ones(players: int) -> None:
    checked = 0
    for seed in range(3):
        for state in random_positions("panorama", players, seed):
            assert PANORAMA.estimate(state) == panorama_estimate_from_observation(state)
            if state.current_player >= 0:
                legal = state.legal_actions()
                if len(legal) > 1 and isinstance(legal[0], PanoramaPlace | Fly):
                    got = PANORAMA.rollout_action(state, legal, random.Random(seed))
                    want = panorama_rollout_from_observation(state, random.Random(seed))
                    assert got == want
                    checked += 1
    assert checked > 50


def carson_threats_from_observation(obs: Any, num_players: int) -> list[float]:
    adj = [0.0] * num_players
    team_seat = {p["team"]: p["seat"] for p in obs["players"]}
    to_move = obs["current_player"]
    spaces = obs["spaces"]
    for sp in spaces:
        occ = sp["occupant"]
        if not occ:
            continue
        owner = team_seat.get(occ[0], -1)
        v = character_value(occ)
        best_p = 0.0
        best_seat = -1
        for _d, nb in NEIGHBOURS[sp["space"]]:
            other = spaces[nb]["occupant"]
            if not other or spaces[nb]["mutated"]:
                continue
            q = team_seat.get(other[0], -1)
            if sp["mutated"]:
                p = carson.P_MUTANT_GIFT
            elif q == owner or character_value(other) < v:
                continue
            elif owner == to_move:
                p = carson.P_OWN_TURN
            elif q == to_move:
                p = carson.P_NEXT
            else:
                p = carson.P_LATER
            if p > best_p:
                best_p, best_seat = p, q
        if best_seat < 0:
            continue
        adj[best_seat] += best_p * v
        if not sp["mutated"] and 0 <= owner < num_players:
            adj[owner] -= best_p * v
    return adj


def carson_estimate_from_observation(state: State) -> list[float]:
    obs: Any = state.observation(None)
    totals = [float(p["total"]) for p in obs["players"]]
    if state.is_terminal():
        return totals
    adj = carson_threats_from_observation(obs, state.num_players)
    return [t + a for t, a in zip(totals, adj, strict=True)]


def carson_captures_from_observation(obs: Any, legal: list[Any]) -> list[float]:
    spaces = obs["spaces"]
    found = obs["mutant_found"]
    where = {sp["occupant"]: sp["space"] for sp in spaces if sp["occupant"]}
    out = []
    for a in legal:
        if isinstance(a, CarsonMove):
            char, target = a.char, TARGET[where[a.char]][DIR_INDEX[a.dir]]
        else:
            char, target = a.char, a.space
        sp = spaces[target]
        if sp["occupant"]:
            v = character_value(sp["occupant"]) + 0.5
        else:
            top = sp["top_value"]
            v = float(top)
            if 0 <= top < 4 and not found[top]:
                v -= 0.15 * character_value(char)
        out.append(v)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_carson_estimate_and_prior_equal_the_observation_based_ones(players: int) -> None:
    checked = 0
    for seed in range(4):
        for state in random_positions("carson_city_zoo", players, seed):
            assert carson.HEURISTIC.estimate(state) == carson_estimate_from_observation(state)
            legal = state.legal_actions() if state.current_player >= 0 else []
            if legal and isinstance(legal[0], CarsonMove | CarsonPlace):
                want = carson_captures_from_observation(state.observation(None), legal)
                assert carson.HEURISTIC.prior(state, legal, random.Random(0)) == want
                checked += 1
    assert checked > 50


def manatee_seat_from_observation(player: Any, obs: Any) -> manatee.Seat:
    """A seat's numbers as the Manatee heuristic read them before: from its observation."""
    return manatee.Seat(
        score=float(player["score"]),
        food=float(player["food"]),
        flowers=int(player["flowers"]),
        housed=(
            int(player["housed_grey"]),
            int(player["housed_pink"]),
            int(player["housed_yellow"]),
        ),
        capacity=int(player["capacity"]),
        usage=int(player["usage"]),
        endgame=[ENDGAME[MANATEE_CARD[c["card"]]] for c in player["sanctuary"]],
        rounds=[] if obs["phase"] in ("game_over", "over") else list(range(int(obs["round"]), 4)),
    )


def manatee_cards(ids: Any) -> list[int]:
    return [MANATEE_CARD[c] for c in ids or []]


def manatee_draft_from_observation(me: manatee.Seat, obs: Any) -> float:
    """``draft_hand_value`` as it was: the draft read from the seat's observation."""
    dealt = manatee_cards(obs.get("dealt"))
    mine = manatee_cards(obs.get("my_split"))
    small = manatee_cards(obs.get("received_small"))
    large = manatee_cards(obs.get("received_large"))
    average_stack = 2.5 * me.card_value(MANATEE_CARD["S46"])
    own = manatee.split_value(me, dealt, mine) if dealt and mine else 0.0
    if dealt and not mine:
        own = manatee.best_split(me, dealt)
    if small or large:
        keep = obs.get("my_keep") or ""
        if keep == "small":
            got = manatee.stack_value(me, small)
        elif keep == "large":
            got = manatee.stack_value(me, large)
        else:
            got = max(manatee.stack_value(me, small), manatee.stack_value(me, large))
        return own + got
    return own + average_stack


def manatee_estimate_from_observation(state: State) -> list[float]:
    """The Manatee estimate as it was: every seat from its own observation."""
    if state.is_terminal():
        return [float(s) for s in state.result().scores]
    out = []
    for seat in range(state.num_players):
        obs: Any = state.observation(seat)
        me = manatee_seat_from_observation(obs["players"][seat], obs)
        hand = manatee_cards(obs.get("hand"))
        if obs["phase"] == "draft" and obs["step"] in ("split", "keep"):
            value = manatee_draft_from_observation(me, obs)
        else:
            value = manatee.stack_value(me, hand)
        out.append(me.estimate(hand, value))
    return out


def manatee_draft_rollout_from_observation(
    state: State, legal: list[Any], rng: random.Random
) -> Any:
    """Manatee's split/keep rollout choice as it was: from the seat's observation."""
    seat = state.current_player
    obs: Any = state.observation(seat)
    me = manatee_seat_from_observation(obs["players"][seat], obs)
    if isinstance(legal[0], ManateeSplit):
        dealt = manatee_cards(obs.get("dealt"))

        def split_key(a: Any) -> float:
            small = manatee_cards(a.small)
            return manatee.split_value(me, dealt, small) + rng.random() * 0.5

        return max(legal, key=split_key)
    small = manatee.stack_value(me, manatee_cards(obs.get("received_small")))
    large = manatee.stack_value(me, manatee_cards(obs.get("received_large")))
    want = ManateeKeep("small" if small > large else "large")
    return next((a for a in legal if a == want), legal[0])


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_manatee_estimate_and_draft_rollout_equal_the_observation_based_ones(
    players: int,
) -> None:
    estimates = drafts = 0
    for seed in range(2):
        for state in random_positions("manatee_sanctuary", players, seed):
            assert manatee.HEURISTIC.estimate(state) == manatee_estimate_from_observation(state)
            estimates += 1
            legal = state.legal_actions() if state.current_player >= 0 else []
            if legal and isinstance(legal[0], ManateeSplit | ManateeKeep):
                got = manatee.HEURISTIC.rollout_action(state, legal, random.Random(seed))
                want = manatee_draft_rollout_from_observation(state, legal, random.Random(seed))
                assert got == want
                drafts += 1
    assert estimates > 100
    assert drafts > 0 or players == 1  # solo has no split/keep draft


def manatee_rollout_play_from_observation(
    state: State, legal: list[Any], rng: random.Random
) -> Any:
    """Manatee's act/expand rollout choice as it was: from the seat's observation."""
    seat = state.current_player
    obs: Any = state.observation(seat)
    me = manatee_seat_from_observation(obs["players"][seat], obs)
    free = max(0, me.capacity - me.usage)
    best, best_v = legal[0], -1e9
    for a in legal:
        if isinstance(a, ManateeAct):
            c = MANATEE_CARD[a.card]
            v = min(N_RESCUE[c], free) * me.manatee_net() + N_HARVEST[c] * me.flowers * 0.6
        elif isinstance(a, ManateeExpand):
            c = MANATEE_CARD[a.card]
            v = 1.5 + manatee.FREE_SPACE_WEIGHT * HABITAT[c]
            v += manatee.ENDGAME_CARD_VALUE if ENDGAME[c] else 0
        else:
            continue
        v += rng.random()
        if v > best_v:
            best, best_v = a, v
    return best


@pytest.mark.parametrize("players", [1, 2, 4])
def test_manatee_rollout_play_equals_the_observation_based_one(players: int) -> None:
    checked = 0
    for seed in range(3):
        for state in random_positions("manatee_sanctuary", players, seed):
            legal = state.legal_actions() if state.current_player >= 0 else []
            if legal and isinstance(legal[0], ManateeAct | ManateeExpand):
                got = manatee.HEURISTIC.rollout_action(state, legal, random.Random(seed))
                want = manatee_rollout_play_from_observation(state, legal, random.Random(seed))
                assert got == want
                checked += 1
    assert checked > 20


def zooloretto_rollout_from_observation(state: State, legal: list[Any], rng: random.Random) -> Any:
    """Zooloretto Mini's rollout choice as it was: from the spectator observation."""
    obs: Any = state.observation(None)
    seat = obs["current_player"]
    zoo = zoo_mod.Zoo.from_obs(obs["players"][seat])
    trucks = {t["id"]: t for t in obs["trucks"]}
    first = legal[0]
    if isinstance(first, zoo_actions.Draw | zoo_actions.TakeTruck):
        best, best_gain = None, -1e9
        for a in legal:
            if not isinstance(a, zoo_actions.TakeTruck):
                continue
            truck = trucks[a.truck]
            gain = zoo.truck_gain(truck["tiles"])
            if len(truck["tiles"]) < truck["capacity"]:
                gain -= 1.0 + rng.random() * 2.0
            if gain > best_gain:
                best, best_gain = a, gain
        if isinstance(first, zoo_actions.Draw) and (best is None or best_gain < 0):
            return first
        return best
    if isinstance(first, zoo_actions.Load):
        tile = obs["drawn_tile"]
        scored = []
        for a in legal:
            t = trucks[a.truck]["tiles"]
            scored.append((zoo.truck_gain([*t, tile]) - zoo.truck_gain(t), rng.random(), a))
        return max(scored, key=lambda x: (x[0], x[1]))[2]
    if isinstance(first, zoo_actions.Place):
        tile = trucks[obs["players"][seat]["truck"]]["tiles"][0]
        want = ZOO_DESTINATIONS[zoo.best_place(tile)[0]]
        for a in legal:
            if isinstance(a, zoo_actions.Place) and a.tile == tile and a.to == want:
                return a
    if isinstance(first, zoo_actions.BonusTake | zoo_actions.BonusDiscard | zoo_actions.BonusSkip):
        base = zoo.score()
        best_a, best_v = legal[-1], 0.0
        for a in legal:
            if isinstance(a, zoo_actions.BonusTake):
                trial = zoo.copy()
                trial.place(a.tile, ZOO_DESTINATIONS.index(a.to))
                v = float(trial.score() - base)
            elif isinstance(a, zoo_actions.BonusDiscard):
                barn = obs["players"][seat]["barn"]
                k = zoo_mod.kind_of(a.tile)
                v = 2.0 if sum(1 for t in barn if zoo_mod.kind_of(t) == k) == 1 else 0.0
            else:
                continue
            if v > best_v:
                best_a, best_v = a, v
        return best_a
    return legal[rng.randrange(len(legal))]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_zooloretto_rollout_equals_the_observation_based_one(players: int) -> None:
    checked = 0
    for seed in range(3):
        for state in random_positions("zooloretto_mini", players, seed):
            legal = state.legal_actions() if state.current_player >= 0 else []
            if len(legal) > 1:
                got = zoo_mod.HEURISTIC.rollout_action(state, legal, random.Random(seed))
                want = zooloretto_rollout_from_observation(state, legal, random.Random(seed))
                assert got == want
                checked += 1
    assert checked > 50


def zooloretto_unseen_from_observation(obs: Any) -> dict[str, int]:
    removed = set(obs["removed_species"])
    left = {s: n for s, n in zoo_mod.ADULT_TILES.items() if s not in removed}
    seen: list[str] = list(obs["out_of_play"])
    if obs["drawn_tile"]:
        seen.append(obs["drawn_tile"])
    for truck in obs["trucks"]:
        seen.extend(truck["tiles"])
    for p in obs["players"]:
        seen.extend(p["barn"])
        for e in p["enclosures"]:
            seen.extend(e["tiles"])
    for t in seen:
        if not t.startswith("L") and len(t) > 2 and t[2] != "K" and t[:2] in left:
            left[t[:2]] -= 1
    return left


def zooloretto_estimate_from_observation(state: State) -> list[float]:
    """Zooloretto Mini's estimate as it was: from the spectator observation."""
    h = zoo_mod.HEURISTIC
    obs: Any = state.observation(None)
    n = state.num_players
    players = obs["players"]
    zoos = [zoo_mod.Zoo.from_obs(p) for p in players]
    unseen = zooloretto_unseen_from_observation(obs)
    slots = sum(t["capacity"] for t in obs["trucks"])
    undrawn = obs["bag_count"] + obs["end_count"]
    to_come = obs["bag_count"] + (slots if not obs["last_round"] else slots // 2)
    share = min(1.0, to_come / undrawn) / n if undrawn else 0.0
    available = [t["tiles"] for t in obs["trucks"] if t["taken_by"] < 0 and t["tiles"]]
    out = []
    for s, p in enumerate(players):
        zoo = zoos[s]
        est = float(p["score"]["total"])
        if obs["phase"] == "game_over":
            out.append(est)
            continue
        if obs["phase"] == "place" and obs["current_player"] == s and p["truck"]:
            truck = next(t for t in obs["trucks"] if t["id"] == p["truck"])
            zoo = zoo.copy()
            for tile in truck["tiles"]:
                dest, g = zoo.best_place(tile)
                zoo.place(tile, dest)
                est += g
        elif p["active"] and available:
            est += h.option_weight * max(0.0, max(zoo.truck_gain(t) for t in available))
        est += h.potential_weight * zoo_mod.potential(zoo, unseen, share)
        out.append(est)
    return out


@pytest.mark.parametrize("players", [2, 3, 5])
def test_zooloretto_estimate_equals_the_observation_based_one(players: int) -> None:
    checked = 0
    for seed in range(3):
        for state in random_positions("zooloretto_mini", players, seed):
            assert zoo_mod.HEURISTIC.estimate(state) == zooloretto_estimate_from_observation(state)
            checked += 1
    assert checked > 100


def zooloretto_best_place_reference(zoo: Any, tile: str) -> tuple[int, float]:
    """``Zoo.best_place`` as it was written before (fits per enclosure, no hoisting)."""
    kind = zoo_mod.kind_of(tile)
    best_dest, best_gain = 3, (0.0 if kind in zoo.barn else -2.0)
    landscape = tile.startswith("L")
    for dest, e in enumerate(zoo.encs):
        if not e.fits(tile):
            continue
        tiles = e.tiles + 1
        if landscape:
            gain = 0.0 if any(kind in x.kinds for x in zoo.encs) else 2.0
        else:
            points = zoo_mod.ENCLOSURE_POINTS
            gain = float(points[e.animals + 1] - points[e.animals])
            sex = tile[2] if len(tile) > 2 else ""
            if (sex == "M" and e.females) or (sex == "F" and e.males):
                if tiles < zoo_mod.ENCLOSURE_SIZE:
                    tiles += 1
                    gain += points[e.animals + 2] - points[e.animals + 1]
                elif kind not in zoo.barn:
                    gain -= 2.0
            if not e.species:
                gain -= 0.5
        if tiles >= zoo_mod.ENCLOSURE_SIZE:
            gain += zoo_mod.BONUS_VALUE if zoo.barn else 0.5
        if gain > best_gain:
            best_dest, best_gain = dest, gain
    return best_dest, best_gain


def test_zooloretto_best_place_equals_the_reference() -> None:
    """Every zoo of every position of random games, with every tile of the game."""
    checked = 0
    for players in (2, 4):
        for state in random_positions("zooloretto_mini", players, 11):
            assert isinstance(state, zoo_mod.ZoolorettoMiniState)
            for seat in range(players):
                zoo = zoo_mod.Zoo.from_state(state, seat)
                for tile in state.undrawn[::3] + state.offspring_supply + state.out_of_play:
                    assert zoo.best_place(tile) == zooloretto_best_place_reference(zoo, tile)
                    checked += 1
    assert checked > 10000
