"""The journal: durable appends, exactly once, torn last line repaired, one writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.tournament.journal import Journal, JournalLocked, read_journal


def line(gid: str, **extra: object) -> tuple[str, str]:
    return gid, json.dumps({"game_id": gid, **extra})


def test_append_skips_duplicates_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path) as j:
        assert j.append([line("a"), line("b"), line("a")]) == [0, 1]
        assert j.append([line("b"), line("c")]) == [1]
        assert len(j) == 3 and "c" in j
        assert [json.loads(x)["game_id"] for x in j.lines(1, 3)] == ["b", "c"]
    seen: list[str] = []
    with Journal(path, lambda r: seen.append(r["game_id"])) as j:
        assert seen == ["a", "b", "c"] and len(j) == 3
        assert j.append([line("c"), line("d")]) == [1]
    assert [r["game_id"] for r in read_journal(path)] == ["a", "b", "c", "d"]


def test_a_torn_last_line_is_cut_off_and_the_journal_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path) as j:
        j.append([line("a"), line("b")])
    good = path.read_bytes()
    with open(path, "ab") as fh:
        fh.write(b'{"game_id": "c", "steps": [1, 2')  # the driver died mid-write
    assert [r["game_id"] for r in read_journal(path)] == ["a", "b"]
    with Journal(path) as j:
        assert len(j) == 2 and "c" not in j and j.repaired_bytes > 0
        assert path.read_bytes() == good
        j.append([line("c")])
    assert [r["game_id"] for r in read_journal(path)] == ["a", "b", "c"]


def test_a_corrupt_middle_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_text(
        json.dumps({"game_id": "a"}) + "\nnot json\n" + json.dumps({"game_id": "b"}) + "\n"
    )
    with Journal(path) as j:
        assert len(j) == 2 and j.bad_lines == 1
        assert [json.loads(x)["game_id"] for x in j.lines(0, 2)] == ["a", "b"]


def test_two_drivers_cannot_write_one_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path), pytest.raises(JournalLocked, match="in use"):
        Journal(path)
    Journal(path).close()


def test_a_wanted_filter_parses_only_the_wanted_records_and_knows_every_id(
    tmp_path: Path,
) -> None:
    """A ladder's records file opens at the speed of reading it: the other records' ids
    are found without parsing them (records as :func:`dumps_line` writes them)."""
    from arena.match.records import dumps_line

    path = tmp_path / "records.jsonl"
    records = [
        {"format": "f", "players": [{"name": 'q"uote'}], "game_id": f"g{i}", "steps": [i]}
        for i in range(6)
    ]
    with Journal(path) as j:
        j.append([(str(r["game_id"]), dumps_line(r)) for r in records])
    with open(path, "ab") as fh:
        fh.write(b'{"format":"f","game_id":"torn"')  # and a torn last line
    parsed: list[dict[str, object]] = []
    with Journal(path, parsed.append, wanted={"g1", "g4", "nope"}.__contains__) as j:
        assert parsed == [records[1], records[4]]
        assert len(j) == 6 and all(f"g{i}" in j for i in range(6)) and "torn" not in j
        assert j.repaired_bytes > 0
        assert j.append([("g2", dumps_line(records[2]))]) == []  # still exactly once
