"""Hosted bots and a ladder's files: where a ladder keeps what it writes, and how a bot
version becomes the bot spec a match plays.

**Files.** Everything a ladder writes besides the database lives under the ladder home
(``--home``, ``$MENAGERIE_LADDER_HOME`` or ``./ladder``; see
:func:`arena.ladder.submission.ladder_home`)::

    <home>/archives/<sha256>.tar.gz        submitted files (content-addressed)
    <home>/cache/<sha256>/                 an archive unpacked (by the arena that plays it)
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
entry command from there.

**On a Ray cluster** (``arena ladder run --address``, or ``RAY_ADDRESS``) the ladder home
need not be on storage every node sees: the runner ships the archives its matches need
with the job. Each archive's bytes go into Ray's object store once per run
(``ray.put``, when a version that needs it first plays); the task's
:class:`~arena.tournament.ray_runner.GameSetup` carries their references in a
:class:`ShippedArchives`, which the worker calls on each game before it plays
(``GameSetup.prepare``): an archive missing from the worker's own ladder home (the
node's ``$MENAGERIE_LADDER_HOME``, else ``./ladder`` in the worker's directory) is
fetched, its hash verified (:func:`arena.ladder.submission.store_archive`), kept under
``archives/`` and unpacked into ``cache/`` there, once per node; the game's specs are
rewritten to that home. A version that becomes active during the run starts a new
round of tasks carrying its archive too. Why the object store rather than Ray's
``runtime_env``: the runtime environment is fixed when the driver connects, while
bots are submitted to a running ladder; and the object store moves bytes between nodes
without any shared file system. A corrupt or missing archive fails that match's games
with a message naming the archive (the match is voided), never the run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.ladder.errors import SubmissionError
from arena.ladder.submission import Archives
from arena.ladder.views import VersionInfo
from arena.tournament.schedule import ScheduledGame

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


def _launcher(archives: Archives) -> str:
    """The start of every archive command of a ladder home (its folders named)."""
    return (
        f"python -m arena.ladder.launch --archives {shlex.quote(str(archives.archives))} "
        f"--cache {shlex.quote(str(archives.cache))} --sha "
    )


def archive_command(archives: Archives, sha256: str, entry: str) -> str:
    """The command line that starts a submitted archive's bot (see the module docstring)."""
    return f"{_launcher(archives)}{sha256} -- {entry}"


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


_SHA_LEN = 64


def archive_spec_sha(spec: str, archives: Archives) -> tuple[str, str] | None:
    """``(sha256, entry)`` when ``spec`` is the archive spec :func:`hosted_spec` made with
    ``archives``; None for any other spec.

    >>> a = Archives("/l")
    >>> archive_spec_sha("cmd:" + archive_command(a, "ab" * 32, "python bot.py"), a)[1]
    'python bot.py'
    >>> archive_spec_sha("cmd:python bot.py", a) is None
    True
    """
    head = "cmd:" + _launcher(archives)
    if not spec.startswith(head):
        return None
    rest = spec[len(head) :]
    sha, sep, entry = rest[:_SHA_LEN], rest[_SHA_LEN : _SHA_LEN + 4], rest[_SHA_LEN + 4 :]
    return (sha, entry) if sep == " -- " and entry else None


@dataclass
class ShippedArchives:
    """The submitted archives a batch of ladder games needs, carried to Ray workers that
    do not share the ladder home (see the module docstring). Called by the worker on each
    game (``GameSetup.prepare``): returns the game with its archive specs pointing at the
    worker's own ladder home, the archives fetched and unpacked there first."""

    payloads: dict[str, Any]
    """sha256 -> the archive's compressed bytes: a Ray ``ObjectRef`` of them (put once by
    the runner), or the bytes themselves (a caller without Ray)."""
    source: str
    """The driver's ladder home, whose paths the specs name."""
    home: str | None = None
    """The ladder home on the worker (None: the node's ``$MENAGERIE_LADDER_HOME``, else
    ``./ladder`` in the worker's directory)."""
    _local: Archives | None = field(default=None, init=False, repr=False, compare=False)

    def __call__(self, game: ScheduledGame) -> ScheduledGame:
        source = Archives(self.source)
        specs = tuple(self._localize(spec, source) for spec in game.specs)
        return game if specs == game.specs else dataclasses.replace(game, specs=specs)

    def _localize(self, spec: str, source: Archives) -> str:
        found = archive_spec_sha(spec, source)
        if found is None:
            return spec
        sha, entry = found
        if self._local is None:
            self._local = Archives(self.home)
        local = self._local
        if local.home == source.home:
            return spec  # the worker shares the home (one machine, shared storage)
        if not (local.cache / sha).is_dir():
            if sha not in self.payloads:
                raise SubmissionError(f"archive {sha[:12]} was not shipped with the task")
            local.store(sha, _bytes_of(self.payloads[sha]))
            local.unpack(sha)
        return "cmd:" + archive_command(local, sha, entry)


def _bytes_of(payload: Any) -> bytes:
    """An archive's bytes from what was shipped (a Ray ObjectRef or the bytes)."""
    if isinstance(payload, bytes | bytearray | memoryview):
        return bytes(payload)
    import ray

    data = ray.get(payload, timeout=600)
    if not isinstance(data, bytes | bytearray | memoryview):
        raise SubmissionError(f"a shipped archive is {type(data).__name__}, not bytes")
    return bytes(data)
