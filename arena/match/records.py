"""Game records: one JSON document per game, the unit that is logged, replayed, analysed.

Format ``menagerie.record/1``::

    {"format": "menagerie.record/1", "game": id, "game_version": int, "num_players": n,
     "options": {...}, "players": [{"seat": i, "name": ..., "spec": ..., "version": ...}],
     "tournament_id": str|null, "match_id": str, "game_id": str, "seed": int,
     "steps": [{"seat": i|"chance", "action": {...}, "ms": float (bots only)}],
     "checkpoints": {"8": "1a2b3c4d", ...},      # short digests every CHECKPOINT_EVERY steps
     "events": [{"step": k, "seat": i, "kind": "timeout"|"illegal"|"crash"|..., "reason": str}],
     "result": {"scores": [...], "breakdown": [...], "ranks": [...]},   # the engine's result
     "standing": {"ranks": [...], "forfeited": [seats]},  # ranks after forfeits (last)
     "digest": sha256 of the final state, "duration_ms": float}

Replaying ``steps`` on a fresh ``new_game`` must reproduce ``result`` and ``digest``;
:func:`verify_record` says at which step a record first goes wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import CHANCE, GameConfigError, IllegalActionError, State, get_game
from engine.core import JSON, Result

FORMAT = "menagerie.record/1"
CHECKPOINT_EVERY = 8
CHANCE_SEAT = "chance"


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message says where."""


def short_digest(state: State) -> str:
    return state.digest()[:12]


def seat_of(step: Mapping[str, JSON]) -> int:
    seat = step.get("seat")
    return CHANCE if seat == CHANCE_SEAT else int(seat)  # type: ignore[arg-type]  # get(): every step has a seat


def standing(result: Result, forfeited: list[int]) -> dict[str, JSON]:
    """Ranks after forfeits: forfeited seats share the last place, the others keep order.

    >>> standing(Result([5, 9, 7], [{}, {}, {}], [3, 1, 2]), [1])["ranks"]
    [2, 3, 1]
    """
    alive = [s for s in range(len(result.ranks)) if s not in forfeited]
    ranks = []
    for s in range(len(result.ranks)):
        if s in forfeited:
            ranks.append(len(alive) + 1)
        else:
            ranks.append(1 + sum(1 for o in alive if result.ranks[o] < result.ranks[s]))
    return {"ranks": ranks, "forfeited": sorted(forfeited)}


# ---------------------------------------------------------------------------
# Reading and writing
# ---------------------------------------------------------------------------

REQUIRED = ("format", "game", "game_version", "num_players", "options", "steps", "result")


def check_shape(record: Any, where: str = "record") -> dict[str, Any]:
    """Raise RecordError unless ``record`` has the fields of the format."""
    if not isinstance(record, dict):
        raise RecordError(f"{where}: a record must be a JSON object")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise RecordError(f"{where}: missing field(s) {', '.join(missing)}")
    if record["format"] != FORMAT:
        raise RecordError(f"{where}: unknown format {record['format']!r} (expected {FORMAT})")
    if not isinstance(record["steps"], list):
        raise RecordError(f"{where}: 'steps' must be a list")
    return record


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Records from a ``.json`` file (one record or a list) or a ``.jsonl`` file;
    RecordError at the first entry that is not a record (see :func:`scan_records`)."""
    for _, record, problem in scan_records(path):
        if problem is not None:
            raise RecordError(problem)
        assert record is not None
        yield record


def scan_records(
    path: str | Path,
) -> Iterator[tuple[str, dict[str, Any] | None, str | None]]:
    """``(where, record, None)`` for every record of a file, ``(where, None, problem)``
    for every line (or file) that is not one: bad bytes, bad JSON, a missing field. A
    ``.jsonl`` file goes on after a bad line (``arena verify`` reports each; ``where`` is
    then ``path:line``); a ``.json`` file or one that cannot be read is one problem
    (``where`` is the path or ``path[i]``)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        yield str(path), None, f"{path}: cannot read: {exc.strerror}"
        return
    stripped = data.lstrip()
    if stripped.startswith(b"[") or (stripped.startswith(b"{") and b"\n{" not in data.strip()):
        try:
            doc = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            yield str(path), None, f"{path}: not UTF-8 text (a bad byte at offset {exc.start})"
            return
        except json.JSONDecodeError as exc:
            yield (
                str(path),
                None,
                f"{path}: not valid JSON (truncated or corrupt?): {exc.msg} at line "
                f"{exc.lineno} column {exc.colno}",
            )
            return
        for i, rec in enumerate(doc if isinstance(doc, list) else [doc]):
            yield from _checked(rec, f"{path}[{i}]")
        return
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            rec = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            yield where, None, f"{where}: not UTF-8 text (a bad byte at column {exc.start + 1})"
            continue
        except json.JSONDecodeError as exc:
            yield where, None, f"{where}: not valid JSON (truncated or corrupt?): {exc.msg}"
            continue
        yield from _checked(rec, where)


def _checked(rec: Any, where: str) -> Iterator[tuple[str, dict[str, Any] | None, str | None]]:
    try:
        yield where, check_shape(rec, where), None
    except RecordError as exc:
        yield where, None, str(exc)


def write_record(record: Mapping[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def dumps_line(record: Mapping[str, Any]) -> str:
    """One record as one compact JSONL line."""
    return json.dumps(record, separators=(",", ":"))


# ---------------------------------------------------------------------------
# Verification
# ---------------------------------------------------------------------------


@dataclass
class Verified:
    """A record replayed to its end: the final state and any problem found."""

    record: dict[str, Any]
    state: State | None
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def replay_states(record: Mapping[str, Any]) -> Iterator[tuple[int, State]]:
    """``(k, state after k steps)`` for k = 0..len(steps); RecordError on a bad step."""
    try:
        game = get_game(record["game"])
    except GameConfigError as exc:
        raise RecordError(str(exc)) from None
    if record["game_version"] != game.version:
        raise RecordError(
            f"record is for {game.id} version {record['game_version']}, "
            f"this engine is version {game.version}"
        )
    try:
        state = game.new_game(record["num_players"], record["options"])
    except GameConfigError as exc:
        raise RecordError(f"cannot start the game: {exc}") from None
    yield 0, state
    for k, step in enumerate(record["steps"], 1):
        if not isinstance(step, dict) or "action" not in step:
            raise RecordError(f"step {k}: malformed step {step!r}")
        try:
            expected_seat = seat_of(step)
        except (TypeError, ValueError):
            raise RecordError(f"step {k}: bad seat {step.get('seat')!r}") from None
        if expected_seat != state.current_player:
            raise RecordError(
                f"step {k}: recorded for seat {step.get('seat')}, "
                f"but {_who(state.current_player)} is to move"
            )
        try:
            state.apply_json(step["action"])
        except IllegalActionError as exc:
            raise RecordError(f"step {k}: {exc}") from None
        yield k, state


def _who(player: int) -> str:
    return (
        "chance" if player == CHANCE else "nobody (game over)" if player < 0 else f"seat {player}"
    )


def verify_record(record: dict[str, Any]) -> Verified:
    """Replay ``record``; ``problem`` names the first step or field that differs."""
    checkpoints: Mapping[str, str] = record.get("checkpoints") or {}
    state: State | None = None
    last_good = 0
    try:
        for k, state in replay_states(record):
            want = checkpoints.get(str(k))
            if want is not None:
                if short_digest(state) != want:
                    return Verified(
                        record,
                        state,
                        f"state differs from the recorded one at step {k} (it matched at "
                        f"step {last_good}): the difference arises in steps {last_good + 1}-{k}",
                    )
                last_good = k
    except RecordError as exc:
        return Verified(record, state, str(exc))
    assert state is not None
    if not state.is_terminal():
        return Verified(
            record, state, f"the game is not over after all {len(record['steps'])} steps"
        )
    result = state.result().to_json()
    if json.loads(json.dumps(result)) != record["result"]:
        return Verified(
            record, state, f"result differs: replay gives {result}, record says {record['result']}"
        )
    if record.get("digest") != state.digest():
        return Verified(record, state, "final digest differs from the recorded one")
    return Verified(record, state, None)
