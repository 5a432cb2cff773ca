"""Engine values -> wire messages (MatchStart, Turn, GameOver, Error)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from menagerie.v1 import game_service_pb2 as pb

from bots.wire import action_to_proto, observation_to_proto
from engine import Action
from engine.core import JSON

POLICIES: dict[str, pb.FailurePolicy.ValueType] = {
    "forfeit": pb.FAILURE_POLICY_FORFEIT,
    "random": pb.FAILURE_POLICY_RANDOM,
}


def policy_name(value: int) -> str:
    """``FailurePolicy`` enum value -> ``"forfeit"`` / ``"random"`` (unspecified: forfeit)."""
    return "random" if value == pb.FAILURE_POLICY_RANDOM else "forfeit"


class LegalActions:
    """Builds ``LegalAction`` lists, caching each action's typed message and text."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._cache: dict[Action, tuple[str, pb.Action]] = {}

    def entry(self, action: Action) -> tuple[str, pb.Action]:
        hit = self._cache.get(action)
        if hit is None:
            hit = (str(action), action_to_proto(self.game_id, action.to_json()))
            if len(self._cache) < 100_000:
                self._cache[action] = hit
        return hit

    def build(self, legal: Sequence[Action]) -> list[pb.LegalAction]:
        out = []
        for i, action in enumerate(legal):
            text, msg = self.entry(action)
            out.append(pb.LegalAction(index=i, text=text, action=msg))
        return out


def turn_message(
    sequence: int,
    step: int,
    game_id: str,
    observation: Mapping[str, JSON],
    legal: list[pb.LegalAction],
    time_limit_ms: float | None,
) -> pb.PlayResponse:
    turn = pb.Turn(
        sequence=sequence,
        step=step,
        observation=observation_to_proto(game_id, observation),
        legal_actions=legal,
    )
    if time_limit_ms:
        turn.time_limit_ms = int(time_limit_ms)
        deadline = Timestamp()
        deadline.FromNanoseconds(time.time_ns() + int(time_limit_ms * 1e6))
        turn.deadline.CopyFrom(deadline)
    return pb.PlayResponse(turn=turn)


def error_message(
    code: pb.ErrorCode.ValueType, message: str, sequence: int = 0, forfeited: bool = False
) -> pb.PlayResponse:
    return pb.PlayResponse(
        error=pb.Error(code=code, message=message, sequence=sequence, forfeited=forfeited)
    )


def game_over_message(
    match_id: str, record: Mapping[str, Any] | None, reason: str = ""
) -> pb.GameOver:
    """GameOver of a finished match (``record``) or of an aborted one (``reason``)."""
    over = pb.GameOver(match_id=match_id, reason=reason)
    if record is None or "result" not in record:
        over.status = pb.MATCH_STATUS_ABORTED
        if record is not None:
            over.steps = len(record.get("steps", []))
        return over
    result = record["result"]
    standing = record.get("standing") or {}
    over.status = pb.MATCH_STATUS_FINISHED
    over.scores.extend(float(s) for s in result["scores"])
    for b in result["breakdown"]:
        over.breakdown.add().points.update({k: float(v) for k, v in b.items()})
    over.ranks.extend(result["ranks"])
    over.standing_ranks.extend(standing.get("ranks", result["ranks"]))
    over.forfeited.extend(standing.get("forfeited", []))
    for ev in record.get("events", []):
        over.events.add(
            step=int(ev.get("step", 0)),
            seat=int(ev.get("seat", -1)),
            kind=str(ev.get("kind", "")),
            reason=str(ev.get("reason", "")),
        )
    over.steps = len(record["steps"])
    over.digest = str(record.get("digest", ""))
    return over


def options_json(options: Mapping[str, JSON]) -> str:
    return json.dumps(dict(options), sort_keys=True)
