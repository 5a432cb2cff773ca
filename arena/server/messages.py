"""Engine values -> wire messages (MatchStart, Turn, GameOver, Error).

A ``Turn`` is sent on every move exchange, so it is encoded straight to bytes
(:class:`TurnEncoder`); the rest are ordinary messages."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.protobuf.timestamp_pb2 import Timestamp
from menagerie.v1 import game_service_pb2 as pb

from engine import Action
from engine.core import JSON
from wire.convert import OBSERVATION_CLASSES, WireError, action_to_proto, to_message

if TYPE_CHECKING:
    from arena.match.runner import FailurePolicy

POLICIES: dict[str, pb.FailurePolicy.ValueType] = {
    "forfeit": pb.FAILURE_POLICY_FORFEIT,
    "random": pb.FAILURE_POLICY_RANDOM,
}


def policy_name(value: int) -> FailurePolicy:
    """``FailurePolicy`` enum value -> ``"forfeit"`` / ``"random"`` (unspecified: forfeit)."""
    return "random" if value == pb.FAILURE_POLICY_RANDOM else "forfeit"


def _varint(n: int) -> bytes:
    """Protobuf base-128 varint of ``n`` (>= 0); the values below 16,384 (lengths,
    sequences, indices: several per Turn) come from a table."""
    if n < _SMALL_LIMIT:
        return _SMALL[n]
    return _encode_varint(n)


def _encode_varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL_LIMIT = 1 << 14
_SMALL = [_encode_varint(n) for n in range(_SMALL_LIMIT)]
"""The varints of 0 .. 16,383 (one or two bytes each)."""


def _tag(message: Any, field: str) -> bytes:
    """The key of ``message.field``: varints (wire type 0) and messages (2) only."""
    desc = message.DESCRIPTOR.fields_by_name[field]
    wire = 2 if desc.message_type is not None or desc.type == desc.TYPE_STRING else 0
    return _varint(desc.number << 3 | wire)


def _delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + _varint(len(payload)) + payload


_RESPONSE_TURN = _tag(pb.PlayResponse, "turn")
_SEQUENCE = _tag(pb.Turn, "sequence")
_STEP = _tag(pb.Turn, "step")
_OBSERVATION = _tag(pb.Turn, "observation")
_LEGAL_ACTION = _tag(pb.Turn, "legal_actions")
_TIME_LIMIT = _tag(pb.Turn, "time_limit_ms")
_DEADLINE = _tag(pb.Turn, "deadline")
_INDEX = _tag(pb.LegalAction, "index")
_TEXT = _tag(pb.LegalAction, "text")
_ACTION = _tag(pb.LegalAction, "action")
_INDEX_FIELD = [_INDEX + _varint(i) if i else b"" for i in range(256)]
"""The encoded ``LegalAction.index`` of small indices (0 is the default: not written)."""
_CACHE_LIMIT = 100_000
"""Legal actions whose encoding a TurnEncoder keeps: past it, new ones are encoded every
time (a bound on memory, never on correctness)."""
_LIST_CACHE_BYTES = 16 << 20
"""Bytes of encoded legal-action lists a TurnEncoder keeps (same rule)."""
_LIST_CACHE_MAX_ACTIONS = 4
"""Only lists of at most this many legal actions are looked up in the list cache: short
lists repeat (Zooloretto Mini's draw-or-take-a-truck, Panorama's: 80-95% of the turns of
random playouts), long ones rarely do (placements: under 20%), and a lookup that misses
costs more than encoding the list from its cached entries."""


class TurnEncoder:
    """Encodes a game's ``Turn`` as serialised ``PlayResponse`` bytes (what the Play stream
    writes), from cached encodings of each legal action (``index`` aside) and the typed
    observation serialised once: no intermediate messages are built and copied into their
    envelopes. A short list of legal actions is cached whole too (such positions repeat:
    the same list comes back turn after turn, so it costs one lookup). The bytes equal
    ``PlayResponse(turn=...).SerializeToString(deterministic=True)`` (the observation's
    map entries in key order: the same observation is always the same bytes;
    tests/wire/test_turn_encoder.py checks it for every game)."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._observation_class = OBSERVATION_CLASSES[game_id]
        self._observation_tag = _tag(pb.Observation, game_id)
        self._legal: dict[Action, bytes] = {}
        self._lists: dict[tuple[Action, ...], bytes] = {}
        """A list of legal actions -> its encoded ``legal_actions`` entries (with indices)."""
        self._list_bytes = 0
        """The size of the values of ``_lists`` (bounded by ``_LIST_CACHE_BYTES``)."""

    def legal_entry(self, action: Action) -> bytes:
        """``LegalAction`` text and action fields of ``action`` (cached, shared by tables)."""
        hit = self._legal.get(action)
        if hit is None:
            typed = action_to_proto(self.game_id, action.to_json()).SerializeToString(
                deterministic=True
            )
            hit = _delimited(_TEXT, str(action).encode()) + _delimited(_ACTION, typed)
            if len(self._legal) < _CACHE_LIMIT:
                self._legal[action] = hit
        return hit

    def observation(self, observation: Mapping[str, JSON]) -> bytes:
        """The encoded envelope ``Observation`` of an observation JSON."""
        try:
            message = to_message(self._observation_class, observation)
            inner = message.SerializeToString(deterministic=True)
        except WireError as exc:
            raise WireError(
                f"{self.game_id} observation does not fit the wire schema: {exc}"
            ) from None
        return _delimited(self._observation_tag, inner)

    def legal_list(self, legal: Sequence[Action]) -> bytes:
        """The encoded ``Turn.legal_actions`` of ``legal`` (short lists cached per list)."""
        if len(legal) > _LIST_CACHE_MAX_ACTIONS:
            return self._encode_list(legal)
        key = tuple(legal)
        hit = self._lists.get(key)
        if hit is None:
            hit = self._encode_list(legal)
            if self._list_bytes + len(hit) <= _LIST_CACHE_BYTES:
                self._lists[key] = hit
                self._list_bytes += len(hit)
        return hit

    def _encode_list(self, legal: Sequence[Action]) -> bytes:
        entry = self.legal_entry
        parts = []
        for i, action in enumerate(legal):
            index = _INDEX_FIELD[i] if i < 256 else _INDEX + _varint(i)
            parts.append(_delimited(_LEGAL_ACTION, index + entry(action)))
        return b"".join(parts)

    def turn(
        self,
        sequence: int,
        step: int,
        observation: Mapping[str, JSON],
        legal: Sequence[Action],
        time_limit_ms: float | None,
    ) -> bytes:
        parts = [_SEQUENCE + _varint(sequence)]
        if step:
            parts.append(_STEP + _varint(step))
        parts.append(_delimited(_OBSERVATION, self.observation(observation)))
        parts.append(self.legal_list(legal))
        if time_limit_ms:
            parts.append(_TIME_LIMIT + _varint(int(time_limit_ms)))
            parts.append(
                _delimited(_DEADLINE, _timestamp(time.time_ns() + int(time_limit_ms * 1e6)))
            )
        return _delimited(_RESPONSE_TURN, b"".join(parts))


_SECONDS = _tag(Timestamp, "seconds")
_NANOS = _tag(Timestamp, "nanos")


def _timestamp(ns: int) -> bytes:
    """A ``google.protobuf.Timestamp`` of ``ns`` nanoseconds since the epoch (> 0), as
    ``Timestamp.FromNanoseconds(ns).SerializeToString()`` writes it (a tenth of the
    time: no message built)."""
    seconds, nanos = divmod(ns, 1_000_000_000)
    out = _SECONDS + _varint(seconds) if seconds else b""
    return out + _NANOS + _varint(nanos) if nanos else out


_ENCODERS: dict[str, TurnEncoder] = {}


def turn_encoder(game_id: str) -> TurnEncoder:
    """The (process-wide) TurnEncoder of a game."""
    encoder = _ENCODERS.get(game_id)
    if encoder is None:
        encoder = _ENCODERS.setdefault(game_id, TurnEncoder(game_id))
    return encoder


def serialize_play_response(message: pb.PlayResponse | bytes) -> bytes:
    """The Play stream's response serialiser: messages, or bytes already encoded."""
    if isinstance(message, bytes):
        return message
    return message.SerializeToString()


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
