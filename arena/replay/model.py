"""A logged game made ready to be stepped through: every state, every step, every event.

:func:`load_replay` verifies the record first (:func:`arena.match.records.verify_record`); a
record that does not replay to its recorded result and digest raises
:class:`UnverifiedRecord`, naming the first step that differs, and is never shown.
State ``k`` is the position after ``k`` steps (0 = the initial state); step ``k`` is the
action or chance outcome that led from state ``k-1`` to state ``k``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.errors import UserError
from arena.match.records import RecordError, replay_states, seat_of, verify_record
from engine import CHANCE, TERMINAL, Action, State
from engine.core import JSON


class UnverifiedRecord(RecordError):
    """A record whose steps do not reproduce its result/digest (never replayed as fine)."""


@dataclass(frozen=True)
class Step:
    """Step ``k`` of a game: who acted, what (the action and its JSON), how long, what went
    wrong. Every view prints :meth:`text_for` its seat; :attr:`text` is the full text."""

    k: int
    seat: int
    move: Action
    action: dict[str, JSON]
    ms: float | None
    events: tuple[dict[str, JSON], ...]

    @property
    def is_chance(self) -> bool:
        return self.seat == CHANCE

    @property
    def text(self) -> str:
        """The full text of the action, as the record holds it (no seat's view)."""
        return str(self.move)

    def text_for(self, view: int | None) -> str:
        """The action as seat ``view`` (None: the spectator) may read it: another seat's
        hidden action or a chance outcome it does not see is shown by its public part
        (:meth:`engine.Action.text_for`)."""
        return self.move.text_for(self.seat, view)


def record_label(record: dict[str, Any]) -> str:
    return f"{record.get('game')} game {record.get('game_id') or '-'}"


def parse_seat(text: str | int | None, num_players: int) -> int | None:
    """A ``--seat`` value: a seat number, or ``spectator``/``-``/None for the spectator."""
    if text is None or text in ("spectator", "-", "s", ""):
        return None
    if isinstance(text, int) or str(text).lstrip("-").isdigit():
        seat = int(text)
        if 0 <= seat < num_players:
            return seat
    raise UserError(f"seat must be 0..{num_players - 1} or 'spectator', got {text!r}")


class Replay:
    """A verified record with the state after every step (``states[k]``)."""

    def __init__(self, record: dict[str, Any], states: list[State], steps: list[Step]) -> None:
        self.record = record
        self.states = states
        self.steps = steps
        self.num_players: int = int(record["num_players"])
        self.names: list[str] = [
            str(p.get("name", f"seat {i}")) for i, p in enumerate(record.get("players") or [])
        ] or [f"seat {i}" for i in range(self.num_players)]
        self.stray_events: list[dict[str, JSON]] = [
            e for e in record.get("events") or [] if not _valid_step(e, len(steps))
        ]

    @property
    def last(self) -> int:
        """The number of steps (the index of the final state)."""
        return len(self.steps)

    @property
    def game(self) -> str:
        return str(self.record["game"])

    def clamp(self, k: int) -> int:
        """``k`` kept within 0..last; negative ``k`` counts from the end (-1 = last)."""
        if k < 0:
            k = self.last + 1 + k
        return max(0, min(self.last, k))

    def step(self, k: int) -> Step | None:
        return self.steps[k - 1] if 1 <= k <= self.last else None

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "spectator"
        if seat == CHANCE:
            return "chance"
        if seat == TERMINAL:
            return "nobody (game over)"
        name = self.names[seat] if 0 <= seat < len(self.names) else "?"
        return f"seat {seat} ({name})"

    def render(self, k: int, seat: int | None) -> str:
        """What ``seat`` (None: the spectator) saw after step ``k``."""
        return self.states[k].render(seat)

    def observation(self, k: int, seat: int | None) -> dict[str, JSON]:
        return self.states[k].observation(seat)

    def to_move(self, k: int) -> int:
        return self.states[k].current_player

    def event_steps(self) -> list[int]:
        return sorted({s.k for s in self.steps if s.events})

    @property
    def result(self) -> dict[str, Any]:
        result: dict[str, Any] = self.record["result"]
        return result

    @property
    def final_ranks(self) -> list[int]:
        """Ranks after forfeits (``standing``) when recorded, else the engine's ranks."""
        ranks = (self.record.get("standing") or {}).get("ranks") or self.result["ranks"]
        return [int(r) for r in ranks]

    @property
    def forfeited(self) -> list[int]:
        return [int(s) for s in (self.record.get("standing") or {}).get("forfeited") or []]


def _valid_step(event: dict[str, JSON], last: int) -> bool:
    k = event.get("step")
    return isinstance(k, int) and 1 <= k <= last


def load_replay(record: dict[str, Any]) -> Replay:
    """Verify ``record`` and replay it; :class:`UnverifiedRecord` if it does not verify."""
    verified = verify_record(record)
    if not verified.ok:
        raise UnverifiedRecord(
            f"{record_label(record)} does not verify: {verified.problem}; it is not shown "
            "(check it with `arena verify`)"
        )
    events: dict[int, list[dict[str, JSON]]] = {}
    for ev in record.get("events") or []:
        if isinstance(ev, dict) and isinstance(ev.get("step"), int):
            events.setdefault(int(ev["step"]), []).append(ev)
    states: list[State] = []
    steps: list[Step] = []
    for k, state in replay_states(record):
        states.append(state.clone())
        if k == 0:
            continue
        raw = record["steps"][k - 1]
        ms = raw.get("ms")
        steps.append(
            Step(
                k=k,
                seat=seat_of(raw),
                move=state.history[-1],
                action=raw["action"],
                ms=float(ms) if isinstance(ms, int | float) else None,
                events=tuple(events.get(k, ())),
            )
        )
    return Replay(record, states, steps)
