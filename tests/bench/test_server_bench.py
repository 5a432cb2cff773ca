"""``arena bench server``: each load run says where its tail comes from, and the bench
follows :mod:`arena.bench.report` (machine header, stability, ``--compare``).

No wall-clock figure is asserted: the attribution is tested on given probe windows, and
the command on the shape and consistency of its output at a tiny size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.bench.grpc_server import BASELINE_MATCHES, tail_of
from arena.server.probe import LoadProbe, window


def _window(**figures: Any) -> dict[str, Any]:
    zero = LoadProbe().snapshot()
    out = window(zero, {**zero, "wall_s": zero["wall_s"] + 1.0})
    out.update(figures)
    return out


def test_tail_of_folds_servers_and_generators_and_names_the_largest_wait() -> None:
    servers = [
        _window(cpu_cores=0.4, delay_p99_ms=3.0, gc_pause_max_ms=1.0, gc_collections=[2, 0, 0]),
        _window(cpu_cores=0.3, delay_p99_ms=1.0, gc_pause_max_ms=9.0, gc_collections=[1, 1, 0]),
    ]
    loads = [_window(cpu_cores=0.2, delay_p99_ms=2.0), _window(cpu_cores=0.25, delay_p99_ms=0.5)]
    tail = tail_of(servers, loads)
    assert tail["server_delay_p99_ms"] == 3.0 and tail["load_delay_p99_ms"] == 2.0
    assert tail["server_cpu_cores"] == 0.7 and tail["load_cpu_cores"] == 0.45
    assert tail["server_gc_collections"] == [3, 1, 0]
    assert tail["largest"] == "server GC pause"
    loads[1]["delay_p99_ms"] = 12.0
    assert tail_of(servers, loads)["largest"] == "load generator loop delay"


@pytest.mark.server
@pytest.mark.parametrize(
    "client",
    [
        "python",
        # (builds bots/go with make, as the go_bot fixture: its group and tier)
        pytest.param("go", marks=[pytest.mark.xdist_group("go"), pytest.mark.toolchain]),
    ],
)
def test_bench_server_reports_machine_tail_and_compare(
    run_cli: Any, tmp_path: Path, client: str
) -> None:
    """A tiny run in JSON with ``--compare``: the machine, the single match's stability,
    the baseline and each run's ratio to it (which decides the goal),
    each run's tail (servers' and generators' probes, CPU per move), and the change per
    figure; with either load generator."""
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"single_match": {"p99_us": 1000.0}}))
    done = run_cli(
        "bench", "server", "--json", "--flood", "0", "--burst", "0", "--sizes", "3",
        "--seconds", "1", "--think-ms", "10", "--repeats", "1", "--max-repeats", "1",
        "--compare", str(earlier), "--load-client", client,
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["load_client"] == client
    assert out["machine"]["cpus"] >= 1 and len(out["machine"]["load_average"]) == 3
    assert out["single_match"]["stability"]["repeats"] == 1
    baseline = out["baseline"]
    assert baseline["matches"] == BASELINE_MATCHES and baseline["n"] > 0
    for k in ("1_process", "2_process"):
        (run,) = out["scale"][k]["runs"]
        tail = run["tail"]
        assert run["matches"] == 3 and run["n"] > 0 and run["stability"]["repeats"] == 1
        assert run["p99_vs_baseline"] == round(run["p99_us"] / baseline["p99_us"], 2)
        assert run["settle_s"] is not None  # each run began once the servers hosted nothing
        assert run["p99_vs_single"] == round(run["p99_us"] / out["single_match"]["p99_us"], 2)
        held = out["scale"][k]["held_matches"]
        assert held == (3 if run["p99_vs_baseline"] <= out["goal"] else 0)
        assert tail["server_cpu_cores"] > 0 and tail["load_cpu_cores"] > 0
        assert tail["server_cpu_us_per_move"] > 0 and tail["load_cpu_us_per_move"] > 0
        assert tail["server_delay_max_ms"] >= tail["server_delay_p99_ms"] > 0
        assert tail["largest"] in (
            "server loop delay",
            "server GC pause",
            "load generator loop delay",
        )
    (change,) = [c for c in out["compared_with_earlier"] if c["figure"] == "single_match.p99_us"]
    assert change["before"] == 1000.0 and change["after"] == out["single_match"]["p99_us"]


def test_bench_server_rejects_a_bad_compare_file_before_measuring(
    run_cli: Any, tmp_path: Path
) -> None:
    done = run_cli("bench", "server", "--compare", str(tmp_path / "missing.json"))
    assert done.exit_code != 0 and "--compare: cannot read" in done.stderr + done.stdout


def test_bench_server_rejects_an_unknown_load_client(run_cli: Any) -> None:
    done = run_cli("bench", "server", "--load-client", "rust", "--flood", "0", "--burst", "0")
    assert done.exit_code != 0
    assert "--load-client must be one of auto, go, python, got 'rust'" in done.stderr + done.stdout
