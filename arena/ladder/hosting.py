"""Hosted bots and a ladder's files: where a ladder keeps what it writes, and how a bot
version becomes the bot spec a match plays.

**Files.** Everything a ladder writes besides the database lives under the ladder home
(``--home``, ``$MENAGERIE_LADDER_HOME`` or ``./ladder``; see
:func:`arena.ladder.submission.ladder_home`)::

    <home>/archives/<sha256>.tar.gz        submitted files (content-addressed)
    <home>/cache/<sha256>/                 an archive unpacked (by the worker that plays it)
    <home>/ladders/<name>/records.jsonl    every game record, appended and fsynced before
                                           its result is committed (the runner's journal)
    <home>/ladders/<name>/standings.csv|md|html, replays/, tracking.json

A match's ``record_location`` is ``<records.jsonl>#<game id>``; ``arena replay
<records.jsonl> <game id>`` opens it.

**Specs.** A version submitted as a spec (``random``, ``ismcts:iterations=50``,
``py:module:Class``, ``cmd:...``) plays as that spec, exactly as in a tournament. A
submitted archive plays as a ``cmd:`` bot whose program is :mod:`arena.ladder.launch`:
the arena unpacks the archive into the cache keyed by its hash when it makes the spec
(once; :meth:`arena.ladder.submission.Archives.unpack`), and the program, in the sandbox
of every ``cmd:`` bot (``arena.sandbox``: it can read the cache, not write it), runs the
entry command from there. On a Ray cluster
the ladder home must be on storage every node sees.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from arena.ladder.errors import SubmissionError
from arena.ladder.submission import Archives
from arena.ladder.views import VersionInfo

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
"""Ladder and bot names the command line accepts: usable in file names, MLflow keys."""
LOCATION_SEP = "#"


def slug(name: str) -> str:
    """A file-name-safe form of a ladder name.

    >>> slug("zoo-2p"), slug("my ladder/v2")
    ('zoo-2p', 'my_ladder_v2')
    """
    text = re.sub(r"[^A-Za-z0-9_.\-]+", "_", name.strip()).strip("._")
    return text or "ladder"


@dataclass(frozen=True, slots=True)
class LadderFiles:
    """The files of one ladder under the ladder home."""

    folder: Path

    @classmethod
    def of(cls, home: str | Path | None, ladder: str) -> LadderFiles:
        return cls(Archives(home).home / "ladders" / slug(ladder))

    @property
    def records(self) -> Path:
        return self.folder / "records.jsonl"

    @property
    def replays(self) -> Path:
        return self.folder / "replays"

    @property
    def tracking_state(self) -> Path:
        return self.folder / "tracking.json"

    def standings(self, ext: str) -> Path:
        return self.folder / f"standings.{ext}"


def record_location(records: Path, game_id: str) -> str:
    """Where a counted game's record is: ``<file>#<game id>``."""
    return f"{records}{LOCATION_SEP}{game_id}"


def parse_location(location: str) -> tuple[str, str]:
    """``(file, game id)`` of a record location.

    >>> parse_location("/l/ladders/zoo/records.jsonl#zoo-m12-a1")
    ('/l/ladders/zoo/records.jsonl', 'zoo-m12-a1')
    """
    path, sep, game_id = location.rpartition(LOCATION_SEP)
    return (path, game_id) if sep else (location, "")


def game_id(ladder: str, match_id: int, attempt: int) -> str:
    """The record id of one attempt at a match (a replayed match gets a new id, so a
    record never stands for two different games).

    >>> game_id("zoo 2p", 12, 1)
    'zoo_2p-m12-a1'
    """
    return f"{slug(ladder)}-m{match_id}-a{attempt}"


def archive_command(archives: Archives, sha256: str, entry: str) -> str:
    """The command line that starts a submitted archive's bot (see the module docstring)."""
    return (
        f"python -m arena.ladder.launch --archives {shlex.quote(str(archives.archives))} "
        f"--cache {shlex.quote(str(archives.cache))} --sha {sha256} -- {entry}"
    )


def hosted_spec(version: VersionInfo, archives: Archives) -> str:
    """The bot spec ``version`` plays as (see the module docstring)."""
    if version.spec is not None:
        return version.spec
    if version.archive_sha256 is None or not version.entry:
        raise ValueError(f"{version.label} has neither a spec nor an archive with an entry")
    # Unpacked here, by the arena: in the sandbox the program cannot write the cache. A
    # bad archive is left for the program to report, with the match.
    with contextlib.suppress(SubmissionError):
        archives.unpack(version.archive_sha256)
    return "cmd:" + archive_command(archives, version.archive_sha256, version.entry)
