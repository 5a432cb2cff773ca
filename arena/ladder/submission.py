"""Submissions: a bot's files become an immutable, content-addressed archive.

A submitted directory (or single file) is packed into a **deterministic** tar stream —
entries sorted by path, every mtime 0, uid/gid 0 with no user or group names, modes
reduced to 0644/0755 (0755: directories and files with an execute bit) — so the same files
always give the same archive. Its **sha256 is the hash of the uncompressed tar stream**
(independent of the gzip implementation) and names the stored file
``<home>/archives/<sha256>.tar.gz``; re-submitting the same files stores nothing new.

Refused, with a message naming the file: more than ``max_bytes`` of content or
``max_files`` entries, a symbolic link that leads outside the submission, a device file,
FIFO or socket, a file that cannot be read. Version-control and cache folders (``.git``,
``__pycache__``, ...) and compiled ``.pyc`` files are left out: they change without the
bot changing.

Workers unpack an archive into a cache keyed by its hash (:func:`unpack`): the archive's
hash is verified, it is extracted with the ``data`` filter (no absolute or ``..`` paths, no
links out, no devices) into a temporary folder that is then renamed into place, so a
reader never sees a half-unpacked bot and two workers racing unpack it once.

A **spec** (``cmd:...``, ``py:...``, ``random``, ``greedy``, ``ismcts:...``) is not packed:
the store keeps it as given (:func:`is_spec`).

>>> is_spec("ismcts:iterations=400"), is_spec("cmd:python bot.py"), is_spec("./mybot")
(True, True, False)
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.ladder.errors import SubmissionError

MAX_BYTES = 64 * 1024 * 1024
"""Default limit on a submission's content (uncompressed)."""
MAX_BYTES_ENV = "MENAGERIE_LADDER_MAX_BYTES"
"""Overrides :data:`MAX_BYTES` for a ladder home's :class:`Archives` (the operator's limit)."""
MAX_FILES = 10_000
HOME_ENV = "MENAGERIE_LADDER_HOME"
DEFAULT_HOME = "ladder"
SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)
SKIPPED_SUFFIXES = (".pyc", ".pyo")
SPEC_PREFIXES = ("cmd:", "py:")
SPEC_NAMES = frozenset({"random", "greedy", "ismcts"})
_SHA256 = re.compile(r"[0-9a-f]{64}")


def ladder_home(home: str | Path | None = None) -> Path:
    """The ladder's home folder: ``home``, else ``$MENAGERIE_LADDER_HOME``, else ``./ladder``
    (beside ``ladder.db`` and ``mlflow.db``)."""
    return Path(home or os.environ.get(HOME_ENV) or DEFAULT_HOME).expanduser().absolute()


def is_spec(text: str) -> bool:
    """True for a bot spec (stored as is), False for a path to pack."""
    text = text.strip()
    if text.startswith(SPEC_PREFIXES):
        return True
    return text.split(":", 1)[0] in SPEC_NAMES and not Path(text).exists()


@dataclass(frozen=True, slots=True)
class Packed:
    """A packed submission."""

    sha256: str
    path: Path
    """The stored ``<sha256>.tar.gz``."""
    files: tuple[str, ...]
    """The regular files and links packed, as archive paths."""
    content_bytes: int
    archive_bytes: int
    entry: str | None
    """The entry command guessed from the files (:func:`guess_entry`), if any."""


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    kind: str  # "file", "dir" or "link"
    path: Path
    link: str = ""
    executable: bool = False


def _human(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _safe_name(name: str) -> str:
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or not name or "\\" in name:
        raise SubmissionError(f"{name!r}: an unsafe path in a submission")
    return name


def _walk(root: Path) -> Iterator[_Entry]:
    """The entries under ``root`` (links not followed), refusing anything unsafe."""
    real_root = root.resolve()
    for current, dirs, files in os.walk(root, followlinks=False, onerror=_walk_error):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in [*dirs, *sorted(files)]:
            path = here / name
            rel = path.relative_to(root).as_posix()
            if name.endswith(SKIPPED_SUFFIXES):
                continue
            try:
                st = path.lstat()
            except OSError as exc:
                raise SubmissionError(f"{rel}: cannot read: {exc.strerror}") from None
            if stat.S_ISLNK(st.st_mode):
                target = os.readlink(path)
                resolved = (here / target).resolve()
                if resolved != real_root and real_root not in resolved.parents:
                    raise SubmissionError(
                        f"{rel}: a symbolic link that leads outside the submission ({target})"
                    )
                link = os.path.relpath(resolved, here.resolve())
                yield _Entry(_safe_name(rel), "link", path, link=Path(link).as_posix())
            elif stat.S_ISDIR(st.st_mode):
                yield _Entry(_safe_name(rel), "dir", path)
            elif stat.S_ISREG(st.st_mode):
                yield _Entry(_safe_name(rel), "file", path, executable=bool(st.st_mode & 0o111))
            else:
                raise SubmissionError(
                    f"{rel}: not a regular file, folder or link (a device, FIFO or socket)"
                )


def _walk_error(exc: OSError) -> None:
    raise SubmissionError(f"{exc.filename}: cannot read: {exc.strerror}")


def _entries(source: Path) -> list[_Entry]:
    try:
        st = source.stat()
    except OSError as exc:
        raise SubmissionError(f"{source}: cannot read: {exc.strerror}") from None
    if stat.S_ISREG(st.st_mode):
        return [
            _Entry(_safe_name(source.name), "file", source, executable=bool(st.st_mode & 0o111))
        ]
    if not stat.S_ISDIR(st.st_mode):
        raise SubmissionError(f"{source}: submit a folder or a regular file")
    entries = sorted(_walk(source), key=lambda e: e.name)
    if not any(e.kind != "dir" for e in entries):
        raise SubmissionError(f"{source}: the folder has no files to submit")
    return entries


def _tar(source: Path, max_bytes: int, max_files: int) -> tuple[bytes, list[_Entry], int]:
    """The deterministic tar stream of ``source``, its entries and content bytes."""
    src = Path(source)
    entries = _entries(src)
    if len(entries) > max_files:
        raise SubmissionError(
            f"{src}: {len(entries)} files and folders, over the limit of {max_files}"
        )
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for entry in entries:
            info = tarfile.TarInfo(entry.name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if entry.kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif entry.kind == "link":
                info.type, info.mode, info.linkname = tarfile.SYMTYPE, 0o777, entry.link
                tar.addfile(info)
            else:
                try:
                    data = entry.path.read_bytes()
                except OSError as exc:
                    raise SubmissionError(f"{entry.name}: cannot read: {exc.strerror}") from None
                total += len(data)
                if total > max_bytes:
                    raise SubmissionError(
                        f"{src}: the submission is over the size limit of {_human(max_bytes)} "
                        f"(at {entry.name}); leave out what the bot does not need"
                    )
                info.type, info.size = tarfile.REGTYPE, len(data)
                info.mode = 0o755 if entry.executable else 0o644
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue(), entries, total


def guess_entry(
    files: list[str] | tuple[str, ...], executables: frozenset[str] = frozenset()
) -> str | None:
    """The command that probably starts these files: ``python main.py``/``bot.py``, a lone
    Python file, or an executable ``bot``/``run``/``main`` (None: ask for ``--cmd``).

    >>> guess_entry(["lib/util.py", "main.py"]), guess_entry(["mybot.py"])
    ('python main.py', 'python mybot.py')
    >>> guess_entry(["bot", "README"], frozenset({"bot"})), guess_entry(["a.py", "b.py"])
    ('./bot', None)
    """
    top = [f for f in files if "/" not in f]
    for name in ("main.py", "bot.py", "__main__.py"):
        if name in top:
            return f"python {name}"
    for name in ("bot", "run", "main"):
        if name in executables and name in top:
            return f"./{name}"
    python = [f for f in top if f.endswith(".py")]
    return f"python {python[0]}" if len(python) == 1 else None


def archive_path(archives: str | Path, sha256: str) -> Path:
    if not _SHA256.fullmatch(sha256):
        raise SubmissionError(f"{sha256!r} is not a sha256 archive hash")
    return Path(archives) / f"{sha256}.tar.gz"


def pack(
    source: str | Path,
    archives: str | Path,
    *,
    max_bytes: int = MAX_BYTES,
    max_files: int = MAX_FILES,
) -> Packed:
    """Pack ``source`` into ``archives/<sha256>.tar.gz`` (atomically; kept if present)."""
    data, entries, total = _tar(Path(source), max_bytes, max_files)
    sha = hashlib.sha256(data).hexdigest()
    folder = Path(archives)
    folder.mkdir(parents=True, exist_ok=True)
    target = archive_path(folder, sha)
    if not target.exists():
        _write_archive(target, gzip.compress(data, mtime=0))
    files = tuple(e.name for e in entries if e.kind != "dir")
    executables = frozenset(e.name for e in entries if e.executable)
    return Packed(
        sha256=sha,
        path=target,
        files=files,
        content_bytes=total,
        archive_bytes=target.stat().st_size,
        entry=guess_entry(files, executables),
    )


def store_archive(sha256: str, compressed: bytes, archives: str | Path) -> Path:
    """Keep an archive received as bytes (a Ray worker that does not share the ladder
    home: :class:`arena.ladder.hosting.ShippedArchives`) as ``archives/<sha256>.tar.gz``,
    after checking that its content hashes to ``sha256`` (written atomically; kept if
    present). SubmissionError when the bytes are not that archive."""
    target = archive_path(archives, sha256)
    if target.exists():
        return target
    try:
        actual = hashlib.sha256(gzip.decompress(compressed)).hexdigest()
    except (OSError, EOFError) as exc:
        raise SubmissionError(f"archive {sha256[:12]} arrived corrupt: {exc}") from None
    if actual != sha256:
        raise SubmissionError(
            f"archive {sha256[:12]} arrived corrupt: its content hashes to {actual[:12]}"
        )
    Path(archives).mkdir(parents=True, exist_ok=True)
    _write_archive(target, compressed)
    return target


def _write_archive(target: Path, compressed: bytes) -> None:
    """``target`` written atomically and durably (a uniquely named temporary file in the
    same folder, fsynced, then renamed): racing writers of one archive leave one whole
    file, never a torn one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:12]}-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as raw:
            raw.write(compressed)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def unpack(
    sha256: str, cache: str | Path, archives: str | Path, *, max_bytes: int = MAX_BYTES
) -> Path:
    """The folder ``cache/<sha256>`` holding the archive's files (unpacked once, verified)."""
    source = archive_path(archives, sha256)
    folder = Path(cache)
    target = folder / sha256
    if target.is_dir():
        return target
    try:
        compressed = source.read_bytes()
    except OSError as exc:
        raise SubmissionError(
            f"archive {sha256[:12]}: cannot read {source}: {exc.strerror}"
        ) from None
    try:
        data = gzip.decompress(compressed)
    except (OSError, EOFError) as exc:
        raise SubmissionError(f"archive {sha256[:12]} is corrupt: {exc}") from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise SubmissionError(
            f"archive {sha256[:12]} is corrupt: its content hashes to {actual[:12]}"
        )
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{sha256[:12]}-", dir=folder))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
            members = tar.getmembers()
            for member in members:
                if not (member.isreg() or member.isdir() or member.issym()):
                    raise SubmissionError(
                        f"archive {sha256[:12]}: unsafe entry {member.name!r} (not a file, "
                        "folder or link)"
                    )
                try:
                    _safe_name(member.name)
                except SubmissionError:
                    raise SubmissionError(
                        f"archive {sha256[:12]}: unsafe entry {member.name!r} (absolute or ..)"
                    ) from None
            if sum(m.size for m in members) > max_bytes:
                raise SubmissionError(
                    f"archive {sha256[:12]} unpacks to more than {_human(max_bytes)}"
                )
            try:
                tar.extractall(tmp, filter="data")
            except tarfile.FilterError as exc:
                raise SubmissionError(f"archive {sha256[:12]}: unsafe entry: {exc}") from None
        os.chmod(tmp, 0o755)  # readable by the sandboxed bot's own uid (mkdtemp: 0700)
        try:
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # another worker won the race
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


class Archives:
    """The artifact folders of a ladder home: ``archives/`` and the workers' ``cache/``."""

    def __init__(self, home: str | Path | None = None, *, max_bytes: int | None = None) -> None:
        self.home = ladder_home(home)
        self.archives = self.home / "archives"
        self.cache = self.home / "cache"
        if max_bytes is None:
            limit = os.environ.get(MAX_BYTES_ENV, "")
            max_bytes = int(limit) if limit.isdigit() else MAX_BYTES
        self.max_bytes = max_bytes

    def pack(self, source: str | Path) -> Packed:
        return pack(source, self.archives, max_bytes=self.max_bytes)

    def path(self, sha256: str) -> Path:
        return archive_path(self.archives, sha256)

    def unpack(self, sha256: str, cache: str | Path | None = None) -> Path:
        return unpack(sha256, cache or self.cache, self.archives, max_bytes=self.max_bytes)

    def store(self, sha256: str, compressed: bytes) -> Path:
        return store_archive(sha256, compressed, self.archives)
