"""CreateMatch, GetMatch and ListMatches for people and scripts.

:func:`list_matches` pages through the server's ``ListMatches`` (newest first). A server
older than that RPC answers UNIMPLEMENTED; then the list is the matches created from
this machine: :func:`create_match` appends one line per match (address, id, game; never
a credential) to :func:`history_path`, and the server is asked for the status of the
last :data:`LIST_LIMIT` of them (one GetMatch each).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.client.connection import CALL_TIMEOUT_S, ClientError, Connection
from engine.core import JSON

HISTORY_ENV = "MENAGERIE_MATCH_HISTORY"
"""Overrides the file of created matches (default ``$XDG_STATE_HOME/menagerie/matches.jsonl``)."""

LIST_LIMIT = 50
"""How many matches ``list_matches`` lists by default."""

PAGE_SIZE = 100
"""Matches asked for per ListMatches call (the server's most)."""

STATUSES = ("waiting", "running", "finished", "aborted")
"""The match states by name (``MATCH_STATUS_<NAME>`` in the proto enum)."""

POLICIES = ("forfeit", "random")
"""The failure policies by name (``FAILURE_POLICY_<NAME>`` in the proto enum)."""


@dataclass(frozen=True)
class CreatedMatch:
    """A new match: its id and one secret credential per seat (in seat order)."""

    address: str
    match_id: str
    game: str
    seed: int
    credentials: list[str]

    def to_json(self) -> dict[str, JSON]:
        return {
            "address": self.address,
            "match_id": self.match_id,
            "game": self.game,
            "seed": self.seed,
            "seats": [{"seat": s, "credential": c} for s, c in enumerate(self.credentials)],
        }


@dataclass(frozen=True)
class MatchStatus:
    """What GetMatch says: ``status`` is waiting, running, finished, aborted or unknown."""

    match_id: str
    status: str
    reason: str
    record: dict[str, Any] | None
    """The game record (format menagerie.record/1) once over, else None."""

    def to_json(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "status": self.status,
            "reason": self.reason,
            "record": self.record,
        }


@dataclass(frozen=True)
class MatchSummary:
    """One line of ``arena match list``: what ListMatches says of a match (or, from the
    local history, what GetMatch and the history say)."""

    match_id: str
    game: str
    players: list[str]
    """The seat names, in seat order."""
    status: str
    created: str
    """When the server created it (ISO 8601, UTC; '' if unknown)."""
    reason: str

    def to_json(self) -> dict[str, JSON]:
        return {
            "match_id": self.match_id,
            "game": self.game,
            "players": list[JSON](self.players),
            "status": self.status,
            "created": self.created,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Listing:
    """What ``list_matches`` found; ``from_history``: the server has no ListMatches, so
    these are matches created from this machine."""

    matches: list[MatchSummary]
    from_history: bool


def status_name(value: int) -> str:
    """``MATCH_STATUS_RUNNING`` -> ``running`` (the proto enum's own names)."""
    try:
        return pb.MatchStatus.Name(value).removeprefix("MATCH_STATUS_").lower()  # type: ignore[arg-type]
    except ValueError:
        return f"status {value}"


def create_match(
    conn: Connection,
    game: str,
    players: int,
    options: Mapping[str, JSON] | None = None,
    *,
    seed: int = 0,
    move_ms: int | None = None,
    on_failure: str = "forfeit",
    names: Sequence[str] = (),
    remember: bool = True,
) -> CreatedMatch:
    """CreateMatch (an admin call); the server checks the game, players and options."""
    if on_failure not in POLICIES:
        raise ClientError(f"--on-failure must be one of {', '.join(POLICIES)}, got {on_failure!r}")
    if move_ms is not None and not 0 < move_ms < 2**32:
        raise ClientError(f"--move-ms must be a positive number of milliseconds, got {move_ms}")
    if not -(2**63) <= seed < 2**63:
        raise ClientError(f"--seed must fit in 64 bits, got {seed}")
    request = pb.CreateMatchRequest(
        game=game,
        num_players=players,
        options_json=json.dumps(dict(options or {})),
        seed=seed,
        time_limit_ms=move_ms or 0,
        on_failure=pb.FailurePolicy.Value(f"FAILURE_POLICY_{on_failure.upper()}"),
        player_names=list(names),
    )
    try:
        reply = conn.stub.CreateMatch(request, timeout=CALL_TIMEOUT_S, metadata=conn.metadata)
    except grpc.RpcError as exc:
        raise conn.error(exc, "CreateMatch") from None
    created = CreatedMatch(
        conn.address, reply.match_id, game, seed, [s.credential for s in reply.seats]
    )
    if remember:
        _remember(created)
    return created


def get_match(conn: Connection, match_id: str) -> MatchStatus:
    """GetMatch (an admin call); a ClientError names an unknown match."""
    if not match_id:
        raise ClientError("a match id is needed (as `arena match create` printed it)")
    try:
        reply = conn.stub.GetMatch(
            pb.GetMatchRequest(match_id=match_id), timeout=CALL_TIMEOUT_S, metadata=conn.metadata
        )
    except grpc.RpcError as exc:
        raise conn.error(exc, "GetMatch", match_id) from None
    record = json.loads(reply.record_json) if reply.record_json else None
    return MatchStatus(reply.match_id, status_name(reply.status), reply.reason, record)


def list_matches(
    conn: Connection,
    match_ids: Sequence[str] = (),
    *,
    limit: int = LIST_LIMIT,
    status: str | None = None,
) -> Listing:
    """The matches ``match_ids`` (GetMatch each), or the server's latest ``limit`` ones
    (ListMatches, newest first; ``status`` keeps only the matches in that state).

    A given match the server no longer knows is listed as ``unknown`` (not an error); any
    other failure (unreachable server, refused token) is.
    """
    if status is not None and status not in STATUSES:
        raise ClientError(f"--status must be one of {', '.join(STATUSES)}, got {status!r}")
    if limit < 1:
        raise ClientError(f"--limit must be at least 1, got {limit}")
    if match_ids:
        return Listing([_summary(conn, m) for m in match_ids], from_history=False)
    wanted = pb.MatchStatus.Value(f"MATCH_STATUS_{(status or 'unspecified').upper()}")
    out: list[MatchSummary] = []
    token = ""
    while len(out) < limit:
        request = pb.ListMatchesRequest(
            page_size=min(PAGE_SIZE, limit - len(out)), page_token=token, status=wanted
        )
        try:
            reply = conn.stub.ListMatches(request, timeout=CALL_TIMEOUT_S, metadata=conn.metadata)
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNIMPLEMENTED and not out:
                return _from_history(conn, limit, status)
            raise conn.error(exc, "ListMatches") from None
        out += [
            MatchSummary(
                m.match_id,
                m.game,
                [p.name for p in m.players],
                status_name(m.status),
                _iso(m.created.ToSeconds()) if m.HasField("created") else "",
                m.reason,
            )
            for m in reply.matches
        ]
        token = reply.next_page_token
        if not token:
            break
    return Listing(out[:limit], from_history=False)


def _from_history(conn: Connection, limit: int, status: str | None) -> Listing:
    """The latest ``limit`` matches created on this server from here (see the module)."""
    entries = created_here(conn.address)[-limit:]
    games = {e["match_id"]: str(e.get("game", "")) for e in entries}
    created = {e["match_id"]: str(e.get("created_at", "")) for e in entries}
    out = []
    for match_id in games:
        summary = _summary(conn, match_id)
        if status is None or summary.status == status:
            out.append(
                dataclasses.replace(
                    summary,
                    game=summary.game or games[match_id],
                    created=created[match_id],
                )
            )
    return Listing(out, from_history=True)


def _summary(conn: Connection, match_id: str) -> MatchSummary:
    """GetMatch's answer as a list line (game and players from the record, once over)."""
    try:
        got = get_match(conn, match_id)
    except ClientError as exc:
        if exc.code != grpc.StatusCode.NOT_FOUND:
            raise
        return MatchSummary(match_id, "", [], "unknown", "", "the server does not know it")
    record = got.record or {}
    players = [str(p.get("name", "")) for p in record.get("players", []) if isinstance(p, dict)]
    return MatchSummary(match_id, str(record.get("game", "")), players, got.status, "", got.reason)


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def history_path() -> Path:
    """The file of matches created from this machine (see the module docstring)."""
    if os.environ.get(HISTORY_ENV):
        return Path(os.environ[HISTORY_ENV])
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "menagerie" / "matches.jsonl"


def created_here(address: str) -> list[dict[str, Any]]:
    """The remembered matches created on ``address`` (oldest first); bad lines skipped."""
    path = history_path()
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ClientError(f"cannot read the list of created matches {path}: {exc}") from None
    out: list[dict[str, Any]] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and entry.get("address") == address and entry.get("match_id"):
            out.append(entry)
    return out


def _remember(created: CreatedMatch) -> None:
    """Append the match (not its credentials) to the history; a failure only loses that."""
    path = history_path()
    entry = {
        "address": created.address,
        "match_id": created.match_id,
        "game": created.game,
        "players": len(created.credentials),
        "created_at": _iso(time.time()),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(json.dumps(entry) + "\n")
    except OSError:
        pass  # the match exists all the same; only `arena match list` will not show it


__all__ = [
    "HISTORY_ENV",
    "LIST_LIMIT",
    "PAGE_SIZE",
    "POLICIES",
    "STATUSES",
    "CreatedMatch",
    "Listing",
    "MatchStatus",
    "MatchSummary",
    "create_match",
    "created_here",
    "get_match",
    "history_path",
    "list_matches",
    "status_name",
]
