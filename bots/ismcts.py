"""``ismcts``: single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).

One tree is grown for the observer's information set. Every iteration draws a
determinization with ``Turn.determinize(rng)`` (a full state consistent with what the seat
knows, drawn from its observation with the engine's ``from_observation`` and
``resample``; the bot never sees the true state), descends the tree choosing among the
children that are legal in that determinization by UCB1 with availability counts (a
child's exploration term uses the number of iterations in which it was available, not
its parent's visits), expands one untried legal action, plays a rollout and backs up a
reward vector (one reward per seat; each node accumulates the reward of the seat that
acted there).

* **Chance is explicit**: at a chance node of the determinization the outcome is sampled
  with the engine's probabilities and the tree branches on it, so decisions below it
  (e.g. which truck to load after a draw) are conditioned on what was drawn.
* **Rollouts** follow the game heuristic's cheap policy (``rollout=policy``, the default)
  or uniform random moves (``rollout=random``) for at most ``depth`` decisions (default:
  the heuristic's ``rollout_depth``, tuned per game), then the position is scored with
  the heuristic's estimate of every seat's final score; a terminal position is scored
  with its result. A rollout still running at the deadline is cut off there.
* **Rewards** are normalised to [0, 1] (:mod:`bots.rewards`): half standing among the
  seats, half the margin over the best rival squashed at the game's scale (optionally
  mixed with the own score against the others' average, ``own``). In a game
  where no seat can affect another's score (the heuristic says ``solitaire``, e.g.
  Dziobaki) each seat is rewarded by its own squashed score, and the other seats' moves
  are played at random without branching the tree (they cannot matter to the observer).
* **Budget**: ``ismcts:iterations=N`` (reproducible) or ``ismcts:ms=M`` (wall clock,
  checked every iteration; the bot stops when one more iteration of average length would
  pass the budget, so it overruns by at most about one iteration). With both, whichever
  comes first. The match's per-move limit, when given, caps the budget at 80 %.
* The move played is the most visited root child (ties: better mean reward, then the
  turn's RNG), so the bot is deterministic given its seed and an iteration budget.
* **Progressive widening and bias**: the root's actions are ranked by the greedy bot's
  one-step values (``prior=greedy``; ``prior=none`` to skip), other nodes' by the
  heuristic's cheap ``prior`` where it has one; only the best ``2 + widen * sqrt(visits)``
  are searched, best-ranked first, so wide decisions (100 placements) get a focused
  search. At the root the greedy value also adds a progressive bias
  ``bias * (1 + tanh((value - best) / scale)) / (visits + 1)`` to UCB, which fades as
  the search gathers evidence. A node keeps its ranking while the determinizations offer
  it the same legal actions (the usual case), so a wide node is not re-sorted per visit.

Options: ``iterations`` (default 400 when neither budget is given), ``ms``, ``c`` (UCB
exploration; default: the heuristic's ``exploration``, tuned per game), ``depth``
(rollout decisions before the cutoff; default: the heuristic's ``rollout_depth``),
``rollout`` (``policy`` or ``random``), ``widen`` (default 1; 0 searches every action),
``prior`` (``greedy`` or ``none``), ``bias`` (default: the heuristic's ``root_bias``; 0
disables), ``own`` (share of the reward for the own score; default: the heuristic's
``own_weight``).
"""

from __future__ import annotations

import math
import random
import time

from bots.base import Turn
from bots.greedy import action_values
from bots.heuristics import Heuristic, heuristic_for
from bots.rewards import rewards
from engine import CHANCE, TERMINAL, Action, State
from engine.core import sample_outcome

DEFAULT_ITERATIONS = 400


class Node:
    """A tree node: the edge ``action`` taken by ``player`` from ``parent`` leads here."""

    __slots__ = (
        "action",
        "avails",
        "bias",
        "children",
        "first",
        "kids",
        "parent",
        "player",
        "prior",
        "ranked",
        "ranked_for",
        "reward",
        "visits",
    )

    def __init__(
        self, parent: Node | None, action: Action | None, player: int, bias: float = 0.0
    ) -> None:
        self.parent = parent
        self.action = action
        self.player = player
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.avails = 1
        self.reward = 0.0
        self.bias = bias
        """Progressive-bias weight of this root child (0 below the root), looked up once
        when the child is made instead of once per visit."""
        self.prior: dict[Action, float] | None = None
        """Prior score of the actions seen at this decision node (None: not ranked, or
        only :attr:`first` so far)."""
        self.first: tuple[list[Action], list[float]] | None = None
        """The legal actions of the node's first ranking and their prior scores, kept as
        two lists: :attr:`prior` is made from them only when a determinization offers
        other actions here (rarely), which saves hashing every action of a new wide node
        (100 placements) once more."""
        self.ranked: list[Action] | None = None
        """``ranked_for`` sorted by prior, best first (the last ranking made here)."""
        self.kids: list[Node | None] = []
        """The child of each action of ``ranked``, in that order (None: not expanded yet),
        kept with the ranking, so a visit reads its candidates' children off a list
        instead of hashing each candidate action."""
        self.ranked_for: list[Action] | None = None
        """The legal actions ``ranked`` was made for. Most determinizations offer the same
        actions at a node (engines intern their action objects, so comparing the lists is
        mostly identity checks), and reusing the ranking then saves hashing every legal
        action twice per visit, the largest cost of a wide node (100 placements)."""


class IsmctsBot:
    """Single-observer ISMCTS with explicit chance nodes (see the module docstring)."""

    name = "ismcts"
    version = "1"

    def __init__(
        self,
        iterations: int | None = None,
        ms: float | None = None,
        c: float | None = None,
        depth: int | None = None,
        rollout: str = "policy",
        widen: float = 1.0,
        prior: str = "greedy",
        bias: float | None = None,
        own: float | None = None,
    ) -> None:
        if iterations is None and ms is None:
            iterations = DEFAULT_ITERATIONS
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be >= 1")
        if ms is not None and ms <= 0:
            raise ValueError("ms must be > 0")
        if rollout not in ("policy", "random"):
            raise ValueError("rollout must be 'policy' or 'random'")
        self.iterations = iterations
        self.ms = float(ms) if ms is not None else None
        self.c = None if c is None else float(c)
        self.depth = None if depth is None else int(depth)
        self.rollout = rollout
        if prior not in ("greedy", "none"):
            raise ValueError("prior must be 'greedy' or 'none'")
        self.widen = float(widen)
        self.prior = prior
        self.bias = None if bias is None else float(bias)
        self.own = None if own is None else float(own)
        self._root_bias: dict[Action, float] = {}
        self.last_iterations = 0
        """Iterations run for the last decision (for benchmarks)."""

    def choose(self, turn: Turn) -> int:
        legal = turn.legal
        if len(legal) == 1:
            self.last_iterations = 0
            return 0
        budget_ms = self.ms
        if turn.time_left_ms is not None:
            cap = 0.8 * turn.time_left_ms
            budget_ms = cap if budget_ms is None else min(budget_ms, cap)
        root = self.search(turn, budget_ms)
        return self._best(root, legal, turn.rng)

    def search(self, turn: Turn, budget_ms: float | None) -> Node:
        """Grow the tree for ``turn`` within the iteration and time budgets."""
        h = heuristic_for(turn.game.id)
        rng = turn.rng
        root = Node(None, None, -1)
        self._root_bias = {}
        start = time.perf_counter()
        deadline = start + budget_ms / 1000.0 if budget_ms is not None else math.inf
        if self.prior == "greedy" and self.widen > 0 and len(turn.legal) > 2:
            values = action_values(turn, h, h.samples, 1, None, rng)
            root.prior = dict(zip(turn.legal, values, strict=True))
            weight = h.root_bias if self.bias is None else self.bias
            if weight > 0:
                top = max(values)
                self._root_bias = {
                    a: weight * (1.0 + math.tanh((v - top) / h.scale))
                    for a, v in zip(turn.legal, values, strict=True)
                }
        limit = self.iterations if self.iterations is not None else 1 << 62
        done = 0
        while done < limit:
            if done:
                now = time.perf_counter()
                # stop when one more iteration of average length would pass the deadline
                if now + (now - start) / done > deadline:
                    break
            state = turn.determinize(rng)
            self._iterate(root, state, turn.seat, h, rng, deadline)
            done += 1
        self.last_iterations = done
        return root

    def _iterate(
        self,
        root: Node,
        state: State,
        seat: int,
        h: Heuristic,
        rng: random.Random,
        deadline: float,
    ) -> None:
        node = root
        c = h.exploration if self.c is None else self.c
        solitaire = h.solitaire
        # selection and expansion
        while True:
            player = state.current_player
            if player == TERMINAL:
                break
            if player == CHANCE:
                outcome = sample_outcome(state.chance_outcomes(), rng)
                child = node.children.get(outcome)
                if child is None:
                    child = node.children[outcome] = Node(node, outcome, CHANCE)
                state.apply(outcome)
                node = child
                continue
            legal = state.legal_actions()
            if solitaire and player != seat:
                # the other seats' moves cannot change this seat's score: no branching
                state.apply(legal[rng.randrange(len(legal))])
                continue
            children = node.children
            candidates = self._candidates(node, state, legal, h, rng)
            # the untried candidates are those without a child; ranked candidates are a
            # prefix of ``node.ranked``, whose children ``node.kids`` lists in order
            # (unranked: one lookup per candidate)
            ranked = candidates is not legal
            kids = node.kids[: len(candidates)] if ranked else [children.get(a) for a in candidates]
            if None in kids:
                # ranked candidates: expand the best-ranked untried one; else at random
                if node.prior is not None or node.first is not None:
                    i = kids.index(None)
                else:
                    untried = [i for i, ch in enumerate(kids) if ch is None]
                    i = untried[rng.randrange(len(untried))]
                action = candidates[i]
                bias = self._root_bias.get(action, 0.0) if node is root else 0.0
                child = children[action] = Node(node, action, player, bias)
                if ranked:
                    node.kids[i] = child
                node = child
                state.apply(action)
                break
            best: Node | None = None
            best_ucb = -math.inf
            at_root = node is root and bool(self._root_bias)
            for ch in kids:
                assert ch is not None
                ch.avails += 1
                ucb = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avails) / ch.visits)
                if at_root:
                    ucb += ch.bias / (ch.visits + 1)
                if ucb > best_ucb:
                    best_ucb, best = ucb, ch
            assert best is not None and best.action is not None
            state.apply(best.action)
            node = best
        # rollout and evaluation
        values = self._rollout(state, h, rng, deadline)
        # backpropagation
        walk: Node | None = node
        while walk is not None:
            walk.visits += 1
            if walk.player >= 0:
                walk.reward += values[walk.player]
            walk = walk.parent

    def _candidates(
        self, node: Node, state: State, legal: list[Action], h: Heuristic, rng: random.Random
    ) -> list[Action]:
        """The actions considered at ``node``: all of them, or the best-ranked few.

        Progressive widening: where actions are ranked (the root by the greedy one-step
        values, other nodes by the heuristic's ``prior``), only the top
        ``2 + widen * sqrt(visits)`` legal ones are candidates, so the search spends its
        iterations on the plausible moves first and widens as they are visited.
        """
        if self.widen <= 0 or len(legal) <= 2:
            return legal
        prior = node.prior
        values: list[float] | None = None
        if prior is None and node.first is None:
            if node.parent is None:
                return legal
            values = h.prior(state, legal, rng)
            if values is None:
                return legal
            node.first = (legal, values)
        elif node.ranked is not None and node.ranked_for == legal:
            values = None  # the same actions as last time: the same ranking
        else:
            if prior is None:
                assert node.first is not None
                prior = node.prior = dict(zip(*node.first, strict=True))
                node.first = None
            # one lookup per action; the ones not seen at this node yet get the prior's score
            known = [prior.get(a) for a in legal]
            gaps = [i for i, v in enumerate(known) if v is None]
            if gaps:
                scores = h.prior(state, [legal[i] for i in gaps], rng)
                for i, v in zip(gaps, scores or [0.0] * len(gaps), strict=True):
                    prior[legal[i]] = known[i] = v
            values = [v for v in known if v is not None]
        if values is not None:
            # best first; a stable sort keeps ties in the legal order
            order = sorted(range(len(legal)), key=[-v for v in values].__getitem__)
            ranking = node.ranked = [legal[i] for i in order]
            node.ranked_for = legal
            children = node.children
            node.kids = [children.get(a) for a in ranking] if children else [None] * len(legal)
        ranked = node.ranked
        assert ranked is not None
        k = 2 + int(self.widen * math.sqrt(node.visits))
        return ranked if k >= len(ranked) else ranked[:k]

    def _rollout(
        self, state: State, h: Heuristic, rng: random.Random, deadline: float
    ) -> list[float]:
        """Play on to the depth cutoff (or the deadline), then score the position."""
        decisions = 0
        depth = h.rollout_depth if self.depth is None else self.depth
        policy = self.rollout == "policy"
        timed = deadline != math.inf  # an iteration budget alone: no clock per decision
        while True:
            player = state.current_player
            if player == TERMINAL:
                result = state.result()
                if h.solitaire:
                    return [rewards([s], None, h.scale)[0] for s in result.scores]
                return rewards(result.scores, result.ranks, h.scale, self._own(h))
            if player == CHANCE:
                state.apply(sample_outcome(state.chance_outcomes(), rng))
                continue
            if decisions >= depth or (timed and time.perf_counter() > deadline):
                estimates = h.estimate(state)
                if h.solitaire:
                    return [rewards([e], None, h.scale)[0] for e in estimates]
                return rewards(estimates, None, h.scale, self._own(h))
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            elif policy:
                action = h.rollout_action(state, legal, rng)
            else:
                action = legal[rng.randrange(len(legal))]
            state.apply(action)
            decisions += 1

    def _own(self, h: Heuristic) -> float:
        return h.own_weight if self.own is None else self.own

    @staticmethod
    def _best(root: Node, legal: list[Action], rng: random.Random) -> int:
        """Index in ``legal`` of the most visited root child (ties: mean reward, then RNG)."""
        best_key: tuple[int, float] | None = None
        ties: list[int] = []
        for i, a in enumerate(legal):
            ch = root.children.get(a)
            key = (ch.visits, ch.reward / ch.visits) if ch is not None and ch.visits else (0, 0.0)
            if best_key is None or key > best_key:
                best_key, ties = key, [i]
            elif key == best_key:
                ties.append(i)
        return ties[0] if len(ties) == 1 else ties[rng.randrange(len(ties))]
