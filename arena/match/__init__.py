"""Matches: one game between bots, its record, and the bots themselves.

Modules: ``runner`` (``play_match``/``match_steps``: the match runner and its failure
policy), ``records`` (the ``menagerie.record/1`` format, reading and verification),
``specs`` (bot specs -> bots: the one spec parser), ``cmdbots`` (``cmd:`` bots: programs
started per match that play over gRPC through an embedded game server).

The runner's API is importable from here (``from arena.match import play_match``), and
so is the in-process bot interface it plays (``Bot``, ``Turn``, ``BotFailure``).
"""

from arena.match.runner import (
    Answer,
    FailurePolicy,
    MatchConfig,
    MatchSpec,
    MatchSteps,
    StepHook,
    ask,
    match_steps,
    play_match,
)
from bots.base import Bot, BotFailure, Turn

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
    "match_steps",
    "play_match",
]
