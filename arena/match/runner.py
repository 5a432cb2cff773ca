"""The match runner: plays one game between bots and returns its record.

Chance outcomes are sampled with ``random.Random(f"{seed}:chance")`` and each bot gets
``random.Random(f"{seed}:seat{i}")``, so the same seed and bots give the same game.

Failure policy (``on_failure``): when a bot raises, returns something that is not a
legal action, or overruns its time limit, an event is recorded and either the seat
**forfeits** (``"forfeit"``: from then on its moves are random legal moves, and it is
ranked last in ``standing``) or that one move is replaced by a random legal move
(``"random"``). The match always finishes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from arena.match.records import CHANCE_SEAT, CHECKPOINT_EVERY, FORMAT, short_digest, standing
from bots.base import Bot, BotFailure, Turn
from engine import CHANCE, Action, Game, State, get_game
from engine.core import JSON, sample_outcome

FailurePolicy = Literal["forfeit", "random"]


@dataclass
class MatchSpec:
    """Everything that defines one game of a tournament (or of ``arena play``)."""

    game: str
    num_players: int
    seed: int
    options: dict[str, JSON] = field(default_factory=dict)
    tournament_id: str | None = None
    match_id: str = ""
    game_id: str = ""


@dataclass
class MatchConfig:
    """How a match is run: per-move time limit and what happens to a misbehaving bot."""

    move_ms: float | None = None
    on_failure: FailurePolicy = "forfeit"


StepHook = Callable[[State, int, Action], None]

Answer = tuple[Action, float, tuple[str, str] | None]
"""A seat's answer to a Turn: (action played, ms taken, (event kind, reason) or None)."""

MatchSteps = Generator[Turn, Answer, dict[str, Any]]


def bot_label(bot: Bot) -> dict[str, JSON]:
    return {
        "name": getattr(bot, "name", type(bot).__name__),
        "spec": getattr(bot, "spec", getattr(bot, "name", "")),
        "version": str(getattr(bot, "version", "1")),
    }


def play_match(
    spec: MatchSpec,
    bots: Sequence[Bot],
    config: MatchConfig | None = None,
    on_step: StepHook | None = None,
) -> dict[str, Any]:
    """Play one game to the end and return its record (see ``arena.match.records``)."""
    config = config or MatchConfig()
    steps = match_steps(spec, bots, config, on_step)
    try:
        turn = next(steps)
        while True:
            turn = steps.send(ask(bots[turn.seat], turn, config))
    except StopIteration as done:
        return cast(dict[str, Any], done.value)  # the record: MatchSteps' return value


def match_steps(
    spec: MatchSpec,
    bots: Sequence[Bot],
    config: MatchConfig | None = None,
    on_step: StepHook | None = None,
) -> MatchSteps:
    """``play_match`` as a generator: yields each seat's :class:`Turn`, is sent its
    :data:`Answer` (see :func:`ask`), returns the record.

    Whoever drives it may change threads between turns (the game server answers a
    remote seat's move in the thread that received it), never run it concurrently.
    """
    config = config or MatchConfig()
    game = get_game(spec.game)
    state = game.new_game(spec.num_players, spec.options)
    if len(bots) != spec.num_players:
        raise ValueError(f"{spec.game} with {spec.num_players} players needs that many bots")
    chance_rng = random.Random(f"{spec.seed}:chance")
    bot_rngs = [random.Random(f"{spec.seed}:seat{i}") for i in range(spec.num_players)]
    fallback_rng = random.Random(f"{spec.seed}:fallback")
    steps: list[dict[str, JSON]] = []
    events: list[dict[str, JSON]] = []
    checkpoints: dict[str, str] = {}
    forfeited: list[int] = []
    started = time.perf_counter()

    while not state.is_terminal():
        player = state.current_player
        if player == CHANCE:
            action = sample_outcome(state.chance_outcomes(), chance_rng)
            state.apply(action)
            steps.append({"seat": CHANCE_SEAT, "action": action.to_json()})
        else:
            legal = state.legal_actions()
            if player in forfeited:
                action, ms = legal[fallback_rng.randrange(len(legal))], 0.0
            else:
                turn = Turn.of(state, player, bot_rngs[player], config.move_ms)
                action, ms, problem = yield turn
                if problem is not None:
                    kind, reason = problem
                    events.append(
                        {"step": len(steps) + 1, "seat": player, "kind": kind, "reason": reason}
                    )
                    if config.on_failure == "forfeit":
                        forfeited.append(player)
                        events.append(
                            {
                                "step": len(steps) + 1,
                                "seat": player,
                                "kind": "forfeit",
                                "reason": f"{kind}: seat {player} forfeits; random moves from here",
                            }
                        )
                    action = legal[fallback_rng.randrange(len(legal))]
            state.apply(action)
            steps.append({"seat": player, "action": action.to_json(), "ms": round(ms, 3)})
        if on_step is not None:
            on_step(state, player, action)
        if len(steps) % CHECKPOINT_EVERY == 0:
            checkpoints[str(len(steps))] = short_digest(state)

    result = state.result()
    return {
        **record_head(spec, game, [{"seat": i, **bot_label(b)} for i, b in enumerate(bots)]),
        "steps": steps,
        "checkpoints": checkpoints,
        "events": events,
        "result": result.to_json(),
        "standing": standing(result, forfeited),
        "digest": state.digest(),
        "duration_ms": round((time.perf_counter() - started) * 1000, 3),
    }


def record_head(
    spec: MatchSpec, game: Game, players: list[dict[str, JSON]], match_id: str = ""
) -> dict[str, Any]:
    """The fields a record starts with, up to ``steps`` (finished or aborted alike)."""
    return {
        "format": FORMAT,
        "game": game.id,
        "game_version": game.version,
        "num_players": spec.num_players,
        "options": spec.options,
        "players": players,
        "tournament_id": spec.tournament_id,
        "match_id": spec.match_id or match_id,
        "game_id": spec.game_id,
        "seed": spec.seed,
    }


def ask(bot: Bot, turn: Turn, config: MatchConfig) -> Answer:
    """Ask ``bot`` for a move; returns (action, ms taken, (event kind, reason) or None).

    The answer is judged against the runner's own copy of the legal actions: a bot that
    changes ``turn.legal`` changes only its own list."""
    legal = list(turn.legal)
    t0 = time.perf_counter()
    try:
        choice = bot.choose(turn)
    except BotFailure as exc:
        ms = (time.perf_counter() - t0) * 1000
        return legal[0], ms, (exc.kind, exc.reason)
    except Exception as exc:  # a crashing bot must not stop the match
        ms = (time.perf_counter() - t0) * 1000
        return legal[0], ms, ("crash", f"{type(exc).__name__}: {exc}")
    return judge(choice, (time.perf_counter() - t0) * 1000, legal, config)


def judge(choice: object, ms: float, legal: list[Action], config: MatchConfig) -> Answer:
    """The Answer for a bot's ``choice`` made in ``ms`` (illegal or late: an event)."""
    action = resolve_choice(choice, legal)
    if isinstance(action, str):
        return legal[0], ms, ("illegal", action)
    return timed(action, ms, config)


def timed(action: Action, ms: float, config: MatchConfig) -> Answer:
    """The Answer of a legal ``action`` chosen in ``ms``: a timeout event if that is
    beyond the move clock (the move is played all the same)."""
    if config.move_ms is not None and ms > config.move_ms:
        return action, ms, ("timeout", f"took {ms:.1f} ms of {config.move_ms:.0f} ms")
    return action, ms, None


def resolve_choice(choice: object, legal: list[Action]) -> Action | str:
    """The legal action a bot chose (an index or an action), or why it is not one."""
    if isinstance(choice, int) and not isinstance(choice, bool):
        if 0 <= choice < len(legal):
            return legal[choice]
        return f"index {choice} is out of range 0..{len(legal) - 1}"
    if isinstance(choice, Action):
        if choice in legal:
            return choice
        return f"{choice} is not a legal action"
    return f"{choice!r} is neither an action nor an index"


__all__ = [
    "Answer",
    "Bot",
    "BotFailure",
    "FailurePolicy",
    "MatchConfig",
    "MatchSpec",
    "MatchSteps",
    "StepHook",
    "Turn",
    "ask",
    "judge",
    "match_steps",
    "play_match",
    "record_head",
    "resolve_choice",
    "timed",
]
