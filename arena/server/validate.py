"""Checks of every request field, before any of it reaches the engine or the registry.

Each check raises :class:`StreamError` with INVALID_ARGUMENT and a message naming the
field and the limit, so a client learns what was wrong and the server never meets an
input it was not written for (a 1,000-deep ``options_json`` once ended in a
``RecursionError`` that reached the client as UNKNOWN). The limits are module constants,
not settings: they bound what a well-formed request can hold, whatever the deployment.
"""

from __future__ import annotations

import json
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.server.streams import StreamError

MAX_ID_CHARS = 128
"""A match id or a credential (the server issues 24-byte hex credentials and short ids)."""
MAX_NAME_CHARS = 64
"""A game id, a player name, a bot's name or version."""
MAX_OPTIONS_BYTES = 16 * 1024
"""``CreateMatchRequest.options_json`` (every game's options fit in a few hundred bytes)."""
MAX_OPTIONS_DEPTH = 16
"""Nesting of ``options_json`` (objects and arrays; the games use at most 2)."""
MAX_PLAYERS = 16
"""``CreateMatchRequest.num_players`` before the game's own check (no game seats more)."""
MAX_TIME_LIMIT_MS = 24 * 3600 * 1000
"""``CreateMatchRequest.time_limit_ms``: one day per move."""
MAX_PAGE_SIZE = 100
"""``ListMatchesRequest.page_size`` (0 means :data:`DEFAULT_PAGE_SIZE`)."""
DEFAULT_PAGE_SIZE = 50
"""The page size of a ListMatches request that gives none."""
MAX_TOKEN_CHARS = 256
"""``ListMatchesRequest.page_token`` (the server's tokens are a number and a match id)."""
STATUS_VALUES = frozenset(pb.MatchStatus.values())
"""The ``MatchStatus`` values of this version of the protocol."""
POLICY_VALUES = frozenset(pb.FailurePolicy.values())
"""The ``FailurePolicy`` values of this version of the protocol (proto3 lets any int32 in)."""


def _bad(message: str) -> StreamError:
    return StreamError(grpc.StatusCode.INVALID_ARGUMENT, message)


def check_text(field: str, value: str, limit: int) -> None:
    """At most ``limit`` characters, none of them a control character."""
    if len(value) > limit:
        raise _bad(f"{field} is {len(value)} characters long (at most {limit})")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise _bad(f"{field} contains control characters")


def json_depth(text: str) -> int:
    """The deepest nesting of objects and arrays in ``text`` (strings skipped), counted
    without parsing, so that a hostile document is refused before ``json.loads`` recurses.

    >>> json_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_options(text: str) -> dict[str, Any]:
    """``options_json`` as a dict ("" is ``{}``), within the size and depth limits."""
    if not text:
        return {}
    size = len(text.encode())
    if size > MAX_OPTIONS_BYTES:
        raise _bad(f"options_json is {size} bytes (at most {MAX_OPTIONS_BYTES})")
    depth = json_depth(text)
    if depth > MAX_OPTIONS_DEPTH:
        raise _bad(f"options_json is nested {depth} levels deep (at most {MAX_OPTIONS_DEPTH})")
    try:
        options = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad(f"options_json is not valid JSON: {exc.msg}") from None
    except RecursionError:  # (cannot happen below the depth limit; a safety net)
        raise _bad("options_json is nested too deeply") from None
    if not isinstance(options, dict):
        raise _bad("options_json must be a JSON object")
    return options


def check_create(request: pb.CreateMatchRequest) -> None:
    """The fields of a CreateMatch request that need no game to check."""
    check_text("game", request.game, MAX_NAME_CHARS)
    if not 1 <= request.num_players <= MAX_PLAYERS:
        raise _bad(f"num_players must be 1-{MAX_PLAYERS}, got {request.num_players}")
    if request.time_limit_ms > MAX_TIME_LIMIT_MS:
        raise _bad(f"time_limit_ms is {request.time_limit_ms} (at most {MAX_TIME_LIMIT_MS})")
    if request.on_failure not in POLICY_VALUES:
        known = ", ".join(f"{pb.FailurePolicy.Name(v)}={v}" for v in sorted(POLICY_VALUES))
        raise _bad(f"on_failure {request.on_failure} is not a FailurePolicy ({known})")
    if len(request.player_names) > MAX_PLAYERS:
        raise _bad(f"player_names has {len(request.player_names)} names (at most {MAX_PLAYERS})")
    for i, name in enumerate(request.player_names):
        check_text(f"player_names[{i}]", name, MAX_NAME_CHARS)


def check_match_id(match_id: str) -> None:
    """A match id of GetMatch and Watch: not empty, within the limit."""
    if not match_id:
        raise _bad("match_id is empty")
    check_text("match_id", match_id, MAX_ID_CHARS)


def check_watch(request: pb.WatchRequest) -> None:
    """The fields of a Watch request (the credential itself is checked by the registry)."""
    check_match_id(request.match_id)
    check_text("credential", request.credential, MAX_ID_CHARS)


def check_list(request: pb.ListMatchesRequest) -> int:
    """The fields of a ListMatches request; returns the page size (the default for 0).
    The page token's meaning is checked where it is read (``Hub.list_page``)."""
    if request.page_size > MAX_PAGE_SIZE:
        raise _bad(f"page_size is {request.page_size} (at most {MAX_PAGE_SIZE})")
    check_text("page_token", request.page_token, MAX_TOKEN_CHARS)
    if request.status not in STATUS_VALUES:
        known = ", ".join(f"{pb.MatchStatus.Name(v)}={v}" for v in sorted(STATUS_VALUES))
        raise _bad(f"status {request.status} is not a MatchStatus ({known})")
    return request.page_size or DEFAULT_PAGE_SIZE


def check_join(join: pb.Join) -> None:
    """The fields of a Join (the credential itself is checked by the registry)."""
    check_text("Join.credential", join.credential, MAX_ID_CHARS)
    check_text("Join.match_id", join.match_id, MAX_ID_CHARS)
    check_text("Join.bot_name", join.bot_name, MAX_NAME_CHARS)
    check_text("Join.bot_version", join.bot_version, MAX_NAME_CHARS)
