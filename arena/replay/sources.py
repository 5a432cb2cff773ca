"""Where logged games come from: a record file, a journal, a tournament dir or an MLflow run.

``SOURCE`` on the command line (``arena replay``, ``arena games``, ``arena stats``,
``arena export``) is one of:

- a ``.json`` record file (one record or a list) or a ``.jsonl`` journal/record file;
- a tournament output directory (its ``journal.jsonl``);
- an MLflow run id: the run's ``records/part-*.jsonl`` artifacts (see
  ``arena.tournament.tracking``), read from ``--tracking-uri`` (default: the arena's,
  ``MLFLOW_TRACKING_URI`` or ``sqlite:///mlflow.db`` in the current directory).

Records are returned in order with duplicate game ids dropped (the first copy wins).
:func:`load_verified` also replays every record (``arena.match.records.verify_record``) and
leaves out, reporting each, those that do not reproduce their result and digest: the
analysis commands never count a game that did not happen as recorded.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import UserError
from arena.match.records import RecordError, check_shape, read_records, verify_record


@dataclass
class Source:
    """Records loaded from one source, and a label naming it for messages."""

    records: list[dict[str, Any]]
    label: str


def default_tracking_uri() -> str:
    """The arena's default tracking store (kept in one place: ``arena.tournament.tracking``)."""
    from arena.tournament.tracking import default_tracking_uri as arena_default

    return arena_default()


def is_file_source(source: str) -> bool:
    path = Path(source)
    return path.is_file() or path.is_dir()


def load_source(source: str, tracking_uri: str | None = None) -> Source:
    """All records of ``source`` (a file, a tournament dir or an MLflow run id)."""
    path = Path(source)
    if path.is_dir():
        journal = path / "journal.jsonl"
        if not journal.is_file():
            raise UserError(f"{source} is a directory without journal.jsonl")
        # a live tournament's journal may end in a torn line: read it as the arena does
        from arena.tournament.journal import read_journal

        owner: str | None = None
        try:  # a tournament's journal refuses the lines of another tournament
            owner = json.loads((path / "tournament.json").read_text()).get("tournament_id")
        except (OSError, ValueError, AttributeError):
            owner = None
        records = read_journal(journal, owner)
        return Source([check_shape(r, str(journal)) for r in records], source)
    if path.is_file():
        return Source(_dedupe(read_records(path)), str(source))
    if "/" in source or source.endswith((".json", ".jsonl")):
        raise UserError(f"{source}: no such file or directory")
    return run_source(source, tracking_uri)


def load_verified(source: str, tracking_uri: str | None, report: Callable[[str], None]) -> Source:
    """The records of ``source`` that replay exactly; ``report`` is told of each other one."""
    loaded = load_source(source, tracking_uri)
    good = []
    for record in loaded.records:
        problem = verify_record(record).problem
        if problem is None:
            good.append(record)
        else:
            report(f"warning: game {record.get('game_id')} left out, it does not replay: {problem}")
    if len(good) < len(loaded.records):
        report(
            f"warning: {len(loaded.records) - len(good)} of {len(loaded.records)} records in "
            f"{loaded.label} do not replay (`arena verify` shows each)"
        )
    return Source(good, loaded.label)


def _dedupe(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for rec in records:
        gid = str(rec.get("game_id") or "")
        if gid and gid in seen:
            continue
        seen.add(gid)
        out.append(rec)
    return out


def _client(run_id: str, tracking_uri: str | None) -> tuple[Any, Any, str]:
    from mlflow import MlflowClient

    uri = tracking_uri or default_tracking_uri()
    client = MlflowClient(tracking_uri=uri)
    try:
        run = client.get_run(run_id)
    except Exception as exc:
        first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise UserError(
            f"{run_id!r} is neither a record file nor an MLflow run in {uri}: {first}"
        ) from None
    return client, run, uri


def _run_lines(client: Any, run_id: str, tmp: str) -> Iterator[tuple[str, int, str]]:
    """(part name, line number, line) of every records part of the run, in order."""
    try:
        local = client.download_artifacts(run_id, "records", tmp)
    except Exception as exc:
        raise UserError(f"MLflow run {run_id} has no records artifacts: {exc}") from None
    parts = sorted(Path(local).glob("*.jsonl"))
    if not parts:
        raise UserError(f"MLflow run {run_id} has no records/part-*.jsonl artifacts")
    for part in parts:
        with open(part, "rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                if raw.strip():
                    try:
                        line = raw.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        raise RecordError(
                            f"{part.name}:{lineno}: not UTF-8 text (a bad byte at column "
                            f"{exc.start + 1})"
                        ) from None
                    yield part.name, lineno, line


def _parse(line: str, where: str) -> dict[str, Any]:
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where}: not valid JSON (truncated or corrupt?): {exc.msg}") from None
    return check_shape(rec, where)


def run_source(run_id: str, tracking_uri: str | None = None) -> Source:
    """Every record logged in MLflow run ``run_id``."""
    client, run, _ = _client(run_id, tracking_uri)
    with tempfile.TemporaryDirectory(prefix="mnr-records-") as tmp:
        records = [
            _parse(line, f"run {run_id} records/{part}:{n}")
            for part, n, line in _run_lines(client, run_id, tmp)
        ]
    return Source(_dedupe(records), f"run {run.info.run_name or run_id}")


def run_record(run_id: str, game_id: str, tracking_uri: str | None = None) -> dict[str, Any]:
    """The record of game ``game_id`` (or a unique prefix of it) in MLflow run ``run_id``.

    Only the matching line is parsed, so opening one game of a large run stays fast.
    """
    client, run, uri = _client(run_id, tracking_uri)
    needle = f'"game_id":"{game_id}'
    with tempfile.TemporaryDirectory(prefix="mnr-records-") as tmp:
        found: dict[str, dict[str, Any]] = {}
        count = 0
        for part, n, line in _run_lines(client, run_id, tmp):
            count += 1
            if needle not in line.replace('"game_id": "', '"game_id":"'):
                continue
            rec = _parse(line, f"run {run_id} records/{part}:{n}")
            gid = str(rec.get("game_id"))
            if gid == game_id:
                return rec
            if gid.startswith(game_id):
                found.setdefault(gid, rec)
    if len(found) == 1:
        return next(iter(found.values()))
    if len(found) > 1:
        raise UserError(
            f"game id prefix {game_id!r} is ambiguous in run {run_id}: "
            + ", ".join(sorted(found)[:5])
        )
    raise UserError(
        f"no game {game_id!r} among the {count} records of run {run.info.run_name or run_id} "
        f"({uri}); list them with `arena games {run_id}`"
    )


def pick_game(records: list[dict[str, Any]], game_id: str | None, label: str) -> dict[str, Any]:
    """The record with ``game_id`` (exact or unique prefix); the only one if no id is given."""
    if not records:
        raise UserError(f"{label} holds no game records")
    if game_id is None:
        if len(records) == 1:
            return records[0]
        ids = ", ".join(str(r.get("game_id")) for r in records[:3])
        raise UserError(
            f"{label} holds {len(records)} games: give a GAME_ID (e.g. {ids}; "
            f"list them with `arena games {label}`)"
        )
    exact = [r for r in records if str(r.get("game_id")) == game_id]
    if exact:
        return exact[0]
    prefixed = [r for r in records if str(r.get("game_id")).startswith(game_id)]
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        ids = ", ".join(str(r.get("game_id")) for r in prefixed[:5])
        raise UserError(f"game id prefix {game_id!r} is ambiguous in {label}: {ids}")
    raise UserError(f"no game {game_id!r} in {label} ({len(records)} games)")


def load_game(source: str, game_id: str | None, tracking_uri: str | None = None) -> dict[str, Any]:
    """One record: from a file/dir (``game_id`` optional if it holds one game) or a run."""
    if is_file_source(source):
        loaded = load_source(source, tracking_uri)
        return pick_game(loaded.records, game_id, loaded.label)
    if "/" in source or source.endswith((".json", ".jsonl")):
        raise UserError(f"{source}: no such file or directory")
    if game_id is None:
        raise UserError(
            f"{source!r} is not a file, so it is taken as an MLflow run id: give the GAME_ID "
            f"too (list the games with `arena games {source}`)"
        )
    return run_record(source, game_id, tracking_uri)
