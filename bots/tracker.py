"""Rebuild a full engine state from what a remote seat observes (for search bots on the wire).

Over gRPC a bot only receives, at each of its turns, its observation, the legal actions
and the number of steps played so far; search bots need a full :class:`~engine.State`
(to ``resample`` determinizations from). :class:`StateTracker` keeps one that is
consistent with everything the seat has seen, without knowing the engine's internals:

* it starts from ``game.new_game(players, options)`` and replays its own moves;
* at each turn it searches for the steps it did not see (chance outcomes and the other
  seats' moves; their number is known) such that the resulting state shows exactly the
  received observation, with the same legal actions. The search is a beam search, step
  by step, keeping the states whose observation is closest to the received one (leaves
  that differ, and labels such as tile or card ids that appear nowhere yet); a chance
  outcome that would show a label the seat never saw is tried only when nothing else
  fits;
* when no continuation of its state fits (a hidden choice made earlier, such as the
  other seats' secret commitments or a covered card, turned out otherwise), it searches
  again from an earlier point of its history (backing off 2, 4, 8, ... steps, up to the
  start of the game), and from resampled versions of its state.

Any state found is a determinization consistent with the seat's observation, and the
search bot then draws its own determinizations from it with ``resample(seat)``. When no
state is found within the budget, :meth:`StateTracker.sync` returns None and the caller
falls back to a simple move; the next turn tries again.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine import CHANCE, Action, Game, State
from engine.core import JSON

_MISSING = object()


def flatten(value: Any, prefix: str = "", out: dict[str, Any] | None = None) -> dict[str, Any]:
    """Leaves of a JSON value keyed by their path (lists by index, with their length).

    >>> flatten({"a": [1, {"b": 2}]})
    {'a#': 2, 'a.0': 1, 'a.1.b': 2}
    """
    if out is None:
        out = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(value, list | tuple):
        out[prefix + "#"] = len(value)
        for i, v in enumerate(value):
            flatten(v, f"{prefix}.{i}", out)
    else:
        out[prefix] = value
    return out


def distance(leaves: Mapping[str, Any], target: Mapping[str, Any]) -> int:
    """How many leaves differ between two flattened observations."""
    diff = sum(1 for k, v in target.items() if leaves.get(k, _MISSING) != v)
    return diff + sum(1 for k in leaves if k not in target)


def guide(leaves: Mapping[str, Any], target: Mapping[str, Any], want: Counter[str]) -> float:
    """The search's distance to the target observation: differing leaves, where a label
    (a tile or card id) in the wrong place counts only half, plus the labels still
    missing altogether. A tile seen at one place may well have been elsewhere earlier
    (a drawn tile on a truck that a rival took since), so its place is weak evidence,
    its presence strong evidence."""
    diff = 0.0
    for k, v in target.items():
        if leaves.get(k, _MISSING) != v:
            diff += 0.5 if isinstance(v, str) else 1.0
    diff += sum(1 for k in leaves if k not in target)
    return diff + missing_labels(labels(leaves), want)


def labels(leaves: Mapping[str, Any]) -> Counter[str]:
    """The multiset of string values of a flattened observation (ids of tiles, cards...)."""
    return Counter(v for v in leaves.values() if isinstance(v, str) and v)


def missing_labels(have: Counter[str], want: Counter[str]) -> int:
    """How many labels of ``want`` are not (yet) anywhere in ``have``: a drawn tile that
    ends up in a rival's zoo is evidence for the draw long before its place matches."""
    return sum((want - have).values())


class StateTracker:
    """A full state consistent with one seat's observations (see the module docstring)."""

    def __init__(
        self,
        game: Game,
        num_players: int,
        options: Mapping[str, JSON] | None,
        seat: int,
        rng: random.Random | None = None,
        budget: int = 3000,
        beam: int = 24,
        max_ties: int = 64,
        max_gap: int = 400,
    ) -> None:
        self.game = game
        self.num_players = num_players
        self.options = dict(options or {})
        self.seat = seat
        self.rng = rng or random.Random(0)
        self.budget = budget
        self.beam = beam
        self.max_ties = max_ties
        self.max_gap = max_gap
        self.state: State = game.new_game(num_players, self.options)
        self.own: dict[int, Action] = {}
        """The seat's own moves by step number (they constrain every search)."""
        self.failures = 0
        self._deadline = math.inf

    def sync(
        self,
        observation: Mapping[str, JSON],
        step: int | None = None,
        legal: Sequence[JSON] | None = None,
        deadline: float | None = None,
    ) -> State | None:
        """A state whose ``observation(seat)`` is ``observation``, after ``step`` steps
        (when known; else after as few unseen steps as fit, at most ``max_gap``).

        ``legal`` (the legal actions as JSON, if known) must match too. Returns None when
        no such state was found within the budget (or by ``deadline``, a
        ``time.perf_counter()`` value).
        """
        self._deadline = deadline if deadline is not None else math.inf
        target = flatten(observation)
        wanted = [dict(a) for a in legal] if legal is not None else None
        if self._fits(self.state, step, target, wanted):
            return self.state
        for start in self._starts(step):
            found = self._search(start, step, target, wanted)
            if found is not None:
                self.state = found
                return found
            if time.perf_counter() > self._deadline:
                break
        self.failures += 1
        return None

    def played(self, action: Action, step: int) -> None:
        """Record the seat's own move at ``step`` (call after answering a turn)."""
        self.own[step] = action
        state = self.state
        mine = len(state.history) == step and state.current_player == self.seat
        if mine and state.is_legal(action):
            state.apply(action)

    # -- search ---------------------------------------------------------------

    def _fits(
        self,
        state: State,
        step: int | None,
        target: Mapping[str, Any],
        wanted: list[dict[str, Any]] | None,
    ) -> bool:
        if step is not None and len(state.history) != step:
            return False
        if state.current_player != self.seat:
            return False
        if distance(flatten(state.observation(self.seat)), target) != 0:
            return False
        return wanted is None or [a.to_json() for a in state.legal_actions()] == wanted

    def _starts(self, step: int | None) -> Iterator[State]:
        """Where to search from: the tracked state, earlier points of its history, and
        resampled versions of it."""
        history = list(self.state.history)
        limit = len(history) if step is None else min(len(history), step)
        tried: set[int] = set()
        back = 0
        while True:
            keep = max(0, limit - back)
            if keep not in tried:
                tried.add(keep)
                yield self._replay(history[:keep])
            if keep == 0:
                break
            back = 2 if back == 0 else back * 2
        for _ in range(3):
            if self.state.current_player == self.seat:
                yield self.state.resample(self.seat, self.rng)

    def _replay(self, steps: Sequence[Action]) -> State:
        state = self.game.new_game(self.num_players, self.options)
        for s in steps:
            state.apply(s)
        return state

    def _moves(self, state: State) -> list[Action]:
        depth = len(state.history)
        if state.current_player == CHANCE:
            return [o for o, p in state.chance_outcomes() if p > 0]
        if state.current_player == self.seat and depth in self.own:
            mine = self.own[depth]
            return [mine] if state.is_legal(mine) else []
        return state.legal_actions()

    def _search(
        self,
        start: State,
        step: int | None,
        target: Mapping[str, Any],
        wanted: list[dict[str, Any]] | None,
    ) -> State | None:
        """Beam search for the unseen steps from ``start`` (to exactly ``step`` steps when
        given, else to the first depth where a state fits)."""
        first = len(start.history)
        if step is not None and first > step:
            return None
        last = step if step is not None else first + self.max_gap
        want = labels(target)
        counter = itertools.count()
        level: list[tuple[float, State]] = [(guide(_leaves(start, self.seat), target, want), start)]
        expanded = 0
        while level and expanded < self.budget and time.perf_counter() < self._deadline:
            depth = len(level[0][1].history)
            if step is None or depth == step:
                for d, state in level:
                    if d == 0 and self._fits(state, step, target, wanted):
                        return state
            if depth >= last:
                return None
            scored: list[tuple[float, int, State]] = []
            for _, state in level:
                if state.is_terminal():
                    continue
                if time.perf_counter() > self._deadline:
                    return None
                expanded += 1
                children: list[tuple[float, bool, State]] = []
                for move in self._moves(state):
                    child = state.clone()
                    child.apply(move)
                    leaves = _leaves(child, self.seat)
                    alien = any(label not in want for label in labels(leaves))
                    children.append((guide(leaves, target, want), alien, child))
                # an outcome showing something the seat never saw is unlikely when
                # others show nothing new (a revealed tile stays in view)
                plain = [c for c in children if not c[1]]
                for d, _, child in plain or children:
                    scored.append((d, next(counter), child))
            if not scored:
                return None
            # keep the states tied for the best distance (a hidden choice that cannot be
            # told apart yet; a random sample if too many), then the next best up to the
            # beam width
            best = min(d for d, _, _ in scored)
            ties = [(d, c) for d, _, c in scored if d <= best]
            if len(ties) > self.max_ties:
                ties = self.rng.sample(ties, self.max_ties)
            rest = heapq.nsmallest(self.beam, [x for x in scored if x[0] > best])
            level = ties + [(d, c) for d, _, c in rest][: max(0, self.beam - len(ties))]
        return None


def _leaves(state: State, seat: int) -> dict[str, Any]:
    return flatten(state.observation(seat))
