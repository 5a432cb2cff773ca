"""JSON <-> protobuf for the wire protocol (``proto/menagerie/v1``), shared by server and SDK.

Every game has one proto file with a typed observation message that mirrors the
engine's ``state.observation(seat)`` JSON field by field, and a typed action message
whose oneof field (named after the JSON ``kind``) holds the action's JSON fields. The
envelopes ``Observation`` and ``Action`` hold them in a oneof named after the game id.
So conversion is mechanical: a JSON key is the proto field name, except where the
field declares a ``json_name`` (``from`` and ``return`` are keywords in many languages:
``int32 from_seat = 1 [json_name = "from"]``).

>>> obs = {"phase": "play", "mutant_found": [False, True, False, False]}
>>> msg = to_message(OBSERVATION_CLASSES["carson_city_zoo"], obs)
>>> to_dict(msg)["mutant_found"]
[False, True, False, False]
>>> action = action_to_proto("zooloretto_mini", {"kind": "bonus_take", "from": 1,
...                                               "tile": "S2F1", "to": "E2"})
>>> action_from_proto(action)
('zooloretto_mini', {'kind': 'bonus_take', 'from': 1, 'tile': 'S2F1', 'to': 'E2'})
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping
from typing import Any, cast

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from menagerie.v1 import game_service_pb2 as pb

JSON = Any
Descriptor = Any
"""A message descriptor (typed loosely: the upb and pure-Python classes differ)."""
Field = Any
"""A field descriptor."""


class WireError(ValueError):
    """A value that does not fit the wire schema; the message says where and why."""


# ---------------------------------------------------------------------------
# Per-game messages
# ---------------------------------------------------------------------------


def _oneof_classes(envelope: type[Message]) -> dict[str, type[Message]]:
    oneof = envelope.DESCRIPTOR.oneofs_by_name["game"]
    return {f.name: _class_of(f.message_type) for f in oneof.fields}


def _class_of(desc: Descriptor) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(desc)


OBSERVATION_CLASSES: dict[str, type[Message]] = _oneof_classes(pb.Observation)
"""Game id -> its typed observation message class."""

ACTION_CLASSES: dict[str, type[Message]] = _oneof_classes(pb.Action)
"""Game id -> its typed action message class."""


def wire_games() -> list[str]:
    """The game ids that have typed observation and action messages."""
    return sorted(set(OBSERVATION_CLASSES) & set(ACTION_CLASSES))


def action_kinds(game_id: str) -> dict[str, str]:
    """JSON ``kind`` -> oneof field name of the game's action message."""
    return dict(_action_kinds(game_id))


_KINDS: dict[str, dict[str, str]] = {}


def _action_kinds(game_id: str) -> dict[str, str]:
    kinds = _KINDS.get(game_id)
    if kinds is None:
        desc = ACTION_CLASSES[game_id].DESCRIPTOR
        kinds = {_json_key(f): f.name for f in desc.oneofs_by_name["kind"].fields}
        _KINDS[game_id] = kinds
    return kinds


# ---------------------------------------------------------------------------
# Generic conversion
# ---------------------------------------------------------------------------


def _default_json_name(name: str) -> str:
    """protoc's default json_name: lowerCamelCase of the field name."""
    parts = name.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _json_key(field: Field) -> str:
    """The JSON key of a field: its explicit json_name, else its name."""
    if field.json_name != _default_json_name(field.name):
        return cast(str, field.json_name)  # Field is Any (see above); these are str
    return cast(str, field.name)


def _is_map(field: Field) -> bool:
    msg = field.message_type
    return msg is not None and msg.GetOptions().map_entry


def _is_repeated(field: Field) -> bool:
    flag = getattr(field, "is_repeated", None)  # protobuf >= 6; older: label
    if flag is None:
        return bool(field.label == FieldDescriptor.LABEL_REPEATED)
    return bool(flag)


_RENAMES: dict[str, bool] = {}


def _needs_renames(desc: Descriptor) -> bool:
    """Whether any field of ``desc`` or of its sub-messages has an explicit json_name."""
    cached = _RENAMES.get(desc.full_name)
    if cached is None:
        _RENAMES[desc.full_name] = False  # recursion guard
        cached = any(
            _json_key(f) != f.name
            or (f.message_type is not None and _needs_renames(f.message_type))
            for f in desc.fields
        )
        _RENAMES[desc.full_name] = cached
    return cached


def _renamed(desc: Descriptor, data: Mapping[str, JSON]) -> dict[str, JSON]:
    """``data`` with JSON keys turned into field names, recursively."""
    by_key = {_json_key(f): f for f in desc.fields}
    out: dict[str, JSON] = {}
    for key, value in data.items():
        field = by_key.get(key)
        if field is None:
            raise WireError(f"{desc.name} has no field for JSON key {key!r}")
        sub = field.message_type
        if sub is not None and _needs_renames(sub):
            if _is_map(field):
                vdesc = sub.fields_by_name["value"].message_type
                if vdesc is not None:
                    value = {k: _renamed(vdesc, v) for k, v in value.items()}
            elif _is_repeated(field):
                value = [_renamed(sub, v) for v in value]
            else:
                value = _renamed(sub, value)
        out[field.name] = value
    return out


def to_message(cls: type[Message], data: Mapping[str, JSON]) -> Message:
    """Build ``cls`` from a JSON object whose keys are the fields' JSON keys.

    Unknown keys, wrong types and nulls raise WireError.
    """
    if not isinstance(data, Mapping):
        raise WireError(f"{cls.DESCRIPTOR.name} needs a JSON object, got {type(data).__name__}")
    desc = cls.DESCRIPTOR
    kwargs = _renamed(desc, data) if _needs_renames(desc) else data
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as exc:
        raise WireError(f"{desc.name}: {exc}") from None


_READERS: dict[str, Callable[[Message], dict[str, JSON]]] = {}
"""Message full name -> its compiled :func:`to_dict` (see :func:`_reader`)."""
_COMPILING: set[str] = set()
"""Message types whose reader is being compiled (a recursive type reads itself lazily)."""


def _reader(desc: Descriptor) -> Callable[[Message], dict[str, JSON]]:
    """The function that turns a message of ``desc`` into its JSON object, compiled once
    per message type: one dict display naming every field, with the sub-messages'
    readers bound in, so a message costs one call and not a loop over a field plan (the
    Python SDK decodes a whole observation on every Turn: half the time of the loop)."""
    reader = _READERS.get(desc.full_name)
    if reader is not None:
        return reader
    _COMPILING.add(desc.full_name)
    try:
        env: dict[str, Any] = {}
        items = []
        for i, field in enumerate(desc.fields):
            value = f"m.{field.name}"
            if keyword.iskeyword(field.name):  # no attribute syntax for it
                value = f"getattr(m, {field.name!r})"
            sub = field.message_type
            if sub is not None and _is_map(field):
                sub = sub.fields_by_name["value"].message_type
                if sub is None:
                    value = f"dict({value})"
                else:
                    env[f"r{i}"] = _sub_reader(sub)
                    value = f"{{k: r{i}(v) for k, v in {value}.items()}}"
            elif sub is not None:
                env[f"r{i}"] = _sub_reader(sub)
                value = f"[r{i}(v) for v in {value}]" if _is_repeated(field) else f"r{i}({value})"
            elif _is_repeated(field):
                value = f"list({value})"
            elif _has_explicit_presence(field):
                value = f"({value} if m.HasField({field.name!r}) else None)"
            items.append(f"{_json_key(field)!r}: {value}")
        source = "def read(m):\n    return {" + ", ".join(items) + "}\n"
        exec(compile(source, f"<to_dict {desc.full_name}>", "exec"), env)  # (text made here)
    finally:
        _COMPILING.discard(desc.full_name)
    reader = cast(Callable[[Message], dict[str, JSON]], env["read"])
    _READERS[desc.full_name] = reader
    return reader


def _sub_reader(desc: Descriptor) -> Callable[[Message], dict[str, JSON]]:
    """The reader of a sub-message type: compiled now, or (a type that contains itself)
    looked up when called."""
    if desc.full_name in _COMPILING:
        return lambda msg: _reader(desc)(msg)
    return _reader(desc)


def _has_explicit_presence(field: Field) -> bool:
    """A proto3 ``optional`` scalar (its synthetic oneof is named ``_<field>``): unset is
    JSON null (e.g. the observation header's ``you`` for the spectator), not the zero value."""
    oneof = field.containing_oneof
    return (
        field.message_type is None
        and not _is_repeated(field)
        and oneof is not None
        and oneof.name == "_" + field.name
    )


def to_dict(msg: Message) -> dict[str, JSON]:
    """The JSON object of a message: every field (defaults included) by its JSON key."""
    return _reader(msg.DESCRIPTOR)(msg)


# ---------------------------------------------------------------------------
# Observations and actions
# ---------------------------------------------------------------------------


def _game_class(classes: Mapping[str, type[Message]], game_id: str, what: str) -> type[Message]:
    cls = classes.get(game_id)
    if cls is None:
        known = ", ".join(sorted(classes))
        raise WireError(f"no {what} message for game {game_id!r} in the wire schema ({known})")
    return cls


def observation_to_proto(game_id: str, observation: Mapping[str, JSON]) -> pb.Observation:
    """The envelope ``Observation`` of a game's observation JSON."""
    cls = _game_class(OBSERVATION_CLASSES, game_id, "observation")
    try:
        inner = to_message(cls, observation)
    except WireError as exc:
        raise WireError(f"{game_id} observation does not fit the wire schema: {exc}") from None
    envelope: Callable[..., pb.Observation] = pb.Observation  # a game id keyword
    return envelope(**{game_id: inner})


def observation_from_proto(msg: pb.Observation) -> tuple[str, dict[str, JSON]]:
    """(game id, observation JSON) of an envelope ``Observation``."""
    game_id = msg.WhichOneof("game")
    if game_id is None:
        raise WireError("the observation holds no game's message")
    return game_id, to_dict(getattr(msg, game_id))


def game_action_to_proto(game_id: str, action: Mapping[str, JSON]) -> Message:
    """The game's typed action message of an action JSON ``{"kind": ..., ...}``."""
    cls = _game_class(ACTION_CLASSES, game_id, "action")
    if not isinstance(action, Mapping):
        raise WireError(f"an action must be a JSON object, got {type(action).__name__}")
    kind = action.get("kind")
    kinds = _action_kinds(game_id)
    field_name = kinds.get(kind) if isinstance(kind, str) else None
    if field_name is None:
        raise WireError(f"{game_id} has no action kind {kind!r}; kinds: {', '.join(sorted(kinds))}")
    sub_cls = type(getattr(cls(), field_name))
    fields = {k: v for k, v in action.items() if k != "kind"}
    try:
        inner = to_message(sub_cls, fields)
    except WireError as exc:
        raise WireError(f"{game_id} action {kind!r}: {exc}") from None
    return cls(**{field_name: inner})


def action_to_proto(game_id: str, action: Mapping[str, JSON]) -> pb.Action:
    """The envelope ``Action`` of an action JSON ``{"kind": ..., ...}``."""
    envelope: Callable[..., pb.Action] = pb.Action  # a game id keyword
    return envelope(**{game_id: game_action_to_proto(game_id, action)})


def game_action_from_proto(game_id: str, msg: Message) -> dict[str, JSON]:
    """The action JSON of a game's typed action message."""
    field_name = msg.WhichOneof("kind")
    if field_name is None:
        raise WireError(f"the {game_id} action has no kind set")
    field = msg.DESCRIPTOR.fields_by_name[field_name]
    return {"kind": _json_key(field), **to_dict(getattr(msg, field_name))}


def action_from_proto(msg: pb.Action) -> tuple[str, dict[str, JSON]]:
    """(game id, action JSON) of an envelope ``Action``."""
    game_id = msg.WhichOneof("game")
    if game_id is None:
        raise WireError("the action holds no game's message")
    return game_id, game_action_from_proto(game_id, getattr(msg, game_id))


__all__ = [
    "ACTION_CLASSES",
    "OBSERVATION_CLASSES",
    "WireError",
    "action_from_proto",
    "action_kinds",
    "action_to_proto",
    "game_action_from_proto",
    "game_action_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "to_dict",
    "to_message",
    "wire_games",
]
