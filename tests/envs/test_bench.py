"""``python -m envs.bench`` runs end to end: the machine and implementation lines, then a
row per game with a ratio settled over rounds (numbers only; no speed is asserted)."""

from __future__ import annotations

import re

import pytest

from envs import bench


def test_the_bench_prints_a_row_per_game(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--games", "panorama,dziobaki", "--seconds", "0.02"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("machine: ") and "load average" in lines[0]
    assert lines[1].startswith("envs.direct: ")
    assert lines[2].split()[:5] == ["game", "engine/s", "env/s", "ratio", "rounds"]
    rows = {line.split()[0]: line.split() for line in lines[3:]}
    assert set(rows) == {"panorama", "dziobaki"}
    for row in rows.values():
        assert float(row[3]) > 0 and 3 <= int(row[4]) <= 9
        assert re.fullmatch(r"\d+\.\d", row[6])  # direct_us: every game has an encoder


def test_an_unknown_game_is_named_before_any_timing() -> None:
    with pytest.raises(ValueError, match="chess"):
        bench.main(["--games", "chess", "--seconds", "0.02"])
