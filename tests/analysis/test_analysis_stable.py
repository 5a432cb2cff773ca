"""The trustworthy analysis (``RolloutAnalyser.evaluate``): ties are reported as ties,
every measured loss has a standard error and exceeds its noise, the heuristic's pruning
keeps the known best move, racing spends the budget on the close moves, the stability
figure counts ties, and nothing hidden is read."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.analysis.analysers import RolloutAnalyser, Z, make_analyser
from arena.analysis.evaluate import Annotation, analyse_record, decision_rng, evaluate_decision
from arena.analysis.measure import stability
from bots.base import Turn
from engine import CHANCE, State, get_game
from engine.core import sample_outcome
from tests.analysis.test_analysis import _record, indistinguishable


def _final_placements(seeds: range) -> Iterator[tuple[int, State, list[float]]]:
    """Solo Dziobaki decisions at the last placement (the game ends with it, so every
    action's final score is known exactly): ``(seed, state, each action's final score)``,
    from one random game per seed."""
    game = get_game("dziobaki")
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_game(1)
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            legal = state.legal_actions()
            exact: list[float] = []
            for a in legal:
                after = state.clone()
                after.apply(a)
                if not after.is_terminal():
                    break
                exact.append(float(after.result().scores[0]))
            else:
                yield seed, state.clone(), exact
            state.apply(legal[rng.randrange(len(legal))])


def _last_placements(seeds: range) -> list[tuple[State, list[float]]]:
    """Last placements (:func:`_final_placements`) with one strictly best action."""
    out = [(s, e) for _, s, e in _final_placements(seeds) if e.count(max(e)) == 1]
    assert out, "no last placement with a unique best move"
    return out


def test_pruning_keeps_the_known_best_move() -> None:
    """With the heuristic keeping 2 of the last placement's actions, the exact best is
    kept and ranked first with zero loss; the move played is always evaluated (a pruned
    one would have no value), and pruned moves rank below every evaluated one."""
    analyser = RolloutAnalyser(iterations=4, top_k=2)
    positions = _last_placements(range(12))
    for state, exact in positions[:4]:
        legal = state.legal_actions()
        assert len(legal) > 2  # something is pruned
        best = exact.index(max(exact))
        worst = exact.index(min(exact))
        ev = evaluate_decision(analyser, state, 0, random.Random(3), best)
        assert ev.best == best and ev.loss == 0.0 and ev.best_value == max(exact)
        assert sum(1 for c in ev.samples if c > 0) == 2
        ev = evaluate_decision(analyser, state, 0, random.Random(3), worst)
        assert ev.best == best and ev.samples[worst] > 0  # the move played is evaluated
        assert ev.loss == max(exact) - min(exact) and ev.loss_se == 0.0
        evaluated = [v for v, c in zip(ev.values, ev.samples, strict=True) if c > 0]
        pruned = [v for v, c in zip(ev.values, ev.samples, strict=True) if c == 0]
        assert pruned and max(pruned) < min(evaluated)


def test_ties_are_reported_as_ties(tmp_path: Path) -> None:
    """At a last placement where two actions end the game with the same score, playing
    the one the analysis did not name is a tie: loss 0, no mark, rank 1, listed in
    ``tied``; in the annotation too."""
    found: set[int] = set()
    for seed, state, finals in _final_placements(range(40)):
        if seed in found or finals.count(max(finals)) < 2:
            continue
        top = [i for i, v in enumerate(finals) if v == max(finals)]
        analyser = RolloutAnalyser(iterations=4)
        ev = evaluate_decision(analyser, state, 0, random.Random(1), top[0])
        other = next(i for i in top if i != ev.best)
        ev = evaluate_decision(analyser, state, 0, random.Random(1), other)
        assert ev.best != other and other in ev.tied and ev.loss == 0.0
        played = state.clone()
        played.apply(state.legal_actions()[other])
        anns = list(analyse_record(_record(played, "dziobaki"), analyser))
        ann = anns[-1]
        assert ann.tie and ann.loss == 0.0 and ann.mark is None and ann.rank == 1
        assert ann.played in ann.tied and ann.best != ann.played
        back = Annotation.from_json(json.loads(json.dumps(ann.to_json())))
        assert back == ann
        found.add(seed)
        if len(found) >= 2:
            return
    raise AssertionError("no tied last placement found")


def _panorama_record() -> dict[str, Any]:
    """A random 2-player Panorama game."""
    rng = random.Random(11)
    state = get_game("panorama").new_game(2)
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
        else:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    return _record(state, "panorama")


def test_every_loss_has_a_standard_error_and_exceeds_it() -> None:
    """On a real game: every annotation carries the loss's standard error when the move
    played was not the best, a reported loss exceeds Z of them, a loss within the noise
    is a tie (0, no mark), and the figures survive the sidecar round trip."""
    analyser = make_analyser("rollout", "iterations=6")
    anns = list(analyse_record(_panorama_record(), analyser))
    assert len(anns) > 10
    differ = [a for a in anns if a.played != a.best]
    assert differ
    for a in differ:
        assert a.loss_se is not None and a.loss_se >= 0.0
        if a.loss > 0:
            assert a.loss > Z * a.loss_se and not a.tie
            assert a.loss == a.best_value - a.value or abs(a.loss - (a.best_value - a.value)) < 1e-9
        else:
            assert a.tie and a.mark is None and a.rank == 1 and a.played in a.tied
    assert any(a.loss > 0 for a in anns)  # random play loses somewhere
    assert all(a.value_se is not None and a.value_se >= 0.0 for a in anns)
    assert any(a.value_se for a in anns)  # playouts to the end are noisy: said so
    for a in anns:
        assert Annotation.from_json(json.loads(json.dumps(a.to_json()))) == a
        assert a.analyser.startswith("rollout:iterations=6,depth=end,epsilon=")


def test_racing_drops_clearly_worse_moves() -> None:
    """Racing: on a decision with many moves, some are dropped after the minimum
    samples and the best gets more samples than they do (the budget went to it)."""
    rng = random.Random(5)
    state = get_game("manatee_sanctuary").new_game(2)
    checked = 0
    analyser = RolloutAnalyser(iterations=8)
    while not state.is_terminal() and checked < 3:
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
            continue
        legal = state.legal_actions()
        if len(legal) >= 4:
            seat = state.current_player
            ev = analyser.evaluate(Turn.of(state, seat, random.Random(checked)), None)
            assert min(ev.samples) >= 4  # every move had the minimum before any was dropped
            assert ev.samples[ev.best] == max(ev.samples)
            if min(ev.samples) < ev.samples[ev.best]:
                checked += 1
        state.apply(legal[rng.randrange(len(legal))])
    assert checked == 3  # some decisions really dropped moves early


def _ann(step: int, best: str, tied: tuple[str, ...] = ()) -> Annotation:
    return Annotation(
        "g", step, 0, "b", "early", "x", 0.0, best, 0.0, 0.0, 1, 3, None, "u", "a", 0, 1.0,
        tied=tied,
    )  # fmt: skip


def test_stability_counts_ties_as_agreement() -> None:
    first = [_ann(1, "a"), _ann(2, "a", ("b",)), _ann(3, "a"), _ann(4, "a")]
    second = [_ann(1, "a"), _ann(2, "b"), _ann(3, "c", ("a",)), _ann(4, "d")]
    agree, close, tied = stability(first, second)
    assert (agree, close, tied) == (0.25, 0.75, 0.25)


def test_evaluation_reads_no_hidden_information() -> None:
    """Two states the seat cannot tell apart give the same full evaluation (pruning,
    racing, the fresh samples of the loss)."""
    analyser = RolloutAnalyser(iterations=4, top_k=3)
    checked = 0
    for state, other, player in itertools.islice(indistinguishable("carson_city_zoo", 4), 2):
        a = evaluate_decision(analyser, state, player, decision_rng(0, "g", 1), 0)
        b = evaluate_decision(analyser, other, player, decision_rng(0, "g", 1), 0)
        assert a == b
        checked += 1
    assert checked == 2
