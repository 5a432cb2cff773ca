"""The shared benchmark helpers: the machine header, the stability rule, --compare.

No wall-clock figures are asserted: the rule is tested on given samples and the CLI on
its output's shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.bench import report


def test_machine_header_carries_cores_and_load() -> None:
    info = report.machine()
    assert info["cpus"] >= 1 and len(info["load_average"]) == 3
    line = report.header_line({"cpus": 2, "load_average": [0.5, 1.25, 2.0]})
    assert "2 cores" in line and "0.50 / 1.25 / 2.00" in line


def test_settle_needs_a_window_of_close_running_medians() -> None:
    assert not report.settle([10.0, 10.0]).stable  # too few for the window
    steady = report.settle([10.0, 10.3, 9.9, 10.1])
    assert steady.stable and steady.median == pytest.approx(10.05) and steady.spread < 0.05
    moving = report.settle([10.0, 20.0, 40.0, 80.0])
    assert not moving.stable and moving.spread > 0.05
    assert "NOT STABLE after 4 repeats" in moving.note() and steady.note() == ""
    assert report.settle([0.0, 0.0, 0.0]).stable


def test_until_stable_stops_early_when_stable_and_at_the_bound_when_not() -> None:
    steady = iter([5.0] * 20)
    verdict, samples = report.until_stable(lambda: next(steady), 3, 9)
    assert verdict.stable and len(samples) == 3
    growing = iter(float(2**i) for i in range(20))
    verdict, samples = report.until_stable(lambda: next(growing), 3, 6)
    assert not verdict.stable and len(samples) == 6 and verdict.repeats == 6
    with pytest.raises(ValueError):
        report.until_stable(lambda: 1.0, 3, 2)


def test_compare_lines_up_rows_by_game_and_skips_stability() -> None:
    before = {
        "machine": {"cpus": 2, "load_average": [1.0, 1.0, 1.0]},
        "rows": [
            {"game": "a", "players": 2, "x": 100.0, "stability": {"spread": 0.01}},
            {"game": "b", "players": 2, "x": 10.0},
        ],
    }
    after = {
        "machine": {"cpus": 2, "load_average": [2.0, 1.0, 1.0]},
        "rows": [  # other order, one game more, one flag
            {"game": "c", "players": 2, "x": 1.0},
            {"game": "b", "players": 2, "x": 15.0, "ok": True},
            {"game": "a", "players": 2, "x": 50.0, "stability": {"spread": 0.5}},
        ],
    }
    changes = {c.key: c.ratio for c in report.compare(before, after)}
    assert changes["rows.a/2p.x"] == 0.5 and changes["rows.b/2p.x"] == 1.5
    assert changes["machine.load_average.0"] == 2.0
    assert not any("stability" in k or k.startswith("rows.c") or k.endswith("ok") for k in changes)
    lines = report.compare_lines(before, after)
    assert "  rows.a/2p.x  100 -> 50  (-50.0%)" in lines
    assert "  rows.b/2p.x  10 -> 15  (+50.0%)" in lines


def test_finish_puts_the_comparison_in_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    out: dict[str, Any] = {"rows": [{"game": "a", "x": 3.0}]}
    report.finish(out, {"rows": [{"game": "a", "x": 2.0}]}, as_json=True)
    printed = json.loads(capsys.readouterr().out)
    assert printed["compared_with_earlier"] == [
        {"figure": "rows.a.x", "before": 2.0, "after": 3.0, "ratio": 1.5}
    ]


def test_median_figures_take_the_median_of_every_number() -> None:
    runs = [
        {"a": 1, "b": {"c": 5.0}, "g": "x"},
        {"a": 9, "b": {"c": 1.0}, "g": "x"},
        {"a": 2, "b": {"c": 3.0}, "g": "x"},
    ]
    assert report.median_figures(runs) == {"a": 2.0, "b": {"c": 3.0}, "g": "x"}


def test_bench_engine_prints_the_header_and_compares(run_cli: Any, tmp_path: Path) -> None:
    args = ["bench", "engine", "--game", "dziobaki", "--seconds", "0.02", "--repeats", "1"]
    first = run_cli(*args, "--max-repeats", "2", "--json")
    assert first.exit_code == 0, first.stderr
    data = json.loads(first.stdout)
    assert data["machine"]["cpus"] >= 1 and len(data["machine"]["load_average"]) == 3
    assert [r["players"] for r in data["rows"]] == [1, 2, 3, 4]
    assert all(1 <= r["stability"]["repeats"] <= 2 for r in data["rows"])
    earlier = tmp_path / "before.json"
    earlier.write_text(first.stdout)
    second = run_cli(*args, "--max-repeats", "1", "--compare", str(earlier))
    assert second.exit_code == 0, second.stderr
    assert second.stdout.startswith("machine: ") and " cores, load average " in second.stdout
    assert "compared with the earlier run" in second.stdout
    assert "rows.dziobaki/3p.decisions_per_s " in second.stdout
    assert "NOT STABLE after 1 repeats" in second.stdout  # one repeat cannot show stability


def test_bench_compare_rejects_a_bad_file(run_cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run_cli("bench", "engine", "--compare", str(bad))
    assert proc.exit_code == 2 and "is not JSON" in proc.stderr
    proc = run_cli("bench", "arena", "--compare", str(tmp_path / "missing.json"))
    assert proc.exit_code == 2 and "cannot read" in proc.stderr
    proc = run_cli("bench", "engine", "--repeats", "3", "--max-repeats", "2")
    assert proc.exit_code == 2 and "--max-repeats" in proc.stderr


def test_bench_search_reports_iterations_and_the_solo_move(run_cli: Any) -> None:
    args = ["bench", "search", "--game", "dziobaki", "--iterations", "5"]
    proc = run_cli(*args, "--repeats", "1", "--max-repeats", "2", "--json")
    assert proc.exit_code == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["machine"]["cpus"] >= 1 and data["iterations"] == 5
    (row,) = data["rows"]
    assert row["game"] == "dziobaki" and row["players"] == 3
    assert row["iterations_per_cpu_s"] > 0 and data["solo_dziobaki_first_move_cpu_ms"] > 0
    proc = run_cli("bench", "search", "--game", "nope")
    assert proc.exit_code == 2 and "unknown game" in proc.stderr


def test_repeat_until_stable_decides_on_the_headline_figures_only() -> None:
    values = iter(range(100))

    def measure() -> dict[str, Any]:
        i = next(values)
        return {"steady": {"x": 10.0}, "noise": float(2**i), "name": "run"}

    repeated = report.repeat_until_stable(measure, ["steady.x"], 1, 9)
    assert repeated.stable and len(repeated.runs) == 3  # the default window
    assert repeated.medians() == {"steady": {"x": 10.0}, "noise": 2.0, "name": "run"}
    values = iter(range(100))
    moving = report.repeat_until_stable(measure, ["steady.x", "noise"], 1, 4)
    assert not moving.stable and len(moving.runs) == 4
    assert moving.stability["steady.x"].stable and not moving.stability["noise"].stable
    assert moving.note() == " [NOT STABLE after 4 repeats: noise (spread 75%)]"
    assert moving.as_json()["noise"]["repeats"] == 4
    with pytest.raises(KeyError):
        report.repeat_until_stable(measure, ["absent"], 1, 2)


def test_one_costly_repeat_is_never_called_stable() -> None:
    repeated = report.repeat_until_stable(lambda: {"x": 1.0}, ["x"], 1, 1)
    assert not repeated.stable and len(repeated.runs) == 1
    repeated = report.repeat_until_stable(lambda: {"x": 1.0}, ["x"], 1, 2)
    assert repeated.stable and len(repeated.runs) == 2
    verdict = report.settle([1.0, 3.0])
    assert report.Stability.from_json(verdict.as_json()) == verdict
