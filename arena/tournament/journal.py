"""The tournament journal: every finished game, durably, exactly once.

An append-only JSONL file (one game record per line). The driver hands the records of
a finished batch to a writer thread that writes, flushes and ``os.fsync``s them (one
fsync for whatever queued up meanwhile), and the games count only once that is done, so whatever the
journal holds survives a crash of the driver, a worker or the machine. Each game id
appears once: a record whose id is already there is skipped (a retried task or a
resumed run may deliver a game twice; the second copy is harmless).

Opening a journal repairs a torn last line (a driver killed in the middle of a write):
the partial line is cut off, and that game is simply played again. A bad line in the
middle (which this module never writes; a bad byte included) is skipped with a warning.
An exclusive lock keeps two drivers from writing the same journal.

Every record carries the id of its tournament (``tournament_id``). A journal opened for a
tournament (``owner``) refuses the lines of any other (a ``journal.jsonl`` left in the
output dir by another tournament, or pasted into it): they are not adopted, not counted,
not uploaded, and a warning says how many there are and whose they are; they stay on disk
untouched.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import sys
import threading
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from arena.errors import UserError

_GAME_ID = b',"game_id":"'
_HEAD_BYTES = 65536


def quick_game_id(raw: bytes) -> str | None:
    """The game id of a record line written by :func:`arena.match.records.dumps_line`,
    found without parsing the line (None when it cannot be found that way: parse it).

    Only a top-level key can read ``,"game_id":"`` unescaped (inside a JSON string every
    quote is escaped), and a record's header keys come before its steps.

    >>> quick_game_id(b'{"format":"x","players":["a"],"game_id":"t-r1-g2","seed":1}\\n')
    't-r1-g2'
    >>> quick_game_id(b'{"format":"x","game_id":"a\\\\"b"}\\n') is None
    True
    """
    at = raw.find(_GAME_ID, 0, _HEAD_BYTES)
    if at < 0:
        return None
    start = at + len(_GAME_ID)
    end = raw.find(b'"', start, start + 1024)
    if end < 0 or b"\\" in raw[start:end]:
        return None
    try:
        return raw[start:end].decode()
    except UnicodeDecodeError:
        return None


class JournalLocked(UserError):
    """Another driver holds the journal."""


class Journal:
    """An open journal: the ids it holds and the byte range of every record."""

    def __init__(
        self,
        path: Path,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        wanted: Callable[[str], bool] | None = None,
        owner: str | None = None,
    ):
        """``on_record``: called with every record on disk, in order, as it is opened.
        ``wanted``: only records whose game id it accepts are parsed and passed on; the
        others are skipped at the cost of finding their id (a long-lived journal, such
        as a ladder's records file, opens at the speed of reading it).
        ``owner``: the tournament id every line must carry (others are refused)."""
        self.path = path
        self.owner = owner
        self.ids: set[str] = set()
        self._order: list[str] = []
        """The game id of every record, in journal order."""
        self.foreign: Counter[str] = Counter()
        """Refused lines by the tournament id they carry."""
        self._starts = array("q")
        self._ends = array("q")
        self.repaired_bytes = 0
        self.bad_lines = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[bytes] = open(path, "a+b")  # noqa: SIM115 - held open until close()
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise JournalLocked(
                f"{path} is in use by another tournament driver (wait for it or stop it)"
            ) from None
        self._load(on_record, wanted)
        self._end_pos = self._fh.tell()
        self.durable = len(self)
        """How many records are on disk (fsynced); :meth:`lines` may read that many."""
        self.writer_seconds = 0.0
        self._queue: queue.SimpleQueue[tuple[bytes, int, Any, list[int]] | None] = (
            queue.SimpleQueue()
        )
        self._done: queue.SimpleQueue[tuple[Any, list[int]]] = queue.SimpleQueue()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._error: OSError | None = None

    # -- reading -----------------------------------------------------------------

    def _load(
        self,
        on_record: Callable[[dict[str, Any]], None] | None,
        wanted: Callable[[str], bool] | None,
    ) -> None:
        fh = self._fh
        fh.seek(0)
        offset = 0
        good_end = 0
        for raw in fh:
            start, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n"):
                break  # torn last line: repaired below
            quick = None if wanted is None or self.owner is not None else quick_game_id(raw)
            if quick is not None and not (
                on_record is not None and wanted is not None and wanted(quick)
            ):
                good_end = offset
                if quick not in self.ids:
                    self.ids.add(quick)
                    self._order.append(quick)
                    self._starts.append(start)
                    self._ends.append(offset)
                continue
            try:
                record = json.loads(raw)
                game_id = record["game_id"]
            except (ValueError, KeyError, TypeError):
                self.bad_lines += 1
                print(
                    f"warning: {self.path}: skipping a corrupt line at byte {start}",
                    file=sys.stderr,
                )
                good_end = offset
                continue
            good_end = offset
            if self.owner is not None and record.get("tournament_id") != self.owner:
                self.foreign[str(record.get("tournament_id"))] += 1
                continue
            if game_id in self.ids:
                continue
            self.ids.add(game_id)
            self._order.append(game_id)
            self._starts.append(start)
            self._ends.append(offset)
            if on_record is not None:
                on_record(record)
        if self.foreign:
            whose = ", ".join(f"{n} of {tid}" for tid, n in self.foreign.most_common(3))
            print(
                f"warning: {self.path}: {sum(self.foreign.values())} line(s) are not of "
                f"tournament {self.owner} ({whose}); they are refused: not counted, not "
                "rated, not uploaded (they stay in the file; move it away to keep them apart)",
                file=sys.stderr,
            )
        size = fh.seek(0, os.SEEK_END)
        if size > good_end:
            # a torn last line (or garbage after the last newline): cut it off
            self.repaired_bytes = size - good_end
            fh.truncate(good_end)
            fh.flush()
            os.fsync(fh.fileno())
            print(
                f"warning: {self.path}: repaired a torn last line ({self.repaired_bytes} bytes "
                "cut; that game will be played again)",
                file=sys.stderr,
            )
        fh.seek(0, os.SEEK_END)

    def __len__(self) -> int:
        return len(self._starts)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self.ids

    def game_id(self, i: int) -> str:
        """The game id of record ``i`` (journal order)."""
        return self._order[i]

    def line(self, i: int) -> bytes:
        """Record ``i`` as its raw JSONL line."""
        with open(self.path, "rb") as fh:
            fh.seek(self._starts[i])
            return fh.read(self._ends[i] - self._starts[i])

    def lines(self, start: int, stop: int) -> list[bytes]:
        """Records ``start..stop-1`` (in journal order) as raw JSONL lines."""
        out = []
        with open(self.path, "rb") as fh:
            for i in range(start, min(stop, len(self))):
                fh.seek(self._starts[i])
                out.append(fh.read(self._ends[i] - self._starts[i]))
        return out

    def records(self, start: int = 0) -> Iterator[dict[str, Any]]:
        for i in range(start, len(self), 1000):
            for line in self.lines(i, i + 1000):
                yield json.loads(line)

    # -- writing -----------------------------------------------------------------

    def _stage(self, items: Iterable[tuple[str, str]]) -> tuple[list[int], bytes]:
        """Reserve the place of new records (duplicates skipped): (positions, bytes)."""
        chunks: list[bytes] = []
        accepted: list[int] = []
        pos = self._end_pos
        for i, (game_id, line) in enumerate(items):
            if game_id in self.ids:
                continue
            data = line.encode() if line.endswith("\n") else (line + "\n").encode()
            self.ids.add(game_id)
            self._order.append(game_id)
            self._starts.append(pos)
            pos += len(data)
            self._ends.append(pos)
            chunks.append(data)
            accepted.append(i)
        self._end_pos = pos
        return accepted, b"".join(chunks)

    def append(self, items: Iterable[tuple[str, str]]) -> list[int]:
        """Append ``(game_id, JSONL line)`` pairs durably (written and fsynced when this
        returns); returns the positions of the ones written (duplicates of ids already
        in the journal are skipped)."""
        token = object()
        self.append_async(items, token)
        for done, accepted in self.completed(wait=True):
            if done is token:
                return accepted
        raise AssertionError("journal write lost")  # pragma: no cover

    def append_async(self, items: Iterable[tuple[str, str]], token: Any) -> None:
        """Queue an append for the writer thread; ``(token, positions written)`` comes
        out of :meth:`completed` once the records are on disk (fsynced), and only then
        do they count (:attr:`durable`). Records keep the order of the calls."""
        accepted, blob = self._stage(items)
        if self._thread is None:
            self._thread = threading.Thread(target=self._writer, name="journal", daemon=True)
            self._thread.start()
        self._pending += 1
        self._queue.put((blob, len(self), token, accepted))

    def completed(self, wait: bool = False) -> list[tuple[Any, list[int]]]:
        """Appends that are durable now, in order; ``wait``: all queued ones."""
        out: list[tuple[Any, list[int]]] = []
        while self._pending:
            if self._error is not None:
                raise OSError(f"cannot write {self.path}: {self._error}") from self._error
            try:
                item = self._done.get(block=wait, timeout=0.5 if wait else None)
            except queue.Empty:
                if wait:
                    continue
                break
            self._pending -= 1
            out.append(item)
        if self._error is not None and self._pending:
            raise OSError(f"cannot write {self.path}: {self._error}") from self._error
        return out

    def _writer(self) -> None:
        """Writes queued appends; one fsync for whatever queued up meanwhile."""
        while True:
            batch = [self._queue.get()]
            while True:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stop = any(item is None for item in batch)
            work = [item for item in batch if item is not None]
            if work:
                t0 = time.perf_counter()
                try:
                    self._fh.write(b"".join(blob for blob, _, _, _ in work))
                    self._fh.flush()
                    os.fsync(self._fh.fileno())
                except OSError as exc:
                    self._error = exc
                    return
                self.writer_seconds += time.perf_counter() - t0
                self.durable = work[-1][1]
                for _, _, token, accepted in work:
                    self._done.put((token, accepted))
            if stop:
                return

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if not self._fh.closed:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_journal(path: Path, owner: str | None = None) -> Iterator[dict[str, Any]]:
    """The records of a journal file (read-only: no lock, no repair; a torn or corrupt
    line is skipped; duplicates are dropped; ``owner``: lines of another tournament are
    refused, with a warning on stderr)."""
    seen: set[str] = set()
    foreign = 0
    with open(path, "rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            try:
                record = json.loads(raw)
                game_id = record["game_id"]
            except (ValueError, KeyError, TypeError):
                continue
            if owner is not None and record.get("tournament_id") != owner:
                foreign += 1
                continue
            if game_id in seen:
                continue
            seen.add(game_id)
            yield record
    if foreign:
        print(
            f"warning: {path}: {foreign} line(s) are not of tournament {owner}; refused",
            file=sys.stderr,
        )
