"""Evaluation of a record's decisions, each from the information its seat had.

:func:`analyse_record` replays the record's steps on a fresh game (``replay_states``) and,
at every decision with more than one legal action, builds the seat's
:class:`bots.base.Turn` with ``Turn.of(state, seat, rng)``. The Turn holds the seat's
observation and legal actions only, so the analyser (:mod:`arena.analysis.analysers`) can
reach nothing the seat could not see: determinizations come from ``turn.determinize``,
which rebuilds a state from the observation. The true state is used for one thing, as
the runner uses it: to know whose turn it is and to apply the recorded step.

The analyser's :class:`~arena.analysis.analysers.Evaluation` (``evaluate(turn, played)``
when it has one, else built from its plain ``values``) gives each annotation its
standard error and its ties: a move within the noise of the best is a **tie** (loss 0,
``tie`` true), never a mistake, and the moves tied with the best are listed (``tied``), so
two analyses that name different best moves inside each other's interval agree.

The RNG of a decision is seeded from the analysis seed, the game id and the step number
alone (nothing hidden), so the same game, analyser, budget and seed give the same
annotations, and two positions a seat cannot tell apart give the same annotation.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from arena.analysis.analysers import Analyser, Evaluation
from arena.match.records import replay_states
from bots.base import Turn
from engine import CHANCE, State

FORMAT = "menagerie.analysis/1"
PHASES = ("early", "mid", "late")
MARKS = ("inaccuracy", "mistake", "blunder")
"""The marks, from the smallest loss up (:class:`arena.analysis.analysers.Thresholds`)."""
EPSILON = 1e-9
"""Values closer than this are ties (float noise of averaging)."""


@dataclass(frozen=True)
class Annotation:
    """The evaluation of one decision: the move played against the best one."""

    game_id: str
    """The record's ``game_id``."""
    step: int
    """The step number: the move is ``record["steps"][step - 1]``, played in state
    ``step - 1`` (the viewer's numbering: state ``k`` is after ``k`` steps)."""
    seat: int
    """The seat that moved."""
    player: str
    """That seat's bot name in the record."""
    phase: str
    """``early``, ``mid`` or ``late``: the third of the game's steps the move falls in."""
    played: str
    """The move played, as the seat reads it."""
    value: float
    """Its value, in :attr:`unit`."""
    best: str
    """The best-valued move (the first in the engine's order on ties)."""
    best_value: float
    """Its value: the evaluation of the position for the seat."""
    loss: float
    """``best_value - value`` (regret, never negative)."""
    rank: int
    """The played move's rank among the legal moves (1 = best; ties share a rank)."""
    legal: int
    """Number of legal moves."""
    mark: str | None
    """``inaccuracy``, ``mistake``, ``blunder`` or None, by the game's thresholds."""
    unit: str
    """What the values mean (the analyser's unit)."""
    analyser: str
    """The analyser and its budget, e.g. ``rollout:iterations=8``."""
    seed: int
    """The analysis seed."""
    ms: float
    """Analysis time of this decision (not part of the reproducible content)."""
    loss_se: float | None = None
    """Standard error of the measured difference between the best move and the move
    played (None: the analyser gives none; files written before it was added)."""
    value_se: float | None = None
    """Standard error of ``value`` (None: the analyser gives none; older files)."""
    tie: bool = False
    """The move played is not the best but within the noise of it (its loss is 0)."""
    tied: tuple[str, ...] = ()
    """The moves within the noise of the best (the move played among them when ``tie``):
    another analysis naming one of them as best agrees with this one."""
    evaluated: int = 0
    """Moves played out (fewer than ``legal`` when the analyser pruned; 0: not said)."""

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Annotation:
        """The annotation of a sidecar line; ValueError (or KeyError) says what is wrong:
        a file from elsewhere is checked before the viewer shows it."""
        fields = cls.__dataclass_fields__
        optional = {"loss_se": None, "value_se": None, "tie": False, "tied": (), "evaluated": 0}
        values = {k: data.get(k, optional[k]) if k in optional else data[k] for k in fields}
        for k in ("step", "seat", "rank", "legal", "seed", "evaluated"):
            if not isinstance(values[k], int) or isinstance(values[k], bool) or values[k] < 0:
                raise ValueError(f"{k} must be a non-negative integer, got {values[k]!r}")
        for k in ("value", "best_value", "loss", "ms"):
            v = values[k]
            if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
                raise ValueError(f"{k} must be a finite number, got {v!r}")
        for k in ("game_id", "player", "played", "best", "unit", "analyser"):
            if not isinstance(values[k], str):
                raise ValueError(f"{k} must be a string, got {values[k]!r}")
        for k in ("loss_se", "value_se"):
            se = values[k]
            if se is not None and (
                not isinstance(se, int | float) or isinstance(se, bool) or not math.isfinite(se)
            ):
                raise ValueError(f"{k} must be null or a finite number, got {se!r}")
        if not isinstance(values["tie"], bool):
            raise ValueError(f"tie must be true or false, got {values['tie']!r}")
        tied = values["tied"]
        if not isinstance(tied, list | tuple) or not all(isinstance(t, str) for t in tied):
            raise ValueError(f"tied must be a list of strings, got {tied!r}")
        values["tied"] = tuple(tied)
        if values["phase"] not in PHASES:
            raise ValueError(f"phase must be one of {', '.join(PHASES)}, got {values['phase']!r}")
        if values["mark"] not in (None, *MARKS):
            raise ValueError(f"mark must be null or one of {', '.join(MARKS)}")
        return cls(**values)


def decision_rng(seed: int, game_id: str, step: int) -> random.Random:
    """The RNG of one decision: from public facts only (see the module docstring)."""
    return random.Random(f"menagerie-analysis:{seed}:{game_id}:{step}")


def evaluate_turn(analyser: Analyser, state: State, seat: int, rng: random.Random) -> list[float]:
    """The analyser's values of ``seat``'s legal actions in ``state``, computed from
    ``Turn.of`` (the seat's information only)."""
    return checked_values(analyser, Turn.of(state, seat, rng))


def checked_values(analyser: Analyser, turn: Turn) -> list[float]:
    """``analyser.values(turn)`` as floats, one per legal action (ValueError otherwise)."""
    values = analyser.values(turn)
    if len(values) != len(turn.legal):
        raise ValueError(
            f"analyser {analyser.name} gave {len(values)} values for {len(turn.legal)} actions"
        )
    return [float(v) for v in values]


def evaluate_decision(
    analyser: Analyser, state: State, seat: int, rng: random.Random, played: int
) -> Evaluation:
    """The analyser's evaluation of ``seat``'s decision in ``state`` where it played
    action ``played`` (an index of the legal actions), computed from ``Turn.of`` (the
    seat's information only): its ``evaluate`` if it has one, else its plain values (the
    best is the highest, the first in the engine's order on ties; no standard error)."""
    turn = Turn.of(state, seat, rng)
    n = len(turn.legal)
    evaluate = getattr(analyser, "evaluate", None)
    if callable(evaluate):
        ev = evaluate(turn, played)
        if not isinstance(ev, Evaluation) or len(ev.values) != n or not 0 <= ev.best < n:
            raise ValueError(f"analyser {analyser.name} gave a bad evaluation for {n} actions")
        return ev
    values = checked_values(analyser, turn)
    b = max(range(n), key=lambda j: (values[j], -j))
    loss = values[b] - values[played]
    tied = [j for j in range(n) if j != b and values[b] - values[j] < EPSILON]
    return Evaluation(
        values=values,
        stderrs=[None] * n,
        samples=[0] * n,
        best=b,
        best_value=values[b],
        value=values[played],
        loss=0.0 if loss < EPSILON else loss,
        loss_se=None,
        value_se=None,
        tied=tied,
    )


def analyser_label(analyser: Analyser, game: str) -> str:
    """The analyser with the settings in effect for ``game`` (its ``describe(game)``, else
    its budget), e.g. ``rollout:iterations=16,depth=end,epsilon=0.25,top_k=all``."""
    describe = getattr(analyser, "describe", None)
    return f"{analyser.name}:{describe(game) if callable(describe) else analyser.budget}"


def phase_of(step: int, total: int) -> str:
    """The third of a game of ``total`` steps that step ``step`` (1-based) falls in."""
    return PHASES[min(2, (step - 1) * 3 // max(1, total))]


def analyse_record(
    record: Mapping[str, Any],
    analyser: Analyser,
    seed: int = 0,
    seat: int | None = None,
    progress: Callable[[Annotation], None] | None = None,
) -> Iterator[Annotation]:
    """Annotations of ``record``'s decisions (of ``seat`` only, if given), in step order.

    Forced moves (one legal action) are not annotated. RecordError if the record does not
    replay.
    """
    import time

    game_id = str(record.get("game_id") or "")
    steps = record["steps"]
    total = len(steps)
    names = [str(p.get("name", f"seat {i}")) for i, p in enumerate(record.get("players") or [])]
    thresholds = analyser.thresholds(str(record["game"]))
    label = analyser_label(analyser, str(record["game"]))
    for k, state in replay_states(record):
        if k >= total:
            break
        player = state.current_player
        if player == CHANCE or player < 0 or (seat is not None and player != seat):
            continue
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        played_action = state.game.action_from_json(steps[k]["action"])
        i = legal.index(played_action)
        t0 = time.perf_counter()
        ev = evaluate_decision(analyser, state, player, decision_rng(seed, game_id, k + 1), i)
        ms = (time.perf_counter() - t0) * 1000
        b = ev.best
        tie = i != b and i in ev.tied
        mine = ev.values[i]
        rank = 1 if i == b or tie else 1 + sum(1 for v in ev.values if v > mine + EPSILON)
        ann = Annotation(
            game_id=game_id,
            step=k + 1,
            seat=player,
            player=names[player] if player < len(names) else f"seat {player}",
            phase=phase_of(k + 1, total),
            played=played_action.text_for(player, player),
            value=ev.value,
            best=legal[b].text_for(player, player),
            best_value=ev.best_value,
            loss=ev.loss,
            rank=rank,
            legal=len(legal),
            mark=thresholds.mark(ev.loss) if ev.loss > 0 else None,
            unit=analyser.unit,
            analyser=label,
            seed=seed,
            ms=ms,
            loss_se=ev.loss_se,
            value_se=ev.value_se,
            tie=tie,
            tied=tuple(legal[j].text_for(player, player) for j in ev.tied if j != i or tie),
            evaluated=sum(1 for c in ev.samples if c > 0) or len(legal),
        )
        if progress is not None:
            progress(ann)
        yield ann
