"""Game analysis (``arena.analysis``, ``arena analyse``): known best moves are found with
zero loss, nothing hidden is read, annotations are reproducible, the CLI and the viewer
work on real records."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.analysis.analysers import IsmctsAnalyser, RolloutAnalyser, make_analyser
from arena.analysis.evaluate import analyse_record, decision_rng, evaluate_turn
from arena.analysis.sidecar import read_annotations
from engine import CHANCE, State, get_game
from engine.core import Action, sample_outcome
from tests.cli import CliResult

Cli = Callable[..., CliResult]


def _margin(state: State, seat: int) -> float:
    scores = state.result().scores
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def _exact(state: State, seat: int, action: Action) -> float | None:
    """The final margin after ``action`` if the rest of the game is forced and has no
    chance (so the value is known exactly); None otherwise."""
    after = state.clone()
    after.apply(action)
    while not after.is_terminal():
        legal = after.legal_actions()
        if after.current_player == CHANCE or len(legal) > 1:
            return None
        after.apply(legal[0])
    return _margin(after, seat)


def _known_positions(game_id: str, wanted: int) -> list[tuple[State, int, list[float]]]:
    """Positions of random 2-player games where every action's final margin is known
    exactly, the same for every state the seat cannot tell apart (resamples), with one
    strictly best and one strictly worst action."""
    found: list[tuple[State, int, list[float]]] = []
    game = get_game(game_id)
    for seed in range(60):
        rng = random.Random(seed)
        state = game.new_game(2)
        while not state.is_terminal() and len(found) < wanted:
            player = state.current_player
            if player == CHANCE:
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            legal = state.legal_actions()
            if len(legal) > 1:
                values = [_exact(state, player, a) for a in legal]
                if None not in values and values.count(max(values)) == 1:  # type: ignore[type-var]  # no None here
                    same = all(
                        [_exact(state.resample(player, random.Random(i)), player, a) for a in legal]
                        == values
                        for i in range(4)
                    )
                    if same and values.count(min(values)) == 1:  # type: ignore[type-var]  # no None here
                        found.append((state.clone(), player, [float(v) for v in values]))  # type: ignore[arg-type]  # no None here
            state.apply(legal[rng.randrange(len(legal))])
        if len(found) >= wanted:
            return found
    raise AssertionError(f"no known position found in {game_id}")


@pytest.mark.parametrize("game_id", ["manatee_sanctuary", "zooloretto_mini", "carson_city_zoo"])
def test_known_best_move_is_first_with_zero_loss(game_id: str) -> None:
    analyser = RolloutAnalyser(iterations=2, depth="end")  # exact: played out to the end
    for state, seat, exact in _known_positions(game_id, 2):
        values = evaluate_turn(analyser, state, seat, random.Random(1))
        assert values == exact  # the analyser's values are the exact final margins
        best = exact.index(max(exact))
        worst = exact.index(min(exact))
        assert values.index(max(values)) == best
        losses = [max(values) - v for v in values]
        assert losses[best] == 0.0
        assert max(losses) == losses[worst] > 0


def test_annotation_of_a_known_position_through_a_record(tmp_path: Path, run_cli: Cli) -> None:
    """A record whose last decision has a known best move: the annotation of that step
    has the right best move, zero loss if it was played and the largest loss otherwise."""
    state, seat, exact = _known_positions("manatee_sanctuary", 1)[0]
    best = exact.index(max(exact))
    worst = exact.index(min(exact))
    history = list(state.history)
    legal = state.legal_actions()
    thresholds = RolloutAnalyser(iterations=2).thresholds("manatee_sanctuary")
    for choice in (best, worst):
        played = state.clone()
        played.apply(legal[choice])
        while not played.is_terminal():
            played.apply(played.legal_actions()[0])
        record = _record(played, "manatee_sanctuary")
        k = len(history) + 1
        anns = [a for a in analyse_record(record, RolloutAnalyser(iterations=2)) if a.step == k]
        assert len(anns) == 1
        a = anns[0]
        assert a.seat == seat and a.best == legal[best].text_for(seat, seat)
        assert a.best_value == max(exact) and a.value == exact[choice]
        if choice == best:
            assert a.loss == 0.0 and a.rank == 1 and a.mark is None
        else:
            assert a.loss == max(exact) - min(exact) and a.rank == len(legal)
            assert a.mark == thresholds.mark(a.loss)


def _record(state: State, game_id: str) -> dict[str, object]:
    """A record of a finished state's history (the fields analysis needs)."""
    steps = []
    replay = get_game(game_id).new_game(state.num_players, state.options)
    for action in state.history:
        seat = replay.current_player
        steps.append({"seat": "chance" if seat == CHANCE else seat, "action": action.to_json()})
        replay.apply(action)
    return {
        "format": "menagerie.record/1",
        "game": game_id,
        "game_version": replay.game.version,
        "num_players": state.num_players,
        "options": state.options,
        "players": [{"seat": i, "name": f"bot{i}"} for i in range(state.num_players)],
        "game_id": "known",
        "steps": steps,
        "result": replay.result().to_json(),
    }


def indistinguishable(game_id: str, min_legal: int) -> Iterator[tuple[State, State, int]]:
    """Two positions of one random 2-player game that the seat to move cannot tell apart:
    ``(true state, a resample of what the seat does not see that differs from it, seat)``,
    at decisions with at least ``min_legal`` moves; the walk goes on while asked."""
    game = get_game(game_id)
    rng = random.Random(7)
    state = game.new_game(2)
    found = 0
    while not state.is_terminal():
        player = state.current_player
        if player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        legal = state.legal_actions()
        other = state.resample(player, random.Random(found + 100))
        if len(legal) >= min_legal and other.digest() != state.digest():
            assert other.observation(player) == state.observation(player)
            yield state, other, player
            found += 1
        state.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("game_id", ["carson_city_zoo", "dziobaki", "manatee_sanctuary"])
def test_no_hidden_information_is_read(game_id: str) -> None:
    """Two states the seat cannot tell apart (the true one and a resample of what it does
    not see, which differs from it) get identical values."""
    analyser = RolloutAnalyser(iterations=2, depth=6)
    pairs = itertools.islice(indistinguishable(game_id, 2), 2)
    checked = 0
    for state, other, player in pairs:
        assert evaluate_turn(analyser, state, player, decision_rng(0, "g", 1)) == (
            evaluate_turn(analyser, other, player, decision_rng(0, "g", 1))
        )
        checked += 1
    assert checked == 2  # compared states that really differ in what the seat cannot see


def _play(run_cli: Cli, tmp_path: Path, game: str, bots: str, seed: int) -> Path:
    path = tmp_path / f"{game}-{seed}.json"
    res = run_cli("play", game, "--bots", bots, "--seed", str(seed), "--record", path)
    assert res.exit_code == 0, res.stderr
    return path


def test_reproducible_with_a_seed(tmp_path: Path, run_cli: Cli) -> None:
    record = json.loads(_play(run_cli, tmp_path, "panorama", "random,greedy", 3).read_text())

    def annotations(seed: int, analyser: str) -> list[dict[str, object]]:
        out = []
        for a in analyse_record(record, make_analyser(analyser), seed):
            data = a.to_json()
            del data["ms"]
            out.append(data)
        return out

    first = annotations(5, "rollout:iterations=3")
    assert first and first == annotations(5, "rollout:iterations=3")
    assert annotations(5, "ismcts:iterations=30") == annotations(5, "ismcts:iterations=30")
    values = [a["value"] for a in first]
    assert values != [a["value"] for a in annotations(6, "rollout:iterations=3")]


def test_ismcts_analyser_values_every_action() -> None:
    state, seat, exact = _known_positions("manatee_sanctuary", 1)[0]
    values = evaluate_turn(IsmctsAnalyser(iterations=60), state, seat, random.Random(0))
    assert len(values) == len(exact) and all(0.0 <= v <= 1.0 for v in values)
    assert values.index(max(values)) == exact.index(max(exact))


def test_cli_analyse_sidecar_and_viewer(tmp_path: Path, run_cli: Cli) -> None:
    record = _play(run_cli, tmp_path, "panorama", "random,greedy", 1)
    side = tmp_path / "analysis.jsonl"
    res = run_cli("analyse", record, "--budget", "iterations=2", "--out", side)
    assert res.exit_code == 0, res.stderr
    assert "loss >=" in res.stdout and "per bot" in res.stdout
    anns = read_annotations(side)
    rec = json.loads(record.read_text())
    assert anns and {a.game_id for a in anns} == {rec["game_id"]}
    assert len({a.step for a in anns}) == len(anns)
    for a in anns:  # keyed by step: the record's move at that step is the one annotated
        assert rec["steps"][a.step - 1]["seat"] == a.seat
        if a.loss > 0:  # a measured loss: the best's value minus the played one's
            assert a.loss == pytest.approx(a.best_value - a.value)
        else:  # the best move, or a tie with it (within the analysis's noise)
            assert a.played == a.best or (a.tie and a.played in a.tied)
    # one seat only
    res = run_cli("analyse", record, "--seat", "1", "--budget", "iterations=2")
    assert res.exit_code == 0, res.stderr
    html = tmp_path / "view.html"
    res = run_cli("replay", record, "--html", html, "--analysis", side)
    assert res.exit_code == 0, res.stderr
    page = html.read_text()
    assert 'id="menagerie-analysis"' in page and "eval-graph" in page
    # a seat's own viewer holds that seat's annotations only
    res = run_cli("replay", record, "--html", html, "--seat", "0", "--analysis", side)
    assert res.exit_code == 0, res.stderr
    data = page_analysis(html.read_text())
    assert data and {a["seat"] for a in data["annotations"]} == {0}


def page_analysis(page: str) -> dict[str, list[dict[str, object]]]:
    start = page.index('id="menagerie-analysis">') + len('id="menagerie-analysis">')
    result: dict[str, list[dict[str, object]]] = json.loads(
        page[start : page.index("</script>", start)]
    )
    return result


def test_cli_analyse_many_games_report(tmp_path: Path, run_cli: Cli) -> None:
    journal = tmp_path / "games.jsonl"
    lines = []
    for seed in (1, 2):
        rec = json.loads(_play(run_cli, tmp_path, "panorama", "random,greedy", seed).read_text())
        rec["game_id"] = f"g{seed}"
        lines.append(json.dumps(rec))
    journal.write_text("\n".join(lines) + "\n")
    csv_path = tmp_path / "report.csv"
    side = tmp_path / "all.jsonl"
    res = run_cli("analyse", journal, "--budget", "iterations=2", "--csv", csv_path, "--out", side)
    assert res.exit_code == 0, res.stderr
    rows = csv_path.read_text().splitlines()
    assert rows[0].startswith("bot,decisions,mean_loss,inaccuracy,mistake,blunder")
    assert {r.split(",")[0] for r in rows[1:]} == {"random", "greedy"}
    assert {a.game_id for a in read_annotations(side)} == {"g1", "g2"}
    res = run_cli("analyse", journal, "g2", "--budget", "iterations=2")
    assert res.exit_code == 0 and "game g2" in res.stdout


def test_cli_bad_input(tmp_path: Path, run_cli: Cli) -> None:
    record = _play(run_cli, tmp_path, "panorama", "random,random", 1)
    for args, needle in (
        (("--budget", "ms=50"), "only iterations"),
        (("--bot", "nosuch"), "unknown analyser"),
        (("--bot", "rollout:iterations=0"), "iterations must be 1..100000"),
        (("--budget", "iterations=10000000"), "iterations must be 1..100000"),
        (("--seat", "5"), "--seat must be 0..1"),
    ):
        res = run_cli("analyse", record, *args)
        assert res.exit_code != 0 and needle in res.stderr, (args, res.stderr)
        assert "Traceback" not in res.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "other"}\n')
    res = run_cli("replay", record, "--html", tmp_path / "v.html", "--analysis", bad)
    assert res.exit_code != 0 and "not an analysis line" in res.stderr
    side = tmp_path / "side.jsonl"
    assert run_cli("analyse", record, "--budget", "iterations=1", "--out", side).exit_code == 0
    line = json.loads(side.read_text().splitlines()[0])
    for key, value in (("mark", "<b>"), ("loss", "NaN"), ("step", -1), ("played", 3)):
        bad.write_text(json.dumps({**line, key: value}) + "\n")
        res = run_cli("replay", record, "--html", tmp_path / "v.html", "--analysis", bad)
        assert res.exit_code != 0 and f"{key} must be" in res.stderr, res.stderr
    res = run_cli("replay", record, "--analysis", bad)
    assert res.exit_code != 0 and "--html" in res.stderr
