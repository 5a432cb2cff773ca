"""Validating a new bot version before it enters matchmaking.

A version starts ``validating``. :func:`validate` plays it against ``random`` on the
ladder's game with the ladder's move clock:

- a **program** (a ``cmd:`` spec or a submitted archive, started through
  :mod:`arena.ladder.launch`) goes through the checks of ``arena bot check``
  (:func:`arena.botcheck.runs.check_bot`): it joins with its credential, answers within
  the move clock, sends only legal moves, exits after GameOver (two games, in the first
  and the last seat), and exits by itself when the server closes;
- an **in-process bot** (a reference bot or a ``py:`` class) must be built and play
  :data:`VALIDATION_GAMES` games (first seat, then last; the ladder's player count and
  options) to the end with no failure of its own (no crash, illegal move or timeout).

:func:`validate_version` records the outcome: ``active`` (placed in matchmaking), or
``broken`` with the reason, which the author reads in ``arena ladder status``. A version
that passes but later fails ``broken_after`` games in a row is broken by the store
(:meth:`arena.ladder.store.LadderStore.commit_result`) with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.ladder.hosting import hosted_spec
from arena.ladder.store import LadderStore
from arena.ladder.submission import Archives
from arena.ladder.views import LadderInfo, VersionInfo
from arena.match.runner import MatchConfig, MatchSpec, play_match
from arena.match.specs import CMD_PREFIX, is_cmd, make_bot
from bots.base import Bot
from engine import get_game

VALIDATION_GAMES = 2
FAILURE_KINDS = frozenset({"illegal", "timeout", "stall", "disconnect", "crash", "forfeit"})
"""Record event kinds that fail an in-process bot's validation game."""
CHECK_MOVE_MS = 1000.0
"""The move clock of validation when the ladder has none."""


@dataclass(frozen=True, slots=True)
class Validation:
    """The outcome of validating one version."""

    ok: bool
    reason: str
    """Why it failed, in one line the author can act on (empty when it passed)."""
    games: int
    """Games played against random."""


def _check_program(spec: str, ladder: LadderInfo) -> Validation:
    from arena.botcheck.model import CheckConfig
    from arena.botcheck.runs import check_bot

    command = spec[len(CMD_PREFIX) :].strip()
    config = CheckConfig(move_ms=float(ladder.move_ms or CHECK_MOVE_MS), sandbox=ladder.sandbox)
    report = check_bot(command, [ladder.game], config)
    played = sum(1 for g in report.games for r in g.runs if not r.close and r.joined)
    if report.ok:
        return Validation(True, "", played)
    problems = [f"{c.title}: {' '.join(c.detail.split())}" for _, c in report.failed()]
    return Validation(False, "validation failed: " + "; ".join(problems), played)


def _check_in_process(spec: str, ladder: LadderInfo, games: int) -> Validation:
    k = ladder.players
    game = get_game(ladder.game)
    game.new_game(k, ladder.options)  # GameConfigError: the ladder itself is wrong
    config = MatchConfig(float(ladder.move_ms) if ladder.move_ms else None, "forfeit")
    for n in range(games):
        seat = 0 if n % 2 == 0 else k - 1
        try:
            bot = make_bot(spec, "candidate")
        except Exception as exc:
            return Validation(
                False, f"validation failed: cannot build the bot: {type(exc).__name__}: {exc}", n
            )
        bots: list[Bot] = [make_bot("random") for _ in range(k)]
        bots[seat] = bot
        match = MatchSpec(ladder.game, k, 1_000 + n, dict(ladder.options))
        record = play_match(match, bots, config)
        for event in record.get("events") or []:
            if event.get("seat") == seat and event.get("kind") in FAILURE_KINDS:
                return Validation(
                    False,
                    f"validation failed: game {n + 1} (seat {seat}) against random, step "
                    f"{event.get('step')}: {event.get('kind')}: {event.get('reason')}",
                    n + 1,
                )
    return Validation(True, "", games)


def validate(
    version: VersionInfo,
    ladder: LadderInfo,
    archives: Archives,
    games: int = VALIDATION_GAMES,
) -> Validation:
    """Play ``version`` against random on ``ladder``'s game (see the module docstring)."""
    spec = hosted_spec(version, archives)
    if is_cmd(spec):
        return _check_program(spec, ladder)
    return _check_in_process(spec, ladder, games)


def validate_version(
    store: LadderStore,
    version: VersionInfo,
    archives: Archives,
    games: int = VALIDATION_GAMES,
) -> tuple[VersionInfo, Validation]:
    """Validate a ``validating`` version and record the outcome (active, or broken with
    the reason)."""
    outcome = validate(version, store.ladder(version.ladder), archives, games)
    if outcome.ok:
        return store.set_status(version.id, "active"), outcome
    return store.set_status(version.id, "broken", outcome.reason), outcome
