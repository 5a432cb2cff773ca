"""Submission packing: deterministic content-addressed archives, limits, unsafe entries
refused, unpacking verified, atomic and keyed by hash."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import threading
from pathlib import Path

import pytest

from arena.ladder.errors import SubmissionError
from arena.ladder.submission import Archives, guess_entry, is_spec, ladder_home, pack, unpack


def make_bot(root: Path, order: list[str] | None = None, mtime: int = 1_000_000) -> Path:
    files = {
        "main.py": "print('hello')\n",
        "lib/util.py": "X = 1\n",
        "lib/data/weights.txt": "0.5 0.25\n",
        "run.sh": "#!/bin/sh\nexec python main.py\n",
    }
    for name in order or list(files):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[name])
        os.utime(path, (mtime, mtime))
    (root / "run.sh").chmod(0o755)
    return root


def test_the_same_files_give_the_same_hash(tmp_path: Path) -> None:
    a = make_bot(tmp_path / "a")
    b = make_bot(tmp_path / "b", order=["run.sh", "lib/data/weights.txt", "main.py", "lib/util.py"])
    os.utime(b / "main.py", (5, 5))
    (b / "__pycache__").mkdir()
    (b / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\x00junk")
    (b / ".git").mkdir()
    (b / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    store = tmp_path / "archives"
    pa, pb = pack(a, store), pack(b, store)
    assert pa.sha256 == pb.sha256 and pa.path == pb.path
    assert pa.path == store / f"{pa.sha256}.tar.gz"
    assert pa.files == ("lib/data/weights.txt", "lib/util.py", "main.py", "run.sh")
    assert pa.entry == "python main.py" and pa.content_bytes == sum(
        len(p.read_bytes()) for p in a.rglob("*") if p.is_file()
    )
    assert [p.name for p in store.iterdir()] == [pa.path.name]  # no temporary leftovers
    # the hash is that of the uncompressed tar stream
    assert hashlib.sha256(gzip.decompress(pa.path.read_bytes())).hexdigest() == pa.sha256


def test_a_changed_file_or_mode_changes_the_hash(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    first = pack(bot, tmp_path / "arch").sha256
    (bot / "main.py").write_text("print('changed')\n")
    second = pack(bot, tmp_path / "arch").sha256
    (bot / "main.py").chmod(0o755)
    third = pack(bot, tmp_path / "arch").sha256
    assert len({first, second, third}) == 3


def test_a_single_file_is_packed_under_its_name(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text("print(1)\n")
    packed = pack(tmp_path / "mybot.py", tmp_path / "arch")
    assert packed.files == ("mybot.py",) and packed.entry == "python mybot.py"


def test_the_size_limit_is_a_clear_error(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    (bot / "big.bin").write_bytes(b"\x00" * 5000)
    with pytest.raises(SubmissionError, match="over the size limit of 4096 bytes"):
        pack(bot, tmp_path / "arch", max_bytes=4096)
    assert not (tmp_path / "arch").exists() or not any((tmp_path / "arch").iterdir())


def test_links_that_escape_and_special_files_are_refused(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    (tmp_path / "secret").write_text("key")
    (bot / "leak").symlink_to(tmp_path / "secret")
    with pytest.raises(SubmissionError, match="leak: a symbolic link that leads outside"):
        pack(bot, tmp_path / "arch")
    (bot / "leak").unlink()
    (bot / "up").symlink_to("../secret")
    with pytest.raises(SubmissionError, match="up: a symbolic link that leads outside"):
        pack(bot, tmp_path / "arch")
    (bot / "up").unlink()
    os.mkfifo(bot / "pipe")
    with pytest.raises(SubmissionError, match="pipe: not a regular file"):
        pack(bot, tmp_path / "arch")
    (bot / "pipe").unlink()
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    with pytest.raises(SubmissionError, match="no files"):
        pack(empty, tmp_path / "arch")
    with pytest.raises(SubmissionError, match="cannot read"):
        pack(tmp_path / "missing", tmp_path / "arch")


def test_links_inside_the_submission_are_kept(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    (bot / "weights").symlink_to(bot / "lib" / "data")  # absolute, but inside
    archives = Archives(tmp_path / "home")
    packed = archives.pack(bot)
    where = archives.unpack(packed.sha256)
    assert os.readlink(where / "weights") == "lib/data"
    assert (where / "weights" / "weights.txt").read_text() == "0.5 0.25\n"


def test_unpack_restores_the_files_once_into_the_cache(tmp_path: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    archives = Archives(tmp_path / "home")
    packed = archives.pack(bot)
    assert archives.path(packed.sha256) == packed.path
    where = archives.unpack(packed.sha256)
    assert where == tmp_path / "home" / "cache" / packed.sha256
    assert (where / "lib" / "util.py").read_text() == "X = 1\n"
    assert os.access(where / "run.sh", os.X_OK) and not os.access(where / "main.py", os.X_OK)
    (where / "marker").write_text("kept")  # a second unpack reuses the folder
    assert archives.unpack(packed.sha256) == where and (where / "marker").exists()


def test_workers_racing_to_unpack_get_one_complete_folder(tmp_path: Path) -> None:
    packed = pack(make_bot(tmp_path / "bot"), tmp_path / "arch")
    results: list[Path] = []
    barrier = threading.Barrier(4)

    def worker() -> None:
        barrier.wait()
        results.append(unpack(packed.sha256, tmp_path / "cache", tmp_path / "arch"))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and len(set(results)) == 1
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [packed.sha256]
    assert (results[0] / "main.py").is_file()


def test_a_corrupt_or_missing_archive_is_refused(tmp_path: Path) -> None:
    packed = pack(make_bot(tmp_path / "bot"), tmp_path / "arch")
    data = gzip.decompress(packed.path.read_bytes()).replace(b"X = 1", b"X = 2")
    packed.path.write_bytes(gzip.compress(data))
    with pytest.raises(SubmissionError, match="corrupt: its content hashes to"):
        unpack(packed.sha256, tmp_path / "cache", tmp_path / "arch")
    packed.path.write_bytes(b"not gzip")
    with pytest.raises(SubmissionError, match="corrupt"):
        unpack(packed.sha256, tmp_path / "cache", tmp_path / "arch")
    with pytest.raises(SubmissionError, match="cannot read"):
        unpack("0" * 64, tmp_path / "cache", tmp_path / "arch")
    with pytest.raises(SubmissionError, match="not a sha256"):
        unpack("../../etc", tmp_path / "cache", tmp_path / "arch")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


@pytest.mark.parametrize("name", ["../evil.py", "/tmp/evil.py"])
def test_an_archive_with_an_escaping_path_is_not_unpacked(tmp_path: Path, name: str) -> None:
    """An archive that did not come from ``pack`` (a tampered store) cannot write outside."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    data = buffer.getvalue()
    sha = hashlib.sha256(data).hexdigest()
    (tmp_path / "arch").mkdir()
    (tmp_path / "arch" / f"{sha}.tar.gz").write_bytes(gzip.compress(data))
    with pytest.raises(SubmissionError, match="unsafe entry"):
        unpack(sha, tmp_path / "cache", tmp_path / "arch")
    assert not (tmp_path / "evil.py").exists() and not any((tmp_path / "cache").iterdir())


def test_specs_are_told_from_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert all(
        is_spec(s) for s in ("random", "greedy", "ismcts", "ismcts:ms=100", "py:m:C", "cmd:./b")
    )
    assert not is_spec("mybot/") and not is_spec("bot.py")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "random").mkdir()  # a folder named like a spec is a path
    assert not is_spec("random")


def test_entry_guesses_and_the_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert guess_entry(["bot.py", "x.py"]) == "python bot.py"
    assert guess_entry(["run", "data.bin"], frozenset({"run"})) == "./run"
    assert guess_entry(["run", "data.bin"]) is None
    monkeypatch.delenv("MENAGERIE_LADDER_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    assert ladder_home() == tmp_path / "ladder"
    monkeypatch.setenv("MENAGERIE_LADDER_HOME", str(tmp_path / "elsewhere"))
    assert Archives().archives == tmp_path / "elsewhere" / "archives"
